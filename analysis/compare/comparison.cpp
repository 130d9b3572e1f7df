#include "analysis/compare/comparison.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "analysis/compare/mann_whitney.hpp"
#include "common/sizes.hpp"
#include "results/noise.hpp"
#include "collectives/collective.hpp"

namespace ccb {
namespace {

double ratio(double other, double base) {
  return (base > 0 && other >= 0 && std::isfinite(base) && std::isfinite(other)) ? other / base : kNaN;
}

// busbw / (size / time) of a point: its collective's factor at its rank
// count (nccl-tests' definitions); NaN when either is unknown.
double factor_of(const ImportedPoint& p) {
  const Collective* c = find_collective(p.collective.str());
  return c && p.ranks > 0 ? bus_factor(*c, p.ranks) : kNaN;
}

// -1 baseline wins, +1 other wins, 0 tie, unknown, or a difference the
// Mann-Whitney test calls noise (when samples were there to test).
int winner(const AlignedPoint& p, double band) {
  if (p.p_value && !p.significant()) return 0;
  double r = p.busbw_ratio;
  if (std::isnan(r) && p.time_ratio > 0) r = 1 / p.time_ratio;
  if (std::isnan(r) || std::abs(r - 1) < band) return 0;
  return r > 1 ? 1 : -1;
}

SeriesComparison compare_series(const Series& base, const Series& other, const ComparisonOptions& opt) {
  SeriesComparison sc;
  sc.base = &base;
  sc.other = &other;
  sc.base_facts = curve_facts(base);
  sc.other_facts = curve_facts(other);
  double log_bus = 0, log_time = 0;
  std::size_t n_bus = 0, n_time = 0;
  std::size_t i = 0, j = 0;
  while (i < base.points.size() || j < other.points.size()) {
    if (j == other.points.size() || (i < base.points.size() && base.points[i].bytes < other.points[j].bytes)) {
      sc.only_base.push_back(base.points[i++].bytes);
      continue;
    }
    if (i == base.points.size() || other.points[j].bytes < base.points[i].bytes) {
      sc.only_other.push_back(other.points[j++].bytes);
      continue;
    }
    AlignedPoint a;
    a.bytes = base.points[i].bytes;
    a.base = &base.points[i];
    a.other = &other.points[j];
    a.alpha = opt.alpha;
    a.busbw_ratio = busbw_ratio_of(*a.other, *a.base);
    a.time_ratio = ratio(a.other->time_us, a.base->time_us);
    if (a.busbw_ratio > 0) log_bus += std::log(a.busbw_ratio), ++n_bus;
    // 0-byte rows (nccl-tests prints them) move nothing: timed, not averaged.
    if (a.time_ratio > 0 && a.bytes > 0) log_time += std::log(a.time_ratio), ++n_time;
    if (const auto mw = mann_whitney(a.base->samples(), a.other->samples())) {
      a.p_value = mw->p;
      ++sc.tested;
      if (!a.significant()) ++sc.not_significant;
    }
    sc.points.push_back(a);
    ++i, ++j;
  }
  if (n_bus) sc.geomean_busbw_ratio = std::exp(log_bus / static_cast<double>(n_bus));
  if (n_time) sc.geomean_time_ratio = std::exp(log_time / static_cast<double>(n_time));
  // Crossovers: the winner (outside the tie band) changes between two sizes.
  int last = 0;
  std::uint64_t last_bytes = 0;
  for (const AlignedPoint& a : sc.points) {
    const int w = winner(a, opt.tie_band);
    if (w == 0) continue;
    if (last != 0 && w != last) sc.crossovers.push_back({last_bytes, a.bytes, w > 0});
    last = w;
    last_bytes = a.bytes;
  }
  return sc;
}

// Distinct values of a key field over a table's series, for the hint.
std::set<std::string> values_of(const SeriesTable& t, unsigned field) {
  std::set<std::string> out;
  for (const Series& s : t.series) {
    switch (field) {
      case kKeyDtype: out.insert(s.dtype); break;
      case kKeyOp: out.insert(s.op); break;
      case kKeyRanks: out.insert(std::to_string(s.ranks)); break;
      case kKeyNodes: out.insert(std::to_string(s.nodes)); break;
      case kKeyInPlace: out.insert(s.in_place ? "in-place" : "out-of-place"); break;
      case kKeyPath: out.insert(s.path); break;
      case kKeyMemory: out.insert(s.memory); break;
      default: out.insert(s.collective);
    }
  }
  return out;
}

std::string join(const std::set<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

std::string no_alignment_hint(const PairComparison& pc) {
  std::string hint;
  for (unsigned f = 0; f < 8; ++f) {
    const unsigned field = f == 7 ? 0 : 1u << f;
    if (field && !(pc.fields & field)) continue;
    const auto a = values_of(*pc.base_table, field), b = values_of(*pc.other_table, field);
    bool common = false;
    for (const auto& v : a) common = common || b.count(v);
    if (!common) {
      const std::string name = field == 0 ? "collective" : std::string(key_field_name(field));
      hint += fmt::format("{}{} ({} vs {})", hint.empty() ? "" : "; ", name, join(a), join(b));
    }
  }
  if (!hint.empty()) return hint;
  // Every field has a common value somewhere (other series or files of the
  // sets share it), but no series matches on all together: say which field
  // to leave out would line series up.
  const auto same_except = [](const Series& a, const Series& b, unsigned skip) {
    return a.collective == b.collective && (skip == kKeyDtype || a.dtype == b.dtype) &&
           (skip == kKeyOp || a.op == b.op) && (skip == kKeyRanks || a.ranks == b.ranks) &&
           (skip == kKeyNodes || a.nodes == b.nodes) && (skip == kKeyInPlace || a.in_place == b.in_place) &&
           (skip == kKeyPath || a.path == b.path) && (skip == kKeyMemory || a.memory == b.memory);
  };
  std::string would;
  for (unsigned f = 0; f < 7; ++f) {
    const unsigned field = 1u << f;
    if (!(pc.fields & field)) continue;
    std::size_t pairs = 0;
    for (const Series& a : pc.base_table->series)
      for (const Series& b : pc.other_table->series) pairs += same_except(a, b, field) ? 1 : 0;
    if (pairs > 0) would += fmt::format("{}{} ({} series)", would.empty() ? "" : ", ", key_field_name(field), pairs);
  }
  return fmt::format("none, but no series matches on all of them together{}",
                     would.empty() ? "" : "; leaving out one would line up: " + would);
}

}  // namespace

double busbw_ratio_of(const SeriesPoint& o, const SeriesPoint& b) {
  if (b.bytes == 0) return kNaN;
  const double tr = ratio(o.time_us, b.time_us);
  if (tr > 0 && std::isfinite(tr)) {
    const ImportedPoint &po = *o.first, &pb = *b.first;
    if (po.collective == pb.collective && po.ranks == pb.ranks) return 1 / tr;  // the same factor
    const double fo = factor_of(po), fb = factor_of(pb);
    if (fo > 0 && fb > 0) return fo / fb / tr;
  }
  return ratio(o.busbw_gbps, b.busbw_gbps);
}

CurveFacts curve_facts(const Series& s) {
  CurveFacts f;
  if (s.points.empty()) return f;
  // The smallest size that moves data (0-byte rows, as nccl-tests prints them, do not).
  const auto first = std::find_if(s.points.begin(), s.points.end(), [](const SeriesPoint& p) { return p.bytes > 0; });
  const SeriesPoint& small = first != s.points.end() ? *first : s.points.front();
  f.small_bytes = small.bytes;
  f.small_time_us = small.time_us;
  for (const SeriesPoint& p : s.points)
    if (p.busbw_gbps > 0 && !(p.busbw_gbps <= f.peak_busbw_gbps))
      f.peak_busbw_gbps = p.busbw_gbps, f.peak_bytes = p.bytes;
  if (std::isnan(f.peak_busbw_gbps)) return f;
  const double half = f.peak_busbw_gbps / 2;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const SeriesPoint& p = s.points[i];
    if (!(p.busbw_gbps >= half)) continue;
    if (i == 0 || !(s.points[i - 1].busbw_gbps >= 0) || s.points[i - 1].bytes == 0) {
      f.half_peak_bytes = static_cast<double>(p.bytes);
    } else {  // linear in log2(size) between the point below half and this one
      const SeriesPoint& q = s.points[i - 1];
      const double t = (half - q.busbw_gbps) / (p.busbw_gbps - q.busbw_gbps);
      const double lq = std::log2(static_cast<double>(q.bytes)), lp = std::log2(static_cast<double>(p.bytes));
      f.half_peak_bytes = std::exp2(lq + t * (lp - lq));
    }
    break;
  }
  return f;
}

Comparison compare_sets(std::vector<ResultSet> sets, const ComparisonOptions& options) {
  Comparison c;
  c.sets = std::move(sets);
  c.options = options;
  const ResultSet& base = c.baseline();
  const unsigned base_fields = recorded_fields(base) & ~options.ignored;
  // Charts overlay every measured set on the fields they all record; a
  // published figure is drawn on the series of its collective and size.
  c.chart_fields = base_fields;
  for (const ResultSet& s : c.sets)
    if (s.published_source.empty()) c.chart_fields &= recorded_fields(s);
  for (const ResultSet& s : c.sets)
    c.chart_tables.push_back(std::make_shared<const SeriesTable>(build_series(s, c.chart_fields & recorded_fields(s))));
  for (std::size_t k = 0; k < c.sets.size(); ++k) {
    if (k == options.baseline) continue;
    PairComparison pc;
    pc.other = k;
    pc.fields = base_fields & recorded_fields(c.sets[k]);
    const auto table_for = [&](std::size_t set) {
      return c.chart_tables[set]->fields == pc.fields
                 ? c.chart_tables[set]
                 : std::make_shared<const SeriesTable>(build_series(c.sets[set], pc.fields));
    };
    pc.base_table = table_for(options.baseline);
    pc.other_table = table_for(k);
    std::size_t i = 0, j = 0;
    const auto& bs = pc.base_table->series;
    const auto& os = pc.other_table->series;
    while (i < bs.size() || j < os.size()) {
      const int cmp = i == bs.size() ? 1 : j == os.size() ? -1 : compare_keys(bs[i], os[j]);
      if (cmp < 0) {
        pc.only_base.push_back(&bs[i++]);
      } else if (cmp > 0) {
        pc.only_other.push_back(&os[j++]);
      } else {
        pc.series.push_back(compare_series(bs[i++], os[j++], options));
        pc.series.back().verdict = series_verdict(pc.series.back(), base, c.sets[k], options);
        pc.aligned += pc.series.back().points.size();
        pc.tested += pc.series.back().tested;
        pc.not_significant += pc.series.back().not_significant;
      }
    }
    if (pc.aligned == 0) pc.hint = no_alignment_hint(pc);
    c.pairs.push_back(std::move(pc));
  }
  return c;
}

// The verdict of a series (docs/compare.md "How a series is called").

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
