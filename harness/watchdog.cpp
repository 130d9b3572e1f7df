#include "harness/watchdog.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <memory>

#include "common/deadline.hpp"
#include "harness/stop_signals.hpp"

namespace ccb {
Watchdog::Watchdog(double timeout_s, int rank, std::string host, std::function<std::string()> on_timeout,
                   Watches watches)
    : timeout_ns_(static_cast<long long>(timeout_s * 1e9)),
      rank_(rank),
      host_(std::move(host)),
      on_timeout_(std::move(on_timeout)),
      watches_(watches) {
  thread_ = std::thread([this] { loop(); });
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
  iteration_.store(-1, std::memory_order_relaxed);
  touch();
}

void Watchdog::teardown_begins() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    last_words_ = {};
    on_timeout_ = {};
  }
  set_activity("the teardown (buffers, graphs, communicators)");
  setup_.store(true, std::memory_order_relaxed);
}

void Watchdog::set_last_words(std::function<void(const std::string&, int)> f) {
  std::lock_guard<std::mutex> lock(mu_);
  last_words_ = std::move(f);
}

double init_bound_s(double timeout_s, const char* env_init_timeout) {
  if (env_init_timeout && *env_init_timeout) {
    char* end = nullptr;
    const double v = std::strtod(env_init_timeout, &end);
    if (*end != '\0' || !(v > 0) || v > 86400)
      throw UsageError(fmt::format("CCBENCH_INIT_TIMEOUT '{}': expected seconds, more than 0", env_init_timeout));
    return v;
  }
  return std::max(timeout_s, static_cast<double>(Watchdog::kSetupSeconds));
}

void Watchdog::loop() {
  std::unique_lock<std::mutex> lock(mu_);
  const auto tick =
      std::chrono::milliseconds(std::min<long long>(100, timeout_ns_ > 0 ? timeout_ns_ / 4'000'000 + 1 : 100));
  unsigned long seen = progress_.load(std::memory_order_relaxed);
  long long changed_at = now_ns(), signal_at = 0;
  while (!cv_.wait_for(lock, tick, [this] { return stop_; })) {
    if (const int sig = watches_ == Watches::sweep ? stop_signal() : 0; sig != 0) {
      if (signal_at == 0) signal_at = now_ns();
      const int bound_ms = rank_ == 0 ? kSignalMillis : kSignalMillisOtherRanks;
      if (now_ns() - signal_at >= bound_ms * 1'000'000LL) {
        const std::string status =
            fmt::format("interrupted: {} during {} (not acted on within {} ms)", signal_name(sig), activity_, bound_ms);
        fmt::print(stderr, "ccbench: rank {} ({}): {}; exiting\n", rank_, host_, status);
        if (last_words_) last_words_(status, kExitSignal + sig);
        std::fflush(stderr);
        std::fflush(stdout);
        _exit(kExitSignal + sig);
      }
    }
    if (timeout_ns_ <= 0) continue;
    const unsigned long now_seen = progress_.load(std::memory_order_relaxed);
    if (now_seen != seen || paused_.load(std::memory_order_relaxed)) {
      seen = now_seen;
      changed_at = now_ns();
      continue;
    }
    const long long idle = now_ns() - changed_at;
    const bool setup = setup_.load(std::memory_order_relaxed);
    const int ops = ops_per_beat_.load(std::memory_order_relaxed);
    if (idle < graph_bound_ns(timeout_ns_, ops, setup)) continue;
    const long it = iteration_.load();
    const std::string where = it < 0                 ? std::string("before its first operation")
                              : asynchronous_.load() ? fmt::format("with {} {} issued", iteration_name_, it)
                                                     : fmt::format("after {} {}", iteration_name_, it);
    const std::string reason =
        watches_ == Watches::sweep
            ? fmt::format(
                  "timeout: no operation completed for {:.1f} s during {}{}{} {}", static_cast<double>(idle) / 1e9,
                  activity_, setup ? " (connection set-up)" : "",
                  ops > 1 ? fmt::format(" (CUDA graph launches of {} operations each: bound {} x -T)", ops, ops) : "",
                  where)
            : fmt::format("timeout: {} did not finish within {:.1f} s", activity_, static_cast<double>(idle) / 1e9);
    fmt::print(stderr, "ccbench: rank {} ({}): {}; aborting (exit {})\n", rank_, host_, reason, exit_code_.load());
    std::fflush(stderr);
    // The end record first: an abort may not return, or take the process down.
    if (last_words_) last_words_("failed: " + reason, exit_code_.load());
    if (on_timeout_)
      if (const std::string done =
              run_with_deadline(on_timeout_, kAbortSeconds)
                  .value_or(fmt::format("the abort did not return within {} s; exiting without it", kAbortSeconds));
          !done.empty())
        fmt::print(stderr, "ccbench: rank {} ({}): {}\n", rank_, host_, done);
    std::fflush(stderr);
    std::fflush(stdout);
    lock.unlock();
    std::this_thread::sleep_for(std::chrono::seconds(kGraceSeconds));  // let the other ranks report
    _exit(exit_code_);
  }
}

}  // namespace ccb
