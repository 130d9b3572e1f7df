#include "common/deadline.hpp"

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

namespace ccb {

std::optional<std::string> run_with_deadline(const std::function<std::string()>& f, double seconds) {
  struct Shared {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    std::string result;
  };
  auto shared = std::make_shared<Shared>();
  std::thread([shared, f] {
    std::string r = f();
    std::lock_guard<std::mutex> lock(shared->mu);
    shared->result = std::move(r);
    shared->done = true;
    shared->cv.notify_all();
  }).detach();
  std::unique_lock<std::mutex> lock(shared->mu);
  if (shared->cv.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return shared->done; }))
    return shared->result;
  return std::nullopt;
}

}  // namespace ccb
