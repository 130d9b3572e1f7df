// One verdict per aligned series of a pair: which set is faster, on par,
// mixed (the winner changes with the size) or cannot tell, by how much, with
// its interval and the reason. compare's Summary (the at-a-glance table and
// each pair's sentence, in every format) renders only this; no renderer
// decides on its own. docs/compare.md "How a series is called" has the rules.
#pragma once
#include <string>

#include "analysis/compare/comparison.hpp"
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

// The most the flagged noise of a series' two sides can stretch a time (1:
// none flagged; the larger side's, from results/noise.hpp's noise_stretch),
// and the flag that gives it.
struct SeriesNoise {
  double stretch = 1;
  std::string flag;      // the flag or "N of M sizes flagged"
  bool flagged = false;  // a side oversubscribed, or most aligned sizes flagged
};
SeriesNoise series_noise(const SeriesComparison& sc, const ResultSet& base, const ResultSet& other);

// The verdict of one series (labels: the sets' labels).
SeriesVerdict series_verdict(const SeriesComparison& sc, const ResultSet& base, const ResultSet& other,
                             const ComparisonOptions& options);

}  // namespace ccb
