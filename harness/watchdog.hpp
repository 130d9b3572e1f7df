// -T/--timeout: a thread that ends the process when no operation has
// completed for the timeout. The stderr line names the operation, size and
// iteration this rank was in; the backend aborts what it can (NCCL:
// ncclCommAbort) and mpirun then ends the other ranks.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace ccb {

inline constexpr int kExitTimeout = 4;

class Watchdog {
 public:
  // on_timeout runs on the watchdog thread before the process exits (the
  // backend's abort); it returns what it did, for the report.
  Watchdog(double timeout_s, int rank, std::string host, std::function<std::string()> on_timeout = {});
  ~Watchdog();
  bool enabled() const { return timeout_ns_ > 0; }
  // What this rank is doing now (collective, size, phase).
  void set_activity(std::string what);
  // One operation completed: two relaxed stores, no clock read (the
  // watchdog thread notices when the count stops changing).
  void heartbeat(long iteration) {
    if (timeout_ns_ > 0) {
      iteration_.store(iteration, std::memory_order_relaxed);
      progress_.store(progress_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
  }

 private:
  static long long now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  void loop();
  long long timeout_ns_;
  int rank_;
  std::string host_;
  std::function<std::string()> on_timeout_;
  std::atomic<unsigned long> progress_{0};  // written by the measuring thread only
  std::atomic<long> iteration_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  std::string activity_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace ccb
