// Summary statistics of per-iteration times. No normality is assumed: the
// confidence interval of the median comes from order statistics (binomial).
#pragma once
#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <vector>

namespace ccb {

// "No value": a median of nothing, a gate never measured.
inline constexpr double kNaNv = std::numeric_limits<double>::quiet_NaN();

struct Summary {
  std::size_t n = 0;
  double min = 0, p50 = 0, p90 = 0, p99 = 0, max = 0, mean = 0, stddev = 0;
  // 95% distribution-free confidence interval of the median; absent below 6 samples.
  std::optional<double> ci95_lo, ci95_hi;
};

// Linear-interpolated quantile (type 7, as numpy's default) of sorted data.
double quantile_sorted(std::span<const double> sorted, double q);

// 1-based ranks (l, u) of the order statistics that bound a `confidence`
// interval of the median of n samples, with coverage >= confidence; nullopt
// when n is too small for any such interval.
struct RankPair {
  std::size_t lower, upper;
};
std::optional<RankPair> median_ci_ranks(std::size_t n, double confidence = 0.95);

Summary summarize(std::vector<double> samples);

// Median of the finite values (NaN and infinities left out); NaN when none.
double median_of(std::vector<double> values);

// Half the width of the median's 95% interval relative to the median, the
// larger side: max(p50 - lo, hi - p50) / p50. nullopt without an interval.
std::optional<double> median_precision(const Summary& s);

// -I 1's summary, with nccl-tests' own definitions (src/util.cu
// computeIterStats): p50 the sorted value at n/2, p95 and p99 at index
// min(n - 1, ceil(n x p / 100) - 1), the standard deviation over n (not n - 1),
// cv_pct = 100 x stdev / avg; all zero for no samples.
struct InLoopStats {
  double min = 0, max = 0, avg = 0, p50 = 0, p95 = 0, p99 = 0, stdev = 0, cv_pct = 0;
};
InLoopStats in_loop_stats(std::vector<double> samples);

}  // namespace ccb
