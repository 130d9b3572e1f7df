#include "results/compare/decision.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/sizes.hpp"
#include "results/compare/plateau.hpp"

namespace ccb {
namespace {

void fill_costs(StepAtScale& s, const Workload& w) {
  s.step_s = w.compute_s + s.comm_s;
  s.step_lo_s = w.compute_s + s.comm_lo_s;
  s.step_hi_s = w.compute_s + s.comm_hi_s;
  if (!s.cost) return;
  const double k = 1000.0 * w.gpus * s.cost->per_gpu_hour / 3600;
  s.cost_per_1000 = k * s.step_s, s.cost_lo = k * s.step_lo_s, s.cost_hi = k * s.step_hi_s;
}

std::optional<BreakEven> break_even(const Decision& d) {
  const StepAtScale *own = nullptr, *rent = nullptr;
  for (const StepAtScale& s : d.sets) {
    if (!s.cost || !s.refused.empty() || !std::isfinite(s.step_s) || s.step_s <= 0) continue;
    if (s.cost->kind == "bare_metal" && !own) own = &s;
    if (s.cost->kind == "cloud" && !rent) rent = &s;
  }
  if (!own || !rent) return std::nullopt;
  const CostProfile &o = *own->cost, &r = *rent->cost;
  BreakEven b;
  b.own = own->label, b.rent = rent->label;
  const double yearly = o.capital_cost / o.amortisation_years + o.yearly_operating_cost;
  const double speed = rent->step_s / own->step_s;  // > 1: renting needs more GPU-hours for the same work
  const auto u_at = [&](double sp) { return yearly / (o.gpus * 8760.0 * r.per_gpu_hour * sp); };
  b.utilisation = u_at(speed);
  b.utilisation_lo = u_at(rent->step_hi_s / own->step_lo_s);
  b.utilisation_hi = u_at(rent->step_lo_s / own->step_hi_s);
  b.owner_utilisation = o.utilisation;
  b.amortisation_months = o.amortisation_years * 12;
  const double rent_month = r.per_gpu_hour * o.gpus * 730.0 * o.utilisation * speed;
  const double net = rent_month - o.yearly_operating_cost / 12;
  b.months = net > 0 ? o.capital_cost / net : INFINITY;
  for (double u : b.utilisations) {
    std::vector<double> row;
    for (double f : b.price_factors) row.push_back(yearly / (o.gpus * 8760.0 * u) / (r.per_gpu_hour * f * speed));
    b.own_over_rent.push_back(std::move(row));
  }
  return b;
}

// The two lowest sets by `value` (with an estimate) and the call between them.
RatioCall call_lowest(const std::vector<StepAtScale>& sets, double StepAtScale::*value, double StepAtScale::*lo,
                      double StepAtScale::*hi) {
  std::vector<const StepAtScale*> v;
  for (const StepAtScale& s : sets)
    if (s.refused.empty() && std::isfinite(s.*value) && s.*value > 0) v.push_back(&s);
  if (v.size() < 2) return {};
  std::sort(v.begin(), v.end(), [&](auto* a, auto* b) { return a->*value < b->*value; });
  const StepAtScale &a = *v[0], &b = *v[1];
  return call_ratio(a.label, b.label, b.*value / a.*value, b.*lo / a.*hi, b.*hi / a.*lo);
}

}  // namespace

RatioCall call_ratio(const std::string& lower, const std::string& higher, double ratio, double lo, double hi,
                     double tie_band) {
  RatioCall c{RatioCall::none, lower, higher, ratio, lo, hi, ""};
  if (!(ratio > 0) || !std::isfinite(ratio)) return c;
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo > 0) || hi < lo) c.lo = c.hi = kNaN;
  const bool interval = std::isfinite(c.lo);
  if (interval && c.hi / c.lo > kMaxIntervalSpan) c.kind = RatioCall::too_wide;
  else if ((interval ? c.hi : ratio) < 1 + tie_band && (interval ? c.lo : ratio) > 1 - tie_band)
    c.kind = RatioCall::on_par;
  else if (interval && c.lo <= 1) c.kind = RatioCall::contains_equal;
  else c.kind = RatioCall::winner;
  return c;
}

