// Per-iteration sampling: how many iterations run, and how each one starts.
//
// Count: fixed (-n), adaptive (--precision P: until the median's 95% interval
// is within +-P, checked after batches that double the count), or timed
// (--time-per-size S, as IMB's time-based mode); both bounded by
// --max-time-per-size and --max-iters. Rank 0 decides when to stop (its clock,
// the samples combined over ranks) and broadcasts it, so every rank runs the
// same iterations.
//
// Start: --sync barrier (a barrier before each iteration, outside the timed
// region) or --sync window (ReproMPI / Hoefler-Belli: each rank waits until a
// common start time on rank 0's clock, corrected by its measured offset, so
// barrier exit skew does not inflate the time; an iteration lasts from that
// common start to the last rank's end; late starts and the spread of actual
// starts are recorded).
#pragma once
#include <span>

#include "collectives/backend.hpp"
#include "harness/comm.hpp"
#include "harness/config.hpp"
#include "harness/watchdog.hpp"
#include "results/record.hpp"

namespace ccb {

// What decides the end of sampling (pure, for tests): "" = go on, else the
// reason ("precision", "time_per_size", "max_time_per_size", "max_iters").
std::string stop_reason(const Config& cfg, const Summary& s, double elapsed_s, long iterations);

// Fills out.per_iteration_us, out.rank_means and the sampling fields. `next`
// returns the OpArgs of iteration k (one per local rank; --rotate-buffers
// moves them). `active`: this process takes part (a point-to-point test's
// rank without a partner does not: it is left out of the rank means).
// --stragglers: every rank's entry into each iteration is recorded on rank
// 0's clock and read on rank 0 into out.stragglers (results/stragglers.hpp).
// delay_s: CCBENCH_FAULT=slow's wait on this rank after each start (0: none).
void sample_per_iteration(Backend& backend, const Comm& comm, const Config& cfg, int first_iters, double per_op,
                          bool active, const Comm::ClockOffset& clock, Watchdog& watchdog,
                          const std::function<std::span<const OpArgs>(long k)>& next, Measurement& out,
                          double delay_s = 0);

}  // namespace ccb
