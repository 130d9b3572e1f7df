// The parts of the NCCL backend's life that are pure logic, kept apart from
// CUDA so that they are unit-tested on a machine without a GPU: the order of
// teardown, and the ring of completion marks that feeds the watchdog.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/dtype.hpp"

namespace ccb {

// NCCL version codes as "2.28.9": major x 10000 + minor x 100 + patch from
// NCCL 2.9, major x 1000 + minor x 100 + patch before (2804 is 2.8.4).
std::string nccl_version_text(int code);
// The version code NCCL added a data type in: bfloat16 2.10, fp8 (e4m3,
// e5m2) 2.24; 0 for the types of every version ccbench starts on (2.7).
int nccl_type_version(DType d);
// Whether `d` can run: "" when both the headers ccbench was built with and
// the library loaded now have it, else why not. The loaded library decides
// (an older one answered ncclInvalidArgument mid-sweep while the headers said yes).
std::string nccl_type_gap(DType d, int header_code, int loaded_code);
// "" when `what` (an option, "-R 2 (ncclCommWindowRegister)") that needs NCCL
// `needed` (a version code) is in both the headers ccbench was built with and
// the library loaded now; else one line naming the version needed and both.
std::string nccl_version_gap(std::string_view what, int needed, int header_code, int loaded_code);

// What NcclBackend releases, in this order (nccl_teardown_steps):
//   graphs          every CUDA graph holding NCCL kernels (the per-operation
//                   graph and the -G timed loop): since NCCL 2.26
//                   ncclCommDestroy and ncclCommAbort wait until those graphs
//                   are destroyed, so they go first or the process hangs;
//   drain_streams   wait for issued work (skipped after an abort: an aborted
//                   communicator's stream may never drain);
//   buffers         deregistered from and freed before their communicators;
//   communicators   ncclCommDestroy (not after an abort, which freed them);
//   events_streams  CUDA events and streams.
enum class TeardownStep { graphs, drain_streams, buffers, communicators, events_streams };
std::vector<TeardownStep> nccl_teardown_steps(bool aborted);
std::string_view teardown_step_name(TeardownStep s);

// The capture plan of -G: what run() (or prepare(), before a timed run) does
// with one operation's arguments.
//   issue    enqueue it (no -G; or the -G timed loop being captured)
//   capture  new arguments: run once directly (NCCL connects peers on first
//            use, which a capture cannot hold), then capture it as a graph
//   launch   replay the graph captured for these arguments
//   nothing  prepare() with nothing to build
// prepare() captures new arguments so that the timed run() is a launch: a
// per-iteration sample never times a capture and an instantiation.
enum class GraphAction { issue, capture, launch, nothing };
GraphAction graph_action(bool graph_mode, bool capturing_loop, bool captured_these_args, bool preparing);

// Runs body between NCCL's group start and end and returns end()'s result.
// When body throws, the group is ended first (its result dropped): a group
// left open makes a kept backend (accept) queue its next operations into a
// group that never launches.
template <class Start, class End, class Body>
auto in_group(Start start, End end, Body body) {
  start();
  try {
    body();
  } catch (...) {
    end();
    throw;
  }
  return end();
}

// ncclCommAbort on every communicator (`abort` says whether it succeeded);
// each handle is forgotten whatever the answer, so that nothing later
// deregisters buffers through a communicator the abort freed. Returns the
// count that succeeded.
template <class Locals, class Abort>
int abort_communicators(Locals& locals, Abort abort) {
  int succeeded = 0;
  for (auto& l : locals) {
    if (!l.comm) continue;
    succeeded += abort(l.comm) ? 1 : 0;
    l.comm = nullptr;
  }
  return succeeded;
}

// Where the abort stands, and what freeing a buffer may then touch: while an
// abort runs, or after one that did not return, neither the communicator
// (deregistration) nor the memory (NCCL's kernels and proxy may still use
// it); after one that returned, the memory only.
enum class AbortState { none, running, done, stuck };
struct BufferRelease {
  bool deregister = true;
  bool free = true;
};
BufferRelease buffer_release(AbortState state);

// The measuring thread's NCCL groups (ncclGroupStart .. ncclGroupEnd) against
// the watchdog's abort: ncclCommAbort while another thread is inside NCCL's
// enqueue crashed the process instead of ending it with exit 4. close() waits
// up to `grace` for a group in flight to leave (one stuck longer is stuck in
// NCCL, where only the abort frees it) and says whether none was left;
// enter() answers false from then on, and the caller parks.
class EnqueueGate {
 public:
  bool enter();
  void leave();
  bool close(std::chrono::milliseconds grace);

 private:
  std::mutex mu_;
  std::condition_variable left_;
  bool closed_ = false;
  int inside_ = 0;
};

// Completion marks: an event recorded on a GPU's stream after every few
// operations, reaped in order as they complete, one heartbeat each. When
// every slot is pending the next mark waits for the oldest (it never skips):
// the host is then at most capacity x stride operations ahead of completed
// work, so the watchdog sees progress every stride operations however far
// ahead the host ran (a skipped mark left (D - capacity) operations with no
// heartbeat, and -T fired on work that was running).
class MarkRing {
 public:
  explicit MarkRing(std::size_t capacity) : capacity_(capacity) {}
  std::size_t capacity() const { return capacity_; }
  std::size_t pending() const { return pending_; }
  // Reaps completed marks oldest first: done(slot) says whether the mark in
  // `slot` completed; beat() runs once per reaped mark.
  template <class Done, class Beat>
  void reap(Done done, Beat beat) {
    while (pending_ > 0 && done(first_)) {
      first_ = (first_ + 1) % capacity_;
      --pending_;
      beat();
    }
  }
  // The slot for the next mark. With every slot pending, wait(slot) first
  // blocks until the oldest mark completed, which is then reaped.
  template <class Done, class Beat, class Wait>
  std::size_t claim(Done done, Beat beat, Wait wait) {
    if (pending_ == capacity_) {
      wait(first_);
      reap(done, beat);
      if (pending_ == capacity_) throw std::logic_error("MarkRing::claim: the oldest mark did not complete");
    }
    const std::size_t slot = (first_ + pending_) % capacity_;
    ++pending_;
    return slot;
  }

 private:
  std::size_t capacity_;
  std::size_t first_ = 0, pending_ = 0;
};

}  // namespace ccb
