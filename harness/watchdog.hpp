// -T/--timeout: a thread that ends the process when no operation has
// completed for the timeout (and, with or without -T, when a stop signal is
// not acted on because an operation does not return). Every rank's watchdog reports its own line (the
// operation, size and the last iteration it completed, so stuck ranks stand
// out); the backend aborts what it can (NCCL: ncclCommAbort), given at most
// kAbortSeconds; the last words (rank 0: the end record) are written; after a
// grace period that lets the other ranks report too, the process exits 4 and
// mpirun ends the rest. The bound: the timeout + 0.1 s (tick) + 1 s (the
// last words' lock) + kAbortSeconds + kGraceSeconds, every time
// (tests/fault.sh stuck).
#pragma once
#include "common/errors.hpp"
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace ccb {

// The bound of a backend's initialisation under -T: CCBENCH_INIT_TIMEOUT
// (seconds, > 0) when set, else what a connection set-up gets (the larger
// of -T and kSetupSeconds: NCCL's bootstrap on a big job takes long without
// anything being hung). UsageError on a malformed CCBENCH_INIT_TIMEOUT.
double init_bound_s(double timeout_s, const char* env_init_timeout);

class Watchdog {
 public:
  // What it watches. sweep: operations (-T), and stop signals that are not
  // acted on. control_plane: ccbench accept's steps between sweeps (each
  // set_activity starts a step; a step that does not end within the timeout
  // ends the process); signals are left to the accept loop, which writes the
  // verdicts.
  enum class Watches { sweep, control_plane };
  // on_timeout runs on the watchdog thread before the process exits (the
  // backend's abort); it returns what it did, for the report.
  Watchdog(double timeout_s, int rank, std::string host, std::function<std::string()> on_timeout = {},
           Watches watches = Watches::sweep);
  ~Watchdog();
  bool enabled() const { return timeout_ns_ > 0; }
  // What this rank is doing now (collective, size, phase).
  void set_activity(std::string what);
  // Runs on the watchdog thread just before it ends the process, with the
  // end status ("failed: timeout ...", "interrupted: SIGTERM ...") and exit code.
  void set_last_words(std::function<void(const std::string& status, int code)> f);
  // What heartbeat() counts, in the report ("after iteration 12"; ccbench
  // replay: "operation").
  void set_iteration_name(std::string name) {
    std::lock_guard<std::mutex> lock(mu_);
    iteration_name_ = std::move(name);
  }
  // The exit code of a timeout (kExitTimeout unless told; ccbench accept: 2).
  void set_exit_code(int code) { exit_code_ = code; }
  static constexpr int kGraceSeconds = 2;
  static constexpr int kAbortSeconds = 5;
  // A SIGINT/SIGTERM that the sweep has not acted on within this long (a
  // point still running, or an operation that does not return) ends the
  // process from the watchdog thread, end record first: mpirun follows its
  // SIGTERM with SIGKILL after 1 s (odls_base_sigkill_timeout).
  // Rank 0 writes the end record, so the other ranks wait longer: the first
  // rank to exit makes mpirun kill the rest at once, and a rank 1 that left
  // first lost rank 0's end record (2 runs in 16 here).
  static constexpr int kSignalMillis = 500;
  static constexpr int kSignalMillisOtherRanks = 850;
  // While paused the idle clock does not run (ccbench accept's control plane
  // while a sweep, with a watchdog of its own, runs); resume() restarts it.
  void pause() { paused_.store(true, std::memory_order_relaxed); }
  void resume() {
    touch();
    paused_.store(false, std::memory_order_relaxed);
  }
  // Restarts the idle clock without naming an iteration: work that is not an
  // operation ended (filling buffers), or an asynchronous backend saw issued
  // work complete (Backend::on_completion).
  void touch() {
    if (timeout_ns_ > 0) progress_.store(progress_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  // One operation completed: two relaxed stores, no clock read (the
  // watchdog thread notices when the count stops changing).
  void heartbeat(long iteration) {
    if (timeout_ns_ > 0) {
      iteration_.store(iteration, std::memory_order_relaxed);
      progress_.store(progress_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
  }
  // Connection set-up: NCCL connects lazily, on the first operation of each
  // size and algorithm (NVLS, inter-node IB), which may take far longer than
  // -T on a big job without anything being hung. first_use_begins(bytes)
  // grants the first operation of each size in this run (later ones get -T)
  // the bound setup_bound_ns, at least kSetupSeconds, until setup_ends.
  // Called for asynchronous backends only (MPI connects in MPI_Init or within
  // one call); from the measuring thread only.
  static constexpr int kSetupSeconds = 120;
  static long long setup_bound_ns(long long timeout_ns, bool setup) {
    return setup ? std::max(timeout_ns, kSetupSeconds * 1'000'000'000LL) : timeout_ns;
  }
  // -G: one graph launch holds `ops` operations and completes as one (one
  // heartbeat), so the bound between heartbeats is ops x the timeout while
  // graphs run (a launch of 20 x 8 GiB on 16 nodes took 7 s, and -T 5 fired
  // on a working run). graph_begins(ops) ... graph_ends(), measuring thread.
  static long long graph_bound_ns(long long timeout_ns, int ops, bool setup) {
    return setup_bound_ns(timeout_ns * std::max(1, ops), setup);
  }
  void graph_begins(int ops) {
    ops_per_beat_.store(std::max(1, ops), std::memory_order_relaxed);
    touch();
  }
  void graph_ends() {
    ops_per_beat_.store(1, std::memory_order_relaxed);
    touch();
  }
  bool first_use_begins(std::size_t bytes) {
    if (!used_sizes_.insert(bytes).second) return false;
    setup_.store(true, std::memory_order_relaxed);
    touch();
    return true;
  }
  // The backend's teardown (after the last words were written): bounded as a
  // set-up is; a timeout now reports and exits with neither last words nor
  // an abort (the backend is being destroyed).
  void teardown_begins();
  void setup_ends() {
    setup_.store(false, std::memory_order_relaxed);
    touch();
  }
  // An asynchronous backend (NCCL) enqueued this iteration: no progress by
  // itself; its completions come through touch().
  void issued(long iteration) {
    if (timeout_ns_ > 0) {
      iteration_.store(iteration, std::memory_order_relaxed);
      asynchronous_.store(true, std::memory_order_relaxed);
    }
  }

 private:
  static long long now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  void loop();
  long long timeout_ns_;
  int rank_;
  std::string host_;
  std::function<std::string()> on_timeout_;
  std::atomic<unsigned long> progress_{0};  // written by the measuring thread only
  std::atomic<long> iteration_{0};
  std::atomic<bool> asynchronous_{false};  // iteration_ counts issued operations
  std::atomic<bool> paused_{false};
  std::atomic<bool> setup_{false};
  std::atomic<int> ops_per_beat_{1};  // graph_begins'
  std::set<std::size_t> used_sizes_;  // first_use_begins'; the measuring thread's
  Watches watches_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string activity_;
  std::string iteration_name_ = "iteration";
  std::function<void(const std::string&, int)> last_words_;
  bool stop_ = false;
  std::thread thread_;
  std::atomic<int> exit_code_{kExitTimeout};
};

}  // namespace ccb
