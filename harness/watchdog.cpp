#include "harness/watchdog.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace ccb {

Watchdog::Watchdog(double timeout_s, int rank, std::string host, std::function<std::string()> on_timeout)
    : timeout_ns_(static_cast<long long>(timeout_s * 1e9)),
      rank_(rank),
      host_(std::move(host)),
      on_timeout_(std::move(on_timeout)) {
  if (timeout_ns_ > 0) thread_ = std::thread([this] { loop(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Watchdog::set_activity(std::string what) {
  std::lock_guard<std::mutex> lock(mu_);
  activity_ = std::move(what);
  heartbeat(0);
}

void Watchdog::loop() {
  std::unique_lock<std::mutex> lock(mu_);
  const auto tick = std::chrono::milliseconds(std::min<long long>(200, timeout_ns_ / 4'000'000 + 1));
  unsigned long seen = progress_.load(std::memory_order_relaxed);
  long long changed_at = now_ns();
  while (!cv_.wait_for(lock, tick, [this] { return stop_; })) {
    const unsigned long now_seen = progress_.load(std::memory_order_relaxed);
    if (now_seen != seen) {
      seen = now_seen;
      changed_at = now_ns();
      continue;
    }
    const long long idle = now_ns() - changed_at;
    if (idle < timeout_ns_) continue;
    fmt::print(stderr, "ccbench: rank {} ({}): timeout: no operation completed for {:.1f} s during {} after iteration {}; aborting (exit {})\n",
               rank_, host_, static_cast<double>(idle) / 1e9, activity_, iteration_.load(), kExitTimeout);
    std::fflush(stderr);
    if (on_timeout_)
      if (const std::string done = on_timeout_(); !done.empty())
        fmt::print(stderr, "ccbench: rank {} ({}): {}\n", rank_, host_, done);
    std::fflush(stderr);
    std::fflush(stdout);
    _exit(kExitTimeout);
  }
}

}  // namespace ccb
