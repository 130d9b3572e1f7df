#include "analysis/compare/series_verdict.hpp"

#include <fmt/format.h>

#include <cmath>

#include "common/sizes.hpp"
#include "results/noise.hpp"

namespace ccb {

namespace {

// A point's time interval: a prediction's [lo, hi], a measurement's own time.
struct Bounds {
  double lo, hi;
};
Bounds bounds_of(const SeriesPoint& p, bool predicted) {
  if (!predicted) return {p.time_us, p.time_us};
  return {p.first->time_lo_us, p.first->time_hi_us};
}

std::string crossover_words(const SeriesComparison& sc, const std::string& base, const std::string& other) {
  std::string out;
  for (const Crossover& x : sc.crossovers)
    out += fmt::format("{}'{}' ahead above {}", out.empty() ? "" : ", ", x.other_wins_above ? other : base,
                       format_size(static_cast<double>(x.below_bytes)));
  return out;
}

}  // namespace

SeriesNoise series_noise(const SeriesComparison& sc, const ResultSet& base, const ResultSet& other) {
  SeriesNoise n;
  std::size_t flagged = 0;
  for (const AlignedPoint& a : sc.points) flagged += (a.base->first->noise || a.other->first->noise) ? 1 : 0;
  n.flagged = base.oversubscribed || other.oversubscribed || 2 * flagged > sc.points.size();
  if (!n.flagged) return n;
  for (const ResultSet* s : {&base, &other})
    for (const std::string& f : s->noise)
      if (const double x = noise_stretch(f); !(x <= n.stretch)) n.stretch = x, n.flag = f;
  for (const AlignedPoint& a : sc.points)
    for (const SeriesPoint* p : {a.base, a.other})
      if (p->first->noise && !(p->first->noise_stretch <= n.stretch))
        n.stretch = p->first->noise_stretch,
        n.flag = fmt::format("a flagged point at {}", format_size(static_cast<double>(a.bytes)));
  if (n.flag.empty()) n.flag = fmt::format("{} of {} sizes flagged", flagged, sc.points.size());
  return n;
}

SeriesVerdict series_verdict(const SeriesComparison& sc, const ResultSet& base, const ResultSet& other,
                             const ComparisonOptions& options) {
  SeriesVerdict v;
  const double r = sc.geomean_time_ratio;
  if (!(r > 0) || !std::isfinite(r)) {
    v.reason = "no size has a time on both sides";
    return v;
  }
  v.other_faster = r < 1;
  const std::string& lower = v.other_faster ? other.label : base.label;
  const std::string& higher = v.other_faster ? base.label : other.label;
  const double by = v.other_faster ? 1 / r : r;

  // A prediction's interval: the geomean of the per-size bounds, other / base.
  const bool base_predicted = !base.predicted_from.empty(), other_predicted = !other.predicted_from.empty();
  if (base_predicted || other_predicted) {
    double log_lo = 0, log_hi = 0;
    std::size_t n = 0, unbounded = 0;
    for (const AlignedPoint& a : sc.points) {
      if (a.bytes == 0 || !(a.time_ratio > 0)) continue;
      const Bounds b = bounds_of(*a.base, base_predicted), o = bounds_of(*a.other, other_predicted);
      const double lo = o.lo / b.hi, hi = o.hi / b.lo;
      if (!(lo > 0) || !std::isfinite(lo) || !(hi > 0) || !std::isfinite(hi)) {
        ++unbounded;
        continue;
      }
      log_lo += std::log(lo), log_hi += std::log(hi), ++n;
    }
    if (unbounded > 0 || n == 0) {
      v.call = RatioCall{RatioCall::unbounded, lower, higher, by, kNaN, kNaN, ""};
      v.call.why = fmt::format("the prediction's interval is one the data cannot bound at {} of {} sizes", unbounded,
                               unbounded + n);
    } else {
      const double lo = std::exp(log_lo / static_cast<double>(n)), hi = std::exp(log_hi / static_cast<double>(n));
      v.call = v.other_faster ? call_ratio(lower, higher, by, 1 / hi, 1 / lo, options.tie_band)
                              : call_ratio(lower, higher, by, lo, hi, options.tie_band);
    }
  } else {
    v.call = call_ratio(lower, higher, by, kNaN, kNaN, options.tie_band);
  }
  switch (v.call.kind) {
    case RatioCall::winner: v.kind = SeriesVerdict::faster; break;
    case RatioCall::on_par: v.kind = SeriesVerdict::on_par; break;
    default: v.kind = SeriesVerdict::cannot_tell, v.reason = cannot_tell(v.call, "faster");
  }
  if (v.kind == SeriesVerdict::faster && sc.tested > 0 && sc.not_significant == sc.tested) {
    v.kind = SeriesVerdict::cannot_tell;
    v.reason = fmt::format("none of the {} tested sizes differs significantly (Mann-Whitney, alpha {:g})", sc.tested,
                           options.alpha);
  }

  // Noise only adds time: a difference larger than the most the flagged
  // sources can stretch a time is called, naming them; a smaller one is not.
  const SeriesNoise noise = series_noise(sc, base, other);
  if (noise.flagged && v.kind != SeriesVerdict::cannot_tell) {
    const double least = std::isfinite(v.call.lo) ? v.call.lo : by;
    if (v.kind == SeriesVerdict::faster && least > noise.stretch * (1 + options.tie_band)) {
      v.noise =
          fmt::format("{:.3g}x exceeds the {:.3g}x that the noise can explain ({})", least, noise.stretch, noise.flag);
    } else {
      v.kind = SeriesVerdict::cannot_tell;
      v.noise_explains = true;
      v.noise = std::isfinite(noise.stretch)
                    ? fmt::format("noise can explain up to {:.3g}x ({})", noise.stretch, noise.flag)
                    : fmt::format("noise whose size the flags do not give ({})", noise.flag);
      v.reason = v.noise;
    }
  }
  if ((v.kind == SeriesVerdict::faster || v.kind == SeriesVerdict::on_par) && !sc.crossovers.empty()) {
    v.kind = SeriesVerdict::mixed;
    v.reason = crossover_words(sc, base.label, other.label);
  }
  return v;
}

}  // namespace ccb
