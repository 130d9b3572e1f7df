// A measured result set projected to another scale through the model
// (ccbench compare --scale): the points the model predicts at the target
// rank and node counts, as a result set marked predicted, with intervals.
#pragma once
#include <optional>
#include <string>

#include "analysis/model/comm_model.hpp"

namespace ccb {

struct Projection {
  Model model;
  ResultSet set;  // label "LABEL (predicted RxN)", predicted_from says how
};

// nullopt with `why` when the set cannot be fitted (one rank count, ...).
std::optional<Projection> project_set(const ResultSet& measured, int ranks, int nodes, std::string* why);

// The model's time for `bytes` of `collective` at the target (the
// out-of-place series preferred): time, lo, hi in microseconds.
struct ScaledTime {
  double time_us = kNaN, lo_us = kNaN, hi_us = kNaN;
  bool extrapolated = false;  // step size outside the measured, or beyond the model's validity
  std::string series;
  std::string unusable;    // non-empty: the series' fit is unusable (ModelSeries::unusable), in words
  bool unbounded = false;  // the interval is the model's "unbounded" (lo_us, hi_us: the formula's)
};
std::optional<ScaledTime> scaled_time(const Model& m, const std::string& collective, int ranks, int nodes,
                                      double bytes);

}  // namespace ccb
