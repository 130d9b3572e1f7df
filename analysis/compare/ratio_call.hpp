// The one rule by which a report says that one set is lower (faster,
// cheaper) than another: a series of compare, the decision at scale, a
// replayed step. Every "faster", "cheaper", "on par" and "cannot tell" that a
// report prints is a RatioCall's rendering.
#pragma once
#include <string>
#include <string_view>

#include "results/import/result_set.hpp"

namespace ccb {

// Which of two sets is lower (faster, cheaper), said only when the evidence
// allows: ratio = higher / lower of the point estimates, [lo, hi] its
// interval (the second set's range over the first's). A winner needs lo > 1
// and hi / lo <= kMaxIntervalSpan; on par: the whole interval within the tie
// band; otherwise cannot tell (the interval contains equal, or is too wide).
inline constexpr double kMaxIntervalSpan = 10;
// |ratio - 1| within which two sets are on par (the tie band).
inline constexpr double kTieBand = 0.02;
// The significance level of the tests a call rests on (compare's
// Mann-Whitney per size, a replayed step's per phase) unless --alpha says.
inline constexpr double kDefaultAlpha = 0.05;
struct RatioCall {
  // unbounded: a set's estimate rests on an interval the data cannot bound (why names it)
  enum Kind { winner, on_par, contains_equal, too_wide, not_aligned, unbounded, none };
  Kind kind = none;
  std::string lower, higher;  // labels: lower has the smaller point estimate
  double ratio = kNaN, lo = kNaN, hi = kNaN;
  std::string why;  // not_aligned: what the comparison's tables say instead; unbounded: which set, which phases
};
RatioCall call_ratio(const std::string& lower, const std::string& higher, double ratio, double lo, double hi,
                     double tie_band = kTieBand);

// The ratio's interval as text ("1.1x to 1.5x", or "no interval"), and what a
// call that names no winner says ("cannot tell which is faster: ..."; "" for
// a winner), ending without a full stop: how reports word a call.
std::string interval_text(const RatioCall& c);
std::string cannot_tell(const RatioCall& c, std::string_view what);

}  // namespace ccb
