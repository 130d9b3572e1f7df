#include "results/stragglers.hpp"

#include <algorithm>
#include <cmath>

namespace ccb {

double binomial_tail(long n, long k, double p) {
  if (k <= 0) return 1;
  if (k > n) return 0;
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  double sum = 0;
  for (long j = k; j <= n; ++j) {
    const double log_pmf = std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(j) + 1) -
                           std::lgamma(static_cast<double>(n - j) + 1) + static_cast<double>(j) * std::log(p) +
                           static_cast<double>(n - j) * std::log1p(-p);
    sum += std::exp(log_pmf);
  }
  return std::min(1.0, sum);
}

namespace {

// The median of sorted[] without sorted[k] (n >= 2).
double median_without(const std::vector<double>& sorted, std::size_t k) {
  const std::size_t m = sorted.size() - 1;  // values left
  const auto at = [&](std::size_t i) { return sorted[i < k ? i : i + 1]; };
  return m % 2 ? at(m / 2) : (at(m / 2 - 1) + at(m / 2)) / 2;
}

}  // namespace

std::vector<double> barrier_order_s(const std::vector<std::vector<double>>& entries_s) {
  const std::size_t n = entries_s.size();
  std::vector<double> order(n, 0.0);
  if (n < 2) return order;
  std::size_t iters = entries_s.front().size();
  for (const auto& e : entries_s) iters = std::min(iters, e.size());
  std::vector<std::vector<double>> late(n);
  std::vector<double> column(n), sorted;
  for (std::size_t i = 0; i < iters; ++i) {
    for (std::size_t r = 0; r < n; ++r) column[r] = entries_s[r][i];
    sorted = column;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t r = 0; r < n; ++r) {
      const auto k =
          static_cast<std::size_t>(std::lower_bound(sorted.begin(), sorted.end(), column[r]) - sorted.begin());
      late[r].push_back(column[r] - median_without(sorted, k));
    }
  }
  for (std::size_t r = 0; r < n; ++r) order[r] = iters == 0 ? 0.0 : median_of(late[r]);
  return order;
}

std::optional<Stragglers> find_stragglers(std::vector<std::vector<double>> entries_s, double iteration_p50_us,
                                          const std::vector<double>& barrier_order) {
  const int n = static_cast<int>(entries_s.size());
  if (barrier_order.size() == entries_s.size())  // the barrier's own order is no one's lateness
    for (std::size_t r = 0; r < entries_s.size(); ++r)
      for (double& t : entries_s[r]) t -= barrier_order[r];
  if (n < 2) return std::nullopt;
  long iters = static_cast<long>(entries_s.front().size());
  for (const auto& e : entries_s) iters = std::min(iters, static_cast<long>(e.size()));
  if (iters < 1) return std::nullopt;
  Stragglers s;
  s.iterations = iters;
  s.last_counts.assign(static_cast<std::size_t>(n), 0);
  std::vector<std::vector<double>> late(static_cast<std::size_t>(n));  // per rank, per iteration: vs the median
  std::vector<double> skew, column(static_cast<std::size_t>(n)), sorted;
  for (long i = 0; i < iters; ++i) {
    int last = 0;
    for (int r = 0; r < n; ++r) {
      column[static_cast<std::size_t>(r)] = entries_s[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)];
      if (column[static_cast<std::size_t>(r)] > column[static_cast<std::size_t>(last)]) last = r;
    }
    ++s.last_counts[static_cast<std::size_t>(last)];
    sorted = column;
    std::sort(sorted.begin(), sorted.end());
    // Each rank against the median of the others (with 2 ranks: the other one).
    for (int r = 0; r < n; ++r) {
      const double v = column[static_cast<std::size_t>(r)];
      const auto k = static_cast<std::size_t>(std::lower_bound(sorted.begin(), sorted.end(), v) - sorted.begin());
      const double late_us = (v - median_without(sorted, k)) * 1e6;
      late[static_cast<std::size_t>(r)].push_back(late_us);
      if (r == last) skew.push_back(late_us);
    }
  }
  s.skew_us = summarize(skew);
  for (const auto& l : late) s.lateness_us.push_back(median_of(l));
  s.last_rank = static_cast<int>(std::max_element(s.last_counts.begin(), s.last_counts.end()) - s.last_counts.begin());
  s.last_count = s.last_counts[static_cast<std::size_t>(s.last_rank)];
  s.chance_p = std::min(1.0, n * binomial_tail(iters, s.last_count, 1.0 / n));
  const double lateness = s.lateness_us[static_cast<std::size_t>(s.last_rank)];
  s.named =
      s.chance_p < kStragglerAlpha && lateness >= kStragglerFloorUs && lateness >= kStragglerShare * iteration_p50_us;
  return s;
}

}  // namespace ccb
