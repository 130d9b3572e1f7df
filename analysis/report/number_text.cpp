// Numbers as the reports print them (number_text.hpp).
#include "analysis/report/number_text.hpp"

#include <fmt/format.h>

#include <cmath>

namespace ccb {

std::string format_ratio(double r) { return std::isnan(r) ? "-" : fmt::format("{:.3f}x", r); }

// Below 1, three significant figures: a measured value never reads "0.00"
// (0.0012 vs 0.0024 GB/s is a 2x difference).
std::string format_us(double us) {
  if (std::isnan(us)) return "-";
  if (us >= 1000) return fmt::format("{:.0f}", us);
  if (us >= 10) return fmt::format("{:.1f}", us);
  if (us >= 1 || us == 0) return fmt::format("{:.2f}", us);
  return fmt::format("{:.3g}", us);
}

std::string format_gbps(double g) {
  if (std::isnan(g)) return "-";
  return g >= 1 || g == 0 ? fmt::format("{:.2f}", g) : fmt::format("{:.3g}", g);
}

std::string format_money(double v, const std::string& currency) {
  if (std::isnan(v)) return "-";
  // An estimate's precision, not a ledger's: 3 significant figures from a million on.
  if (std::fabs(v) >= 1e9) return fmt::format("{:.3g} billion {}", v / 1e9, currency);
  if (std::fabs(v) >= 1e6) return fmt::format("{:.3g} million {}", v / 1e6, currency);
  return std::fabs(v) >= 1000 ? fmt::format("{:.0f} {}", v, currency) : fmt::format("{:.4g} {}", v, currency);
}

std::string range_text(const std::string& lo, const std::string& hi) {
  return lo == hi ? std::string() : fmt::format(" (range {} to {})", lo, hi);
}

std::string format_seconds(double s) {
  if (!std::isfinite(s)) return "-";
  if (s >= 7200) return fmt::format("{:.3g} h", s / 3600);
  if (s >= 1) return fmt::format("{:.3g} s", s);
  if (s >= 1e-3) return fmt::format("{:.3g} ms", s * 1e3);
  return fmt::format("{:.3g} us", s * 1e6);
}

}  // namespace ccb
