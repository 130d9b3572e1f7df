#include "results/expectation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/sizes.hpp"

namespace ccb {

double share_of_limit(double busbw_gbps, double limit_gbps) {
  if (!(limit_gbps > 0) || !std::isfinite(limit_gbps) || !std::isfinite(busbw_gbps))
    return std::numeric_limits<double>::quiet_NaN();
  return busbw_gbps / limit_gbps;
}

std::string expectations_text(const std::vector<Expectation>& all, const std::string& network_basis,
                              const std::string& prefix) {
  if (all.empty()) return prefix + (prefix.empty() ? "" : " ") + "expect: no measured busbw in the run\n";
  const std::string head = prefix.empty() ? "# " : prefix + " ";
  const std::string body = prefix.empty() ? "  " : prefix + "   ";
  const auto gbps = [](double v) { return fmt::format("{:.4g} GB/s", v); };
  std::string s;
  if (std::any_of(all.begin(), all.end(), [](const Expectation& e) { return e.nodes >= 2; }))
    s += fmt::format("{}network: {}\n", head, network_basis);
  for (const Expectation& e : all) {
    s += fmt::format("{}{}: busbw {} at {}\n", head, e.series, gbps(e.busbw_gbps), format_size(e.bytes));
    if (e.ceiling.gbps > 0)
      s += fmt::format("{}limit    {} ({:.0f}% of it{}): {}\n", body, gbps(e.ceiling.gbps), e.share_of_limit * 100,
                       e.above_limit ? ", ABOVE THE LIMIT" : "", e.ceiling.basis);
    else s += fmt::format("{}limit    {}\n", body, e.ceiling.basis);
    if (e.above_limit) s += fmt::format("{}         not what it seems: {}\n", body, e.above_limit_why);
    if (e.reference)
      s += fmt::format("{}expected {:.0f}% of the reference for {}: {} at {} ({}, {})\n", body,
                       e.share_of_reference * 100, e.reference->system, gbps(e.reference->busbw_gbps),
                       format_size(e.reference->bytes), e.reference->source,
                       e.reference->date.empty() ? "undated" : e.reference->date);
    else s += fmt::format("{}expected {}\n", body, e.no_reference_why);
  }
  return s;
}

}  // namespace ccb
