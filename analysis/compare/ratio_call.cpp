#include "analysis/compare/ratio_call.hpp"

#include <fmt/format.h>

#include <cmath>

namespace ccb {

RatioCall call_ratio(const std::string& lower, const std::string& higher, double ratio, double lo, double hi,
                     double tie_band) {
  RatioCall c{RatioCall::none, lower, higher, ratio, lo, hi, ""};
  if (!(ratio > 0) || !std::isfinite(ratio)) return c;
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo > 0) || hi < lo) c.lo = c.hi = kNaN;
  const bool interval = std::isfinite(c.lo);
  if (interval && c.hi / c.lo > kMaxIntervalSpan) c.kind = RatioCall::too_wide;
  else if ((interval ? c.hi : ratio) < 1 + tie_band && (interval ? c.lo : ratio) > 1 - tie_band)
    c.kind = RatioCall::on_par;
  else if (interval && c.lo <= 1) c.kind = RatioCall::contains_equal;
  else c.kind = RatioCall::winner;
  return c;
}

std::string interval_text(const RatioCall& c) {
  return std::isfinite(c.lo) ? fmt::format("{:.3g}x to {:.3g}x", c.lo, c.hi) : std::string("no interval");
}

std::string cannot_tell(const RatioCall& c, std::string_view what) {
  switch (c.kind) {
    case RatioCall::on_par:
      return fmt::format("'{}' and '{}' are on par ({:.2f}x, interval {})", c.lower, c.higher, c.ratio,
                         interval_text(c));
    case RatioCall::contains_equal:
      return fmt::format("cannot tell which is {}: '{}' is estimated {:.2f}x {}, but the interval ({}) contains equal",
                         what, c.lower, c.ratio, what, interval_text(c));
    case RatioCall::too_wide:
      return fmt::format("cannot tell which is {}: the interval of the ratio ({}) spans more than {:g}x", what,
                         interval_text(c), kMaxIntervalSpan);
    case RatioCall::not_aligned:
    case RatioCall::unbounded: return fmt::format("cannot tell which is {}: {}", what, c.why);
    default: return "";
  }
}

}  // namespace ccb
