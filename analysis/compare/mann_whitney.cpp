#include "analysis/compare/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

namespace ccb {
namespace {

// P(U <= u) for samples of m and n without ties: counts of arrangements by
// U, built with the recurrence f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u).
double exact_cdf(std::size_t m, std::size_t n, double u) {
  const std::size_t max_u = m * n;
  // f[i][j] as a vector over u, computed for i <= m, j <= n.
  std::vector<std::vector<std::vector<double>>> f(m + 1, std::vector<std::vector<double>>(n + 1));
  for (std::size_t i = 0; i <= m; ++i)
    for (std::size_t j = 0; j <= n; ++j) {
      f[i][j].assign(i * j + 1, 0.0);
      if (i == 0 || j == 0) {
        f[i][j][0] = 1;
        continue;
      }
      for (std::size_t k = 0; k <= i * j; ++k) {
        double v = 0;
        if (k >= j && k - j <= (i - 1) * j) v += f[i - 1][j][k - j];
        if (k <= i * (j - 1)) v += f[i][j - 1][k];
        f[i][j][k] = v;
      }
    }
  double total = 0, below = 0;
  for (std::size_t k = 0; k <= max_u; ++k) {
    total += f[m][n][k];
    if (static_cast<double>(k) <= u + 1e-9) below += f[m][n][k];
  }
  return below / total;
}

}  // namespace

std::optional<MannWhitney> mann_whitney(std::span<const double> a, std::span<const double> b) {
  const std::size_t m = a.size(), n = b.size();
  if (m < 2 || n < 2) return std::nullopt;
  std::vector<std::pair<double, int>> all;
  all.reserve(m + n);
  for (double x : a) all.emplace_back(x, 0);
  for (double x : b) all.emplace_back(x, 1);
  std::sort(all.begin(), all.end());
  double rank_sum_a = 0, tie_term = 0;
  bool ties = false;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i + 1;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;  // mid-rank of i+1..j
    for (std::size_t k = i; k < j; ++k)
      if (all[k].second == 0) rank_sum_a += rank;
    const double t = static_cast<double>(j - i);
    if (j - i > 1) ties = true, tie_term += t * t * t - t;
    i = j;
  }
  const double dm = static_cast<double>(m), dn = static_cast<double>(n);
  MannWhitney r;
  r.u = rank_sum_a - dm * (dm + 1) / 2;
  const double u_small = std::min(r.u, dm * dn - r.u);
  if (!ties && m <= 20 && n <= 20) {
    r.exact = true;
    r.p = std::min(1.0, 2 * exact_cdf(m, n, u_small));
    return r;
  }
  const double mean = dm * dn / 2;
  const double total = dm + dn;
  const double var = dm * dn / 12 * ((total + 1) - tie_term / (total * (total - 1)));
  if (var <= 0) {
    r.p = 1;  // every value equal
    return r;
  }
  const double z = (std::abs(r.u - mean) - 0.5) / std::sqrt(var);
  r.p = std::min(1.0, std::erfc(std::max(z, 0.0) / std::sqrt(2.0)));
  return r;
}

}  // namespace ccb
