#include "results/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace ccb {

double quantile_sorted(std::span<const double> sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

std::optional<RankPair> median_ci_ranks(std::size_t n, double confidence) {
  if (n == 0) return std::nullopt;
  const double alpha_half = (1.0 - confidence) / 2.0;
  // P(B <= k) for B ~ Binomial(n, 1/2), accumulated in log space for large n.
  const double log_half_n = -static_cast<double>(n) * std::log(2.0);
  double cdf = 0;
  std::size_t k = 0;  // largest k with P(B <= k - 1) <= alpha/2 gives lower rank l = k
  for (std::size_t j = 0; j <= n / 2; ++j) {
    const double log_pmf = std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(j) + 1) -
                           std::lgamma(static_cast<double>(n - j) + 1) + log_half_n;
    cdf += std::exp(log_pmf);
    if (cdf > alpha_half) break;
    k = j + 1;
  }
  if (k == 0) return std::nullopt;
  return RankPair{k, n + 1 - k};
}

Summary summarize(std::vector<double> samples) {
  Summary s;
  s.n = samples.size();
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.min = samples.front();
  s.max = samples.back();
  s.p50 = quantile_sorted(samples, 0.50);
  s.p90 = quantile_sorted(samples, 0.90);
  s.p99 = quantile_sorted(samples, 0.99);
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(s.n);
  double sq = 0;
  for (double x : samples) sq += (x - s.mean) * (x - s.mean);
  s.stddev = s.n > 1 ? std::sqrt(sq / static_cast<double>(s.n - 1)) : 0.0;
  if (auto r = median_ci_ranks(s.n)) {
    s.ci95_lo = samples[r->lower - 1];
    s.ci95_hi = samples[r->upper - 1];
  }
  return s;
}

std::optional<double> median_precision(const Summary& s) {
  if (!s.ci95_lo || !s.ci95_hi || s.p50 <= 0) return std::nullopt;
  return std::max(s.p50 - *s.ci95_lo, *s.ci95_hi - s.p50) / s.p50;
}

double median_of(std::vector<double> values) {
  std::erase_if(values, [](double x) { return !std::isfinite(x); });
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  return quantile_sorted(values, 0.5);
}

InLoopStats in_loop_stats(std::vector<double> v) {
  InLoopStats s;
  const std::size_t n = v.size();
  if (n == 0) return s;
  std::sort(v.begin(), v.end());
  const auto at = [&](std::size_t p) { return v[std::min(n - 1, (n * p + 99) / 100 - 1)]; };
  s.min = v.front(), s.max = v.back(), s.p50 = v[n / 2], s.p95 = at(95), s.p99 = at(99);
  double sum = 0;
  for (double x : v) sum += x;
  s.avg = sum / static_cast<double>(n);
  double var = 0;
  for (double x : v) var += (x - s.avg) * (x - s.avg);
  s.stdev = std::sqrt(var / static_cast<double>(n));
  s.cv_pct = s.avg > 0 ? s.stdev / s.avg * 100.0 : 0.0;
  return s;
}

}  // namespace ccb
