// Measuring one point: warm-up, pipelined batch, per-iteration samples and
// verification, with the same iteration count on every rank.
#pragma once
#include <optional>
#include <span>

#include "collectives/backend.hpp"
#include "harness/buffer_slots.hpp"
#include "harness/comm.hpp"
#include "harness/config.hpp"
#include "harness/faults.hpp"
#include "harness/watchdog.hpp"
#include "results/record.hpp"

namespace ccb {

// Divides an iteration's time into the time of one operation:
// pingpong 2 (half a round trip), uni_bw/bi_bw the window, else 1.
int ops_per_iteration(const Collective& c, int window);

// alltoallv's counts for a point of `count` elements per rank at n ranks
// (cfg.traffic); nullopt for every other collective.
std::optional<TrafficPlan> plan_traffic(const Config& cfg, int n, std::size_t count);

// --warmup-order sizes-first (nccl-tests' TimeTest): -w out-of-place
// operations of `task`'s collective, dtype and op at each of warm_up_points
// (harness/sweep_sizes.hpp), each size waited for before the next.
void warm_up_every_size(Backend& backend, const Config& cfg, const OpArgs& task, std::size_t largest_bytes,
                        std::span<const PointBuffers> buffers, Watchdog& watchdog);

// Fills `out` (one placement); buffers[j] belong to local rank j. The
// iteration count is decided by rank 0 and broadcast.
// clock: this process's offset to rank 0's clock (--sync window).
void measure_placement(Backend& backend, const Comm& comm, const Config& cfg, const OpArgs& args,
                       std::span<const PointBuffers> buffers, const Faults& faults, Watchdog& watchdog,
                       const Comm::ClockOffset& clock, Measurement& out);

}  // namespace ccb
