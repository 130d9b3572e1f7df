#include "analysis/model/step_cost.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "results/stats.hpp"

namespace ccb {
namespace {

constexpr double kBinsPerDoubling = 16;
constexpr double kMaxSlope = 1.2 * 0.6931471805599453;  // dy/dx for d ln(cost) / d ln(bytes) = 1.2

}  // namespace

void StepCost::add(double x, double y, int group) {
  const long index = std::lround(x * kBinsPerDoubling);
  auto it = std::lower_bound(bins_.begin(), bins_.end(), index, [](const Bin& b, long i) { return b.index < i; });
  if (it == bins_.end() || it->index != index) it = bins_.insert(it, Bin{index, {}, std::vector<Sums>(groups_)});
  for (Sums* s : {&it->all, &it->by_group[group]}) s->n += 1, s->x += x, s->y += y, s->xx += x * x, s->xy += x * y;
}

StepCost::Sums StepCost::sums(const Bin& b, int skip) const {
  if (skip < 0) return b.all;
  const Sums& g = b.by_group[skip];
  return {b.all.n - g.n, b.all.x - g.x, b.all.y - g.y, b.all.xx - g.xx, b.all.xy - g.xy};
}

bool StepCost::range(int skip, double* lo, double* hi) const {
  bool any = false;
  for (const Bin& b : bins_) {
    const Sums s = sums(b, skip);
    if (s.n < 0.5) continue;
    const double c = static_cast<double>(b.index) / kBinsPerDoubling;
    if (!any) *lo = c;
    *hi = c;
    any = true;
  }
  return any;
}

bool StepCost::inside(double x, int skip) const {
  double lo, hi;
  return range(skip, &lo, &hi) && x >= lo - 0.5 / kBinsPerDoubling && x <= hi + 0.5 / kBinsPerDoubling;
}

double StepCost::local_linear(double x, int skip) const {
  for (double window : {3.0, 6.0, 1e9}) {
    Sums w;
    const long from = static_cast<long>(std::floor((x - window * kBandwidth) * kBinsPerDoubling));
    auto it = std::lower_bound(bins_.begin(), bins_.end(), from, [](const Bin& b, long i) { return b.index < i; });
    for (; it != bins_.end() && static_cast<double>(it->index) / kBinsPerDoubling <= x + window * kBandwidth; ++it) {
      const Sums s = sums(*it, skip);
      if (s.n < 0.5) continue;
      const double d = (static_cast<double>(it->index) / kBinsPerDoubling - x) / kBandwidth;
      const double k = std::max(std::exp(-0.5 * d * d), 1e-300);
      w.n += k * s.n, w.x += k * s.x, w.y += k * s.y, w.xx += k * s.xx, w.xy += k * s.xy;
    }
    if (w.n <= 0) continue;
    const double mx = w.x / w.n, my = w.y / w.n;
    const double sxx = w.xx - w.n * mx * mx, sxy = w.xy - w.n * mx * my;
    const double slope = sxx > 1e-9 * w.n ? std::clamp(sxy / sxx, 0.0, kMaxSlope) : 0.0;
    return my + slope * (x - mx);
  }
  return kNaNv;
}

double StepCost::eval(double x, int skip) const {
  double lo, hi;
  if (!range(skip, &lo, &hi)) return kNaNv;
  if (x < lo) return local_linear(lo, skip);
  if (x > hi) return local_linear(hi, skip) + (x - hi) * 0.6931471805599453;
  return local_linear(x, skip);
}

}  // namespace ccb