void check_against_tables(RatioCall& call, const Comparison& c, const std::string& collective) {
  if (call.kind != RatioCall::winner) return;
  const auto index = [&](const std::string& label) {
    for (std::size_t i = 0; i < c.sets.size(); ++i)
      if (c.sets[i].label == label) return i;
    return c.sets.size();
  };
  const std::size_t lower = index(call.lower), higher = index(call.higher), base = c.options.baseline;
  if (lower != base && higher != base) return;
  const std::size_t other = lower == base ? higher : lower;
  const PairComparison* pair = nullptr;
  for (const PairComparison& pc : c.pairs)
    if (pc.other == other) pair = &pc;
  if (!pair) return;
  bool aligned = false;
  for (const SeriesComparison& sc : pair->series) {
    if (sc.base->collective.str() != collective || sc.points.empty()) continue;
    aligned = true;
    Series b, o;
    for (const AlignedPoint& a : sc.points) b.points.push_back(*a.base), o.points.push_back(*a.other);
    const auto pb = plateau_of(b), po = plateau_of(o);
    if (!pb || !po) continue;
    // Faster on the plateau: the higher busbw.
    const bool other_faster = po->busbw_gbps > pb->busbw_gbps * (1 + c.options.tie_band);
    const bool base_faster = pb->busbw_gbps > po->busbw_gbps * (1 + c.options.tie_band);
    const bool contradicts = (lower == base && other_faster) || (lower == other && base_faster);
    if (contradicts) {
      call.kind = RatioCall::not_aligned;
      call.why = fmt::format(
          "the estimate names '{}', but on the sizes both measured ({}-{}) the plateau of {} is {:.3g} "
          "GB/s on '{}' and {:.3g} on '{}'",
          call.lower, format_size(static_cast<double>(pb->from_bytes)), format_size(static_cast<double>(pb->to_bytes)),
          sc.base->label(), pb->busbw_gbps, c.sets[base].label, po->busbw_gbps, c.sets[other].label);
      return;
    }
  }
  if (!aligned) {
    call.kind = RatioCall::not_aligned;
    call.why = fmt::format("no {} series lines up between '{}' and '{}' (see that pair below)", collective,
                           c.sets[base].label, c.sets[other].label);
  }
}

Decision decide(const Workload& w, std::vector<StepAtScale> sets, int nodes, bool at_scale) {
  Decision d;
  d.gpus = w.gpus;
  d.nodes = nodes;
  d.at_scale = at_scale;
  d.bytes_per_step = w.bytes_per_step();
  for (StepAtScale& s : sets) fill_costs(s, w);
  d.sets = std::move(sets);
  d.faster = call_lowest(d.sets, &StepAtScale::comm_s, &StepAtScale::comm_lo_s, &StepAtScale::comm_hi_s);
  d.cheaper = call_lowest(d.sets, &StepAtScale::cost_per_1000, &StepAtScale::cost_lo, &StepAtScale::cost_hi);
  d.break_even = break_even(d);
  if (std::isfinite(w.dataset_tb)) {
    DataMove m;
    m.tb = w.dataset_tb, m.gbit_s = w.transfer_gbit_s;
    m.seconds = w.dataset_tb * 8e12 / (w.transfer_gbit_s * 1e9);
    for (const StepAtScale& s : d.sets)
      if (s.cost && std::isfinite(s.cost->transfer_per_tb)) {
        m.cost.emplace_back(s.label, w.dataset_tb * s.cost->transfer_per_tb);
        m.currency = s.cost->currency;
      }
    d.data = std::move(m);
  }
  return d;
}

std::string interval_text(const RatioCall& c) {
  return std::isfinite(c.lo) ? fmt::format("{:.3g}x to {:.3g}x", c.lo, c.hi) : std::string("no interval");
}

std::string cannot_tell(const RatioCall& c, std::string_view what) {
  switch (c.kind) {
    case RatioCall::on_par:
      return fmt::format("'{}' and '{}' are on par ({:.2f}x, interval {})", c.lower, c.higher, c.ratio,
                         interval_text(c));
    case RatioCall::contains_equal:
      return fmt::format("cannot tell which is {}: '{}' is estimated {:.2f}x {}, but the interval ({}) contains equal",
                         what, c.lower, c.ratio, what, interval_text(c));
    case RatioCall::too_wide:
      return fmt::format("cannot tell which is {}: the interval of the ratio ({}) spans more than {:g}x", what,
                         interval_text(c), kMaxIntervalSpan);
    case RatioCall::not_aligned: return fmt::format("cannot tell which is {}: {}", what, c.why);
    default: return "";
  }
}

}  // namespace ccb
