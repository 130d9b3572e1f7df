// The GPU path's pure logic, proven without a GPU: buffer slots (the shift's
// arithmetic), the teardown order, the -G capture plan, the completion-mark
// ring, and the watchdog's set-up bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "collectives/nccl/nccl_lifecycle.hpp"
#include "harness/buffer_slots.hpp"
#include "harness/watchdog.hpp"

namespace ccb {
namespace {

TEST(BufferSlots, ShiftSpansMaxBytesWithoutPerSlotState) {
  PointBuffers b;
  b.shift_bytes = std::size_t{8} << 30;  // -e 8G
  const BufferSlots s = buffer_slots(b, 8);
  EXPECT_TRUE(s.shifted);
  EXPECT_EQ(s.slots, std::size_t{1} << 30);  // 2^30 slots: computed, never stored
  EXPECT_EQ(s.offset(0), 0u);
  EXPECT_EQ(s.offset(3), 24u);
  EXPECT_EQ(s.offset(static_cast<long>(s.slots)), 0u);  // wraps
  // Every slot lies inside the buffers, for sizes that do not divide the span.
  for (std::size_t need : {std::size_t{3}, std::size_t{1000}, std::size_t{3} << 30, std::size_t{8} << 30}) {
    const BufferSlots t = buffer_slots(b, need);
    EXPECT_LE(t.offset(static_cast<long>(t.slots) - 1) + need, b.shift_bytes) << need;
    EXPECT_GE(t.slots, 1u);
  }
}

TEST(BufferSlots, RotationIsPageAlignedAndFixedIsOneSlot) {
  PointBuffers b;
  b.arena_bytes = 1 << 20;
  const BufferSlots r = buffer_slots(b, 5000);
  EXPECT_FALSE(r.shifted);
  EXPECT_EQ(r.slot_bytes, 8192u);
  EXPECT_EQ(r.slots, (1u << 20) / 8192u);
  EXPECT_EQ(r.offset(1) % 4096, 0u);
  const BufferSlots fixed = buffer_slots(PointBuffers{}, 5000);
  EXPECT_EQ(fixed.slots, 1u);
  EXPECT_EQ(fixed.offset(7), 0u);
  PointBuffers zero;
  zero.shift_bytes = 1 << 20;
  EXPECT_EQ(buffer_slots(zero, 0).slots, 1u);  // a 0-byte point does not divide by zero
}

// Issue 54 item 2: fp8 is gated on the library loaded, not on the headers;
// issue 69 item 8: bf16 too (NCCL 2.10), and versions before 2.9 print right.
TEST(NcclVersions, TypesFollowTheLoadedLibrary) {
  EXPECT_EQ(nccl_version_text(22809), "2.28.9");
  EXPECT_EQ(nccl_version_text(21803), "2.18.3");
  EXPECT_EQ(nccl_version_text(2804), "2.8.4");  // NCCL_VERSION(2, 8, 4) before 2.9 (was "0.28.4")
  EXPECT_EQ(nccl_version_text(2708), "2.7.8");
  EXPECT_EQ(nccl_type_gap(DType::f8e4m3, 22809, 22809), "");
  EXPECT_EQ(nccl_type_gap(DType::f8e5m2, 22809, 22400), "");
  EXPECT_EQ(nccl_type_gap(DType::f8e4m3, 22809, 22105),
            "the NCCL loaded here (2.21.5) has no f8e4m3 type (needs 2.24.0 or newer; ccbench was built with 2.28.9 "
            "headers)");
  EXPECT_EQ(nccl_type_gap(DType::f8e5m2, 22304, 22809),
            "this ccbench was built with NCCL 2.23.4 headers, which have no f8e5m2 type");
  EXPECT_EQ(nccl_type_gap(DType::bfloat16, 22809, 21000), "");
  EXPECT_EQ(nccl_type_gap(DType::bfloat16, 22809, 2804),
            "the NCCL loaded here (2.8.4) has no bfloat16 type (needs 2.10.0 or newer; ccbench was built with 2.28.9 "
            "headers)");
  for (DType d : {DType::float32, DType::half, DType::int8, DType::float64})
    EXPECT_EQ(nccl_type_gap(d, 22809, 2708), "") << info(d).name;
}

// Issue 68: -R 2 and -x need NCCL 2.27 in the headers and the loaded library alike; one line names both.
TEST(NcclVersions, AnOptionNamesTheVersionItNeeds) {
  EXPECT_EQ(nccl_version_gap("-R 2", 22700, 22809, 22700), "");
  EXPECT_EQ(nccl_version_gap("-R 2", 22700, 22809, 22304),
            "-R 2 needs NCCL 2.27.0 or newer: the NCCL loaded here is 2.23.4 (point LD_LIBRARY_PATH at a newer "
            "libnccl, or leave the option out)");
  EXPECT_EQ(nccl_version_gap("-x 2", 22800, 22705, 22809),
            "-x 2 needs NCCL 2.28.0 or newer: this ccbench was built with NCCL 2.27.5 headers (build it with newer "
            "ones, or leave the option out)");
}

// Issue 54 item 5: Sweep's teardown quiesces the backend (the steps before
// `buffers`), frees its buffers, then the backend runs the rest: graphs and
// issued work never outlive the buffers they hold.
TEST(NcclTeardown, TheStepsBeforeTheBuffersAreGraphsAndIssuedWork) {
  const std::vector<TeardownStep> steps = nccl_teardown_steps(false);
  const auto buffers = std::find(steps.begin(), steps.end(), TeardownStep::buffers);
  ASSERT_NE(buffers, steps.end());
  EXPECT_EQ(std::vector<TeardownStep>(steps.begin(), buffers),
            (std::vector<TeardownStep>{TeardownStep::graphs, TeardownStep::drain_streams}));
}

TEST(NcclTeardown, GraphsGoFirstThenBuffersThenCommunicators) {
  const auto at = [](const std::vector<TeardownStep>& steps, TeardownStep s) {
    return std::find(steps.begin(), steps.end(), s) - steps.begin();
  };
  const auto normal = nccl_teardown_steps(false);
  ASSERT_EQ(normal.size(), 5u);
  EXPECT_EQ(normal.front(), TeardownStep::graphs);  // NCCL >= 2.26 waits for them in destroy and abort
  EXPECT_LT(at(normal, TeardownStep::drain_streams), at(normal, TeardownStep::buffers));
  EXPECT_LT(at(normal, TeardownStep::buffers), at(normal, TeardownStep::communicators));
  EXPECT_EQ(normal.back(), TeardownStep::events_streams);
  const auto aborted = nccl_teardown_steps(true);
  EXPECT_EQ(aborted.front(), TeardownStep::graphs);
  // After an abort: no wait on a stream that may never drain, no destroy of freed communicators.
  EXPECT_EQ(at(aborted, TeardownStep::drain_streams), static_cast<long>(aborted.size()));
  EXPECT_EQ(at(aborted, TeardownStep::communicators), static_cast<long>(aborted.size()));
  EXPECT_EQ(teardown_step_name(TeardownStep::graphs), "graphs");
}

TEST(NcclCapturePlan, TimedRunsAfterPrepareAreLaunchesAndNothingRunsTwice) {
  // No -G: run issues, prepare does nothing.
  EXPECT_EQ(graph_action(false, false, false, false), GraphAction::issue);
  EXPECT_EQ(graph_action(false, false, false, true), GraphAction::nothing);
  // The -G timed loop being captured: run issues into the capture.
  EXPECT_EQ(graph_action(true, true, false, false), GraphAction::issue);
  EXPECT_EQ(graph_action(true, true, true, true), GraphAction::nothing);
  // Per-iteration samples under -G with the buffer shift (new arguments every
  // iteration): prepare captures, so the timed run is a launch.
  EXPECT_EQ(graph_action(true, false, false, true), GraphAction::capture);
  EXPECT_EQ(graph_action(true, false, true, false), GraphAction::launch);
  // Without prepare, new arguments run once (directly, while being captured).
  EXPECT_EQ(graph_action(true, false, false, false), GraphAction::capture);
}

// A stream the host runs `ahead` operations in front of: the GPU completes
// one operation per tick. Marks every `stride` operations feed heartbeats.
struct SimulatedStream {
  long completed = 0;          // operations the GPU finished
  std::vector<long> mark_at;   // per slot: the operation count the mark follows
  std::vector<long> beats_at;  // GPU time (completed ops) of each heartbeat
  long waits = 0;
};

TEST(MarkRing, AFullRingWaitsForItsOldestMarkInsteadOfSkipping) {
  constexpr std::size_t kCapacity = 64;
  constexpr long kStride = 1, kOps = 1500;  // the GPU check's 8 GiB x 1500, -T 1
  MarkRing ring(kCapacity);
  SimulatedStream s;
  s.mark_at.assign(kCapacity, 0);
  const auto done = [&](std::size_t slot) { return s.completed >= s.mark_at[slot]; };
  const auto beat = [&] { s.beats_at.push_back(s.completed); };
  long issued = 0;
  for (long op = 1; op <= kOps; ++op) {
    issued = op;  // the host enqueues as fast as it can: the GPU has completed nothing yet
    if (op % kStride != 0) continue;
    ring.reap(done, beat);
    const std::size_t slot = ring.claim(done, beat, [&](std::size_t oldest) {
      ++s.waits;
      while (!done(oldest)) ++s.completed;  // the host blocks while the GPU works
    });
    s.mark_at[slot] = issued;
    ASSERT_LE(ring.pending(), kCapacity);
  }
  while (ring.pending() > 0) {  // the final synchronisation
    ++s.completed;
    ring.reap(done, beat);
  }
  // One heartbeat per mark, none skipped; the host blocked instead of skipping.
  EXPECT_EQ(s.beats_at.size(), static_cast<std::size_t>(kOps / kStride));
  EXPECT_EQ(s.waits, kOps / kStride - static_cast<long>(kCapacity));
  // Progress is seen every stride operations of GPU time, however far ahead the host ran.
  for (std::size_t i = 1; i < s.beats_at.size(); ++i) EXPECT_LE(s.beats_at[i] - s.beats_at[i - 1], kStride) << i;
}

TEST(MarkRing, ReapsInOrderOnlyWhatCompleted) {
  MarkRing ring(4);
  std::vector<bool> complete(4, false);
  int beats = 0;
  const auto done = [&](std::size_t slot) { return static_cast<bool>(complete[slot]); };
  const auto beat = [&] { ++beats; };
  const auto never = [](std::size_t) { FAIL() << "a ring with room must not wait"; };
  EXPECT_EQ(ring.claim(done, beat, never), 0u);
  EXPECT_EQ(ring.claim(done, beat, never), 1u);
  complete[1] = true;  // the second completed, the first not: events complete in stream order, so nothing is reaped
  ring.reap(done, beat);
  EXPECT_EQ(beats, 0);
  complete[0] = true;
  ring.reap(done, beat);
  EXPECT_EQ(beats, 2);
  EXPECT_EQ(ring.pending(), 0u);
}

TEST(WatchdogSetup, TheFirstUseOfASizeGetsTheSetUpBoundLaterOnesTheTimeout) {
  const long long t = 1'000'000'000;  // -T 1
  EXPECT_EQ(Watchdog::setup_bound_ns(t, false), t);
  EXPECT_EQ(Watchdog::setup_bound_ns(t, true), Watchdog::kSetupSeconds * 1'000'000'000LL);
  EXPECT_EQ(Watchdog::setup_bound_ns(1000 * t, true), 1000 * t);  // a longer -T stays
  // -G (issue 54 item 8): a launch of 20 operations is one heartbeat: 20 x -T between them.
  EXPECT_EQ(Watchdog::graph_bound_ns(t, 20, false), 20 * t);
  EXPECT_EQ(Watchdog::graph_bound_ns(t, 1, false), t);
  EXPECT_EQ(Watchdog::graph_bound_ns(t, 0, false), t);
  EXPECT_EQ(Watchdog::graph_bound_ns(t, 20, true), std::max(20 * t, Watchdog::kSetupSeconds * 1'000'000'000LL));
  Watchdog w(0, 0, "host");  // disabled: no thread work, the bookkeeping only
  EXPECT_TRUE(w.first_use_begins(1024));
  w.setup_ends();
  EXPECT_FALSE(w.first_use_begins(1024));  // connected already: -T applies
  EXPECT_TRUE(w.first_use_begins(2048));
  w.setup_ends();
}

// Issue 69 item 3: an exception inside a group ends the group before it goes on.
TEST(NcclLifecycle, AGroupIsEndedWhenItsBodyThrows) {
  int starts = 0, ends = 0;
  const auto start = [&] { ++starts; };
  const auto end = [&] { return ++ends; };
  EXPECT_THROW(in_group(start, end, [] { throw std::runtime_error("enqueue failed"); }), std::runtime_error);
  EXPECT_EQ(starts, 1);
  EXPECT_EQ(ends, 1);                         // before the fix: 0, and the next group nested inside the open one
  EXPECT_EQ(in_group(start, end, [] {}), 2);  // end()'s result is the group's
  EXPECT_EQ(starts, 2);
}

// Issue 69 item 4: a failed ncclCommAbort forgets the handle as a successful one does.
TEST(NcclLifecycle, AbortForgetsEveryHandleWhateverTheAnswer) {
  struct Local {
    int* comm;
  };
  int a = 0, b = 0, c = 0;
  std::vector<Local> locals{{&a}, {&b}, {nullptr}, {&c}};
  std::vector<int*> aborted;
  const int ok = abort_communicators(locals, [&](int* comm) {
    aborted.push_back(comm);
    return comm != &b;  // the second abort reports an error
  });
  EXPECT_EQ(ok, 2);
  EXPECT_EQ(aborted, (std::vector<int*>{&a, &b, &c}));
  for (const Local& l : locals) EXPECT_EQ(l.comm, nullptr);
}

// Issue 69 item 5: once an abort began, freeing buffers never goes through the
// communicator, and touches the memory only after the abort returned.
TEST(NcclLifecycle, BuffersAreReleasedAsTheAbortAllows) {
  EXPECT_TRUE(buffer_release(AbortState::none).deregister);
  EXPECT_TRUE(buffer_release(AbortState::none).free);
  EXPECT_FALSE(buffer_release(AbortState::done).deregister);
  EXPECT_TRUE(buffer_release(AbortState::done).free);
  for (AbortState s : {AbortState::running, AbortState::stuck}) {
    EXPECT_FALSE(buffer_release(s).deregister);
    EXPECT_FALSE(buffer_release(s).free);
  }
}

// Issue 69 item 6: the abort waits for a group being enqueued (never calls
// ncclCommAbort beside it), gives up on one stuck past the grace, and no
// group starts after it.
TEST(NcclLifecycle, TheAbortWaitsForAGroupBeingEnqueued) {
  EnqueueGate gate;
  ASSERT_TRUE(gate.enter());
  std::atomic<bool> left{false};
  std::thread enqueuer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    left = true;
    gate.leave();
  });
  EXPECT_TRUE(gate.close(std::chrono::seconds(30)));  // returns once the group left, not before
  EXPECT_TRUE(left.load());
  enqueuer.join();
  EXPECT_FALSE(gate.enter());  // closed: the measuring thread parks instead

  EnqueueGate stuck;
  ASSERT_TRUE(stuck.enter());  // a group that never leaves
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(stuck.close(std::chrono::milliseconds(20)));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(20));

  EnqueueGate idle;
  EXPECT_TRUE(idle.close(std::chrono::milliseconds(0)));
}

}  // namespace
}  // namespace ccb
