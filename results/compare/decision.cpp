#include "results/compare/decision.hpp"

#include <algorithm>
#include <cmath>

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
    if (!s.cost || !std::isfinite(s.step_s) || s.step_s <= 0) continue;
    if (s.cost->kind == "bare_metal" && !own) own = &s;
    if (s.cost->kind == "cloud" && !rent) rent = &s;
  }
  if (!own || !rent) return std::nullopt;
  const CostProfile &o = *own->cost, &r = *rent->cost;
  BreakEven b;
  b.own = own->label, b.rent = rent->label;
  const double yearly = o.capital_cost / o.amortisation_years + o.yearly_operating_cost;
  const double speed = rent->step_s / own->step_s;  // > 1: renting needs more GPU-hours for the same work
  b.utilisation = yearly / (o.gpus * 8760.0 * r.per_gpu_hour * speed);
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

}  // namespace

Decision decide(const Workload& w, std::vector<StepAtScale> sets, int nodes, bool at_scale) {
  Decision d;
  d.gpus = w.gpus;
  d.nodes = nodes;
  d.at_scale = at_scale;
  d.bytes_per_step = w.bytes_per_step();
  for (StepAtScale& s : sets) fill_costs(s, w);
  d.sets = std::move(sets);
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

}  // namespace ccb
