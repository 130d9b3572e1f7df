// alltoallv predicted from the model's fits (docs/alltoallv.md "Predicted").
// A point whose ranks send S bytes on average under a traffic model is bound
// by its busiest rank, which moves B bytes (the larger of what it sends and
// receives).
//
// With a sendrecv fit (ring shift: every rank sends to the next and receives
// from the previous, so every link carries its size both ways at once, link
// bound) of the same dtype, path and memory: time_v(S) = max(alltoall(M),
// sendrecv(R)), M what a rank sends on average (S, but for moe: each token
// goes to several ranks), R the busiest rank's bytes across its link (its
// bytes to and from itself left out). The alltoall at M carries what a
// uniform exchange of that volume costs (its algorithm, its flows); the
// busiest link cannot be faster than R on a link. The interval is the max of
// the two intervals.
//
// Without one: time_v(S) = alltoall(B), the uniform alltoall in which every
// rank moves B. That carries the uniform run's own inefficiency to the hot
// rank's bytes and over-predicts skew where a uniform alltoall runs well
// below the link rate (the emulated cluster: docs/alltoallv.md).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/model/comm_model.hpp"
#include "collectives/traffic.hpp"

namespace ccb {

struct SkewedPoint {
  std::uint64_t bytes = 0;       // the alltoallv size: bytes a rank sends on average (moe: its tokens' bytes)
  std::uint64_t mean_bytes = 0;  // M: what a rank sends on average (= bytes but for moe: each token to several ranks)
  int busiest_rank = 0;
  std::uint64_t busiest_bytes = 0;  // B
  std::uint64_t link_bytes = 0;     // R (with a sendrecv fit)
  std::string bound;                // "alltoall" or "link": which of the two set the time ("" without sendrecv)
  PredictedPoint at;                // the prediction (NaN when it could not be read)
};

struct SkewedPrediction {
  const ModelSeries* series = nullptr;  // the out-of-place alltoall fit it rests on
  const ModelSeries* link = nullptr;    // the sendrecv fit of the link bound (nullptr: none)
  std::string traffic;                  // the model, as --traffic takes it
  int ranks = 0, nodes = 0;
  std::vector<std::string> flags;  // the alltoall prediction's
  std::vector<SkewedPoint> points;
};

// The most ranks a prediction plans traffic for: the plan is an n x n
// matrix of counts per size (20,000 ranks took 6.2 GB and 33 s per size;
// 65,536 ran out of memory), so above this the prediction is refused.
inline constexpr int kMaxTrafficPlanRanks = 4096;

// One prediction per out-of-place alltoall series of the model (per dtype,
// path and memory); empty when the model has none. UsageError when the
// traffic model does not fit the rank count, or above kMaxTrafficPlanRanks.
std::vector<SkewedPrediction> predict_alltoallv(const Model& m, int ranks, int nodes, const TrafficModel& traffic,
                                                const std::vector<std::uint64_t>& sizes);

}  // namespace ccb
