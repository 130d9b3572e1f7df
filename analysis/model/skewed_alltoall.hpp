// alltoallv predicted from the model's uniform alltoall (docs/alltoallv.md
// "Predicted"): a point whose ranks send S bytes on average under a traffic
// model is bound by its busiest rank, which moves B bytes (the larger of what
// it sends and receives). In a uniform alltoall of B bytes per rank every rank
// moves B through its link, so the skewed point takes what that alltoall
// takes: time_v(S) = time_alltoall(B), with its 90% interval, read off the
// alltoall fit at the target's ranks and nodes (its flags included). What
// this leaves out: a rank that moves B only one way (a hot receiver whose
// sends stay at S) loads one direction of its link where the uniform
// alltoall loads both.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/model/comm_model.hpp"
#include "collectives/traffic.hpp"

namespace ccb {

struct SkewedPoint {
  std::uint64_t bytes = 0;  // the alltoallv size: bytes a rank sends on average
  int busiest_rank = 0;
  std::uint64_t busiest_bytes = 0;  // B: the alltoall size it is read at
  PredictedPoint at;                // the alltoall prediction at B (NaN when it could not be read)
};

struct SkewedPrediction {
  const ModelSeries* series = nullptr;  // the out-of-place alltoall fit it rests on
  std::string traffic;                  // the model, as --traffic takes it
  int ranks = 0, nodes = 0;
  std::vector<std::string> flags;  // the alltoall prediction's
  std::vector<SkewedPoint> points;
};

// One prediction per out-of-place alltoall series of the model (per dtype,
// path and memory); empty when the model has none. UsageError when the
// traffic model does not fit the rank count.
std::vector<SkewedPrediction> predict_alltoallv(const Model& m, int ranks, int nodes, const TrafficModel& traffic,
                                                const std::vector<std::uint64_t>& sizes);

}  // namespace ccb
