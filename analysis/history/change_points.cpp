#include "analysis/history/change_points.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "analysis/history/student_t_test.hpp"

namespace ccb {
namespace {

ChangePoint tested(std::span<const double> x, std::size_t begin, std::size_t at, std::size_t end) {
  const SampleStats l = sample_stats(x.subspan(begin, at - begin)), r = sample_stats(x.subspan(at, end - at));
  ChangePoint c;
  c.index = at;
  c.before = l.n;
  c.after = r.n;
  c.mean_before = l.mean;
  c.mean_after = r.mean;
  c.stddev_before = l.stddev;
  c.stddev_after = r.stddev;
  c.p = student_p_value(l, r);
  return c;
}

// mean after / mean before - 1 (of the original values: log means are exponentiated).
double relative(const ChangePoint& c, const ChangePointOptions& o) {
  return o.log_scale ? std::exp(c.mean_after - c.mean_before) - 1 : c.relative_change();
}

bool holds(const ChangePoint& c, const ChangePointOptions& o) {
  return c.p < o.max_p && std::fabs(relative(c, o)) >= o.min_magnitude;
}

std::vector<ChangePoint> detect(std::span<const double> x, const ChangePointOptions& o);

// E-Divisive's hierarchical splitting of x[begin, end): the best split of
// every segment, the strongest first, kept while the t-test holds it.
void divide(std::span<const double> x, std::size_t begin, std::size_t end, const ChangePointOptions& o,
            std::set<std::size_t>& found) {
  std::vector<std::size_t> cuts{begin, end};
  for (;;) {
    bool split = false;
    double best_p = 2;
    std::size_t best_at = 0, best_segment = 0;
    for (std::size_t s = 0; s + 1 < cuts.size(); ++s) {
      const std::size_t at = best_energy_split(x, cuts[s], cuts[s + 1], o.min_segment);
      if (at >= cuts[s + 1]) continue;
      const ChangePoint c = tested(x, cuts[s], at, cuts[s + 1]);
      if (holds(c, o) && c.p < best_p) {
        best_p = c.p;
        best_at = at;
        best_segment = s;
        split = true;
      }
    }
    if (!split) return;
    cuts.insert(cuts.begin() + static_cast<std::ptrdiff_t>(best_segment) + 1, best_at);
    found.insert(best_at);
  }
}

}  // namespace

std::size_t best_energy_split(std::span<const double> x, std::size_t begin, std::size_t end, std::size_t min_segment) {
  min_segment = std::max<std::size_t>(min_segment, 2);
  if (end - begin < 2 * min_segment) return end;
  const std::size_t m = end - begin;
  const auto d = [&](std::size_t i, std::size_t j) { return std::fabs(x[begin + i] - x[begin + j]); };
  // within_right[t]: sum of |xi - xj| over pairs inside [t, m).
  std::vector<double> within_right(m + 1, 0);
  for (std::size_t t = m; t-- > 0;) {
    double add = 0;
    for (std::size_t j = t + 1; j < m; ++j) add += d(t, j);
    within_right[t] = within_right[t + 1] + add;
  }
  const double total = within_right[0];
  double within_left = 0, best_q = -1;
  std::size_t best = end;
  for (std::size_t t = 1; t < m; ++t) {
    for (std::size_t i = 0; i + 1 < t; ++i) within_left += d(i, t - 1);
    if (t < min_segment || m - t < min_segment) continue;
    const double nl = static_cast<double>(t), nr = static_cast<double>(m - t);
    const double across = total - within_left - within_right[t];
    const double divergence =
        2 * across / (nl * nr) - 2 * within_left / (nl * (nl - 1)) - 2 * within_right[t] / (nr * (nr - 1));
    const double q = nl * nr / (nl + nr) * divergence;
    if (q > best_q) {
      best_q = q;
      best = begin + t;
    }
  }
  return best;
}

std::vector<ChangePoint> change_points(std::span<const double> x, const ChangePointOptions& o) {
  if (!o.log_scale) return detect(x, o);
  std::vector<double> logs;
  logs.reserve(x.size());
  for (double v : x) logs.push_back(std::log(v));
  std::vector<ChangePoint> found = detect(logs, o);
  for (ChangePoint& c : found) c.mean_before = std::exp(c.mean_before), c.mean_after = std::exp(c.mean_after);
  return found;
}

namespace {

std::vector<ChangePoint> detect(std::span<const double> x, const ChangePointOptions& o) {
  const std::size_t n = x.size();
  std::set<std::size_t> found;
  const std::size_t window = o.window == 0 || o.window >= n ? n : std::max<std::size_t>(o.window, 4 * o.min_segment);
  for (std::size_t start = 0; start < n; start += std::max<std::size_t>(window / 2, 1)) {
    divide(x, start, std::min(n, start + window), o, found);
    if (start + window >= n) break;
  }
  // Re-test each against its neighbours; drop the weakest that fails, repeat.
  std::vector<std::size_t> at(found.begin(), found.end());
  for (;;) {
    std::vector<ChangePoint> all;
    for (std::size_t k = 0; k < at.size(); ++k)
      all.push_back(tested(x, k == 0 ? 0 : at[k - 1], at[k], k + 1 == at.size() ? n : at[k + 1]));
    std::size_t weakest = all.size();
    for (std::size_t k = 0; k < all.size(); ++k)
      if (!holds(all[k], o) && (weakest == all.size() || all[k].p > all[weakest].p)) weakest = k;
    if (weakest == all.size()) return all;
    at.erase(at.begin() + static_cast<std::ptrdiff_t>(weakest));
  }
}

}  // namespace

}  // namespace ccb
