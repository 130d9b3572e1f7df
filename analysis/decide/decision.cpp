#include "analysis/decide/decision.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/sizes.hpp"
#include "analysis/compare/plateau.hpp"
#include "analysis/workload/goodput.hpp"

namespace ccb {
namespace {

void fill_costs(StepAtScale& s, const Workload& w) {
  s.step_s = w.compute_s + s.comm_s;
  s.step_lo_s = w.compute_s + s.comm_lo_s;
  s.step_hi_s = w.compute_s + s.comm_hi_s;
  if (!s.cost) return;
  const double k = 1000.0 * w.gpus * s.cost->per_gpu_hour / 3600;
  s.unit_cost = k * s.step_s, s.cost_lo = k * s.step_lo_s, s.cost_hi = k * s.step_hi_s;
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
  // The time per useful step (step / goodput's useful share; 1 outside a training step):
  // speed > 1: renting needs more GPU-hours for the same work.
  const double own_per = 1 / own->useful, rent_per = 1 / rent->useful;
  const double speed = rent->step_s * rent_per / (own->step_s * own_per);
  const auto u_at = [&](double sp) { return yearly / (o.gpus * 8760.0 * r.per_gpu_hour * sp); };
  b.utilisation = u_at(speed);
  b.utilisation_lo = u_at(rent->step_hi_s * rent_per / (own->step_lo_s * own_per));
  b.utilisation_hi = u_at(rent->step_lo_s * rent_per / (own->step_hi_s * own_per));
  b.owner_utilisation = o.utilisation;
  b.amortisation_months = o.amortisation_years * 12;
  const double rent_month = r.per_gpu_hour * o.gpus * 730.0 * o.utilisation * speed;
  const double net = rent_month - o.yearly_operating_cost / 12;
  b.months = net > 0 ? o.capital_cost / net : INFINITY;
  // The renting time per owned time, at its ends: the ratio's interval.
  const double speed_lo = rent->step_lo_s * rent_per / (own->step_hi_s * own_per);
  const double speed_hi = rent->step_hi_s * rent_per / (own->step_lo_s * own_per);
  for (double u : b.utilisations) {
    std::vector<double> row, lo, hi;
    for (double f : b.price_factors) {
      const double at = yearly / (o.gpus * 8760.0 * u) / (r.per_gpu_hour * f);
      row.push_back(at / speed);
      lo.push_back(std::isfinite(speed_hi) ? at / speed_hi : 0);
      hi.push_back(speed_lo > 0 ? at / speed_lo : INFINITY);
    }
    b.own_over_rent.push_back(std::move(row));
    b.own_over_rent_lo.push_back(std::move(lo));
    b.own_over_rent_hi.push_back(std::move(hi));
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
  RatioCall c = call_ratio(a.label, b.label, b.*value / a.*value, b.*lo / a.*hi, b.*hi / a.*lo);
  for (const StepAtScale* s : {&a, &b})
    if (!s->unbounded.empty() && c.kind != RatioCall::none) {
      c.kind = RatioCall::unbounded, c.lo = c.hi = kNaN;
      c.why = fmt::format("the step of '{}' rests on a scale-model interval the data cannot bound ({})", s->label,
                          s->unbounded);
      break;
    }
  return c;
}

}  // namespace

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
  d.cheaper = call_lowest(d.sets, &StepAtScale::unit_cost, &StepAtScale::cost_lo, &StepAtScale::cost_hi);
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

namespace {

// Goodput's useful share of a set at the job's nodes, its inputs scaled by the factors.
double useful_share(const StepFacts& f, const StepAtScale& s, int nodes, double mtbf_factor, double ckpt_factor) {
  const double mtbf = s.cost && std::isfinite(s.cost->node_mtbf_hours) ? s.cost->node_mtbf_hours : f.node_mtbf_hours;
  if (!(mtbf > 0) || !(f.checkpoint_s > 0)) return 1;
  return young_goodput(mtbf * mtbf_factor, nodes, f.checkpoint_s * ckpt_factor, std::max(0.0, f.restart_s),
                       std::isfinite(s.step_s) ? s.step_s : 0)
      .useful;
}

// Cost per million useful tokens of a step of `step_s` at a useful share.
double per_million_tokens(const StepFacts& f, const StepAtScale& s, double step_s, double useful) {
  if (!s.cost || !(useful > 0)) return kNaN;
  return step_s * f.ranks * s.cost->per_gpu_hour / 3600 / (f.tokens_per_step * useful) * 1e6;
}

void fill_step(StepAtScale& s, const StepFacts& f, int nodes) {
  if (!s.refused.empty() || !s.step) return;
  s.step_s = s.step->step_s.mid, s.step_lo_s = s.step->step_s.lo, s.step_hi_s = s.step->step_s.hi;
  s.comm_s = s.step->exposed_s.mid, s.comm_lo_s = s.step->exposed_s.lo, s.comm_hi_s = s.step->exposed_s.hi;
  if (!s.step->unbounded.empty()) {
    s.unbounded = fmt::format("{}", fmt::join(s.step->unbounded, ", "));
    s.step_lo_s = s.comm_lo_s = 0, s.step_hi_s = s.comm_hi_s = INFINITY;
  }
  const bool from_profile = s.cost && std::isfinite(s.cost->node_mtbf_hours);
  s.node_mtbf_hours = from_profile ? s.cost->node_mtbf_hours : f.node_mtbf_hours > 0 ? f.node_mtbf_hours : kNaN;
  s.mtbf_basis = from_profile ? "input: cost profile" : "input: workload";
  s.useful = useful_share(f, s, nodes, 1, 1);
  s.unit_cost = per_million_tokens(f, s, s.step_s, s.useful);
  s.cost_lo = per_million_tokens(f, s, s.step_lo_s, s.useful);
  s.cost_hi = per_million_tokens(f, s, s.step_hi_s, s.useful);
}

}  // namespace

StepFacts step_facts(const TrainingWorkload& w, const StepProgram& prog, const std::string& file) {
  StepFacts f;
  f.name = w.name, f.file = file, f.ranks = prog.ranks, f.ranks_per_node = prog.ranks_per_node;
  f.shape = fmt::format("tp {} x pp {} x dp {}{}, zero {}", prog.group_size(Dim::tp), prog.group_size(Dim::pp),
                        prog.group_size(Dim::dp),
                        prog.group_size(Dim::ep) > 1 ? fmt::format(", ep {}", prog.group_size(Dim::ep)) : "", w.zero);
  f.tokens_per_step = prog.tokens_per_step, f.compute_s = prog.compute_per_step_s();
  f.node_mtbf_hours = w.node_mtbf_hours, f.checkpoint_s = w.checkpoint_s, f.restart_s = w.restart_s;
  return f;
}

Decision decide_training_step(const StepFacts& f, std::vector<StepAtScale> sets, int nodes, bool at_scale) {
  Decision d;
  d.gpus = f.ranks;
  d.nodes = nodes;
  d.at_scale = at_scale;
  d.cost_unit = "million useful tokens";
  d.training = f;
  for (StepAtScale& s : sets) fill_step(s, f, nodes);
  d.sets = std::move(sets);
  d.faster = call_lowest(d.sets, &StepAtScale::step_s, &StepAtScale::step_lo_s, &StepAtScale::step_hi_s);
  d.cheaper = call_lowest(d.sets, &StepAtScale::unit_cost, &StepAtScale::cost_lo, &StepAtScale::cost_hi);
  d.break_even = break_even(d);
  if (!(f.checkpoint_s > 0)) return d;
  for (double m : {0.25, 0.5, 1.0, 2.0})
    for (double c : {0.5, 1.0, 2.0, 4.0}) {
      GoodputCase g{m, c, {}, {}, {}};
      std::vector<StepAtScale> at = d.sets;
      for (StepAtScale& s : at) {
        if (!s.refused.empty() || !std::isfinite(s.step_s)) {
          g.useful.push_back(kNaN), g.cost.push_back(kNaN);
          continue;
        }
        const double u = useful_share(f, s, nodes, m, c);
        g.useful.push_back(u), g.cost.push_back(per_million_tokens(f, s, s.step_s, u));
        s.unit_cost = g.cost.back();
        s.cost_lo = per_million_tokens(f, s, s.step_lo_s, u), s.cost_hi = per_million_tokens(f, s, s.step_hi_s, u);
      }
      g.cheaper = call_lowest(at, &StepAtScale::unit_cost, &StepAtScale::cost_lo, &StepAtScale::cost_hi);
      d.goodput_cases.push_back(std::move(g));
    }
  return d;
}

}  // namespace ccb
