// A series' verdict (analysis/compare/comparison.cpp makes it): what
// compare's Summary renders in every format, computed once per series.
#pragma once
#include <string>

#include "analysis/compare/ratio_call.hpp"

namespace ccb {

struct SeriesVerdict {
  enum Kind { faster, on_par, mixed, cannot_tell };
  Kind kind = cannot_tell;
  // The call on the geomean time ratio over the aligned sizes: lower is the
  // faster set's label, ratio = slower / faster (>= 1), lo/hi its interval
  // when a side is a prediction (NaN otherwise).
  RatioCall call;
  bool other_faster = false;  // faster, mixed: the compared set has the lower geomean time
  std::string reason;         // cannot_tell and mixed: why, in words (no full stop)
  // The noise the call saw: "" none; else what it can explain and that the
  // difference exceeds it (called) or does not (cannot_tell).
  std::string noise;
  bool noise_explains = false;  // cannot_tell because of noise
};

}  // namespace ccb
