// The decision at scale in words and tables: which set is faster at the
// target GPU count, which is cheaper, where owning breaks even, how long a
// data set takes to move. Numbers from results/compare/decision.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "results/report/report.hpp"

namespace ccb {
namespace {

std::string where(const Decision& d) {
  return d.at_scale ? fmt::format("At {} GPUs{}", d.gpus, d.nodes > 0 ? fmt::format(" on {} nodes", d.nodes) : "")
                    : fmt::format("At the measured scale (the workload names {} GPUs; give --scale to project)", d.gpus);
}

// The sets that have a value of `key`, lowest first.
std::vector<const StepAtScale*> ranked(const Decision& d, double StepAtScale::*key) {
  std::vector<const StepAtScale*> v;
  for (const StepAtScale& s : d.sets)
    if (std::isfinite(s.*key)) v.push_back(&s);
  std::sort(v.begin(), v.end(), [&](auto* a, auto* b) { return a->*key < b->*key; });
  return v;
}

std::string faster_sentence(const Decision& d) {
  const auto v = ranked(d, &StepAtScale::comm_s);
  if (v.size() < 2) return "";
  const StepAtScale &a = *v[0], &b = *v[1];
  const double lo = b.comm_lo_s / a.comm_hi_s, hi = b.comm_hi_s / a.comm_lo_s;
  std::string interval;
  if (a.predicted || b.predicted)
    interval = fmt::format(" (90% interval {:.3g}x to {:.3g}x{})", lo, hi,
                           lo > 1 ? "" : "; the intervals overlap, so the order is not certain");
  return fmt::format("{}, the communication of {} per step takes {} on '{}' and {} on '{}': '{}' is faster by {:.2f}x{}.{}",
                     where(d), format_size(d.bytes_per_step), format_seconds(a.comm_s), a.label, format_seconds(b.comm_s),
                     b.label, a.label, b.comm_s / a.comm_s, interval,
                     a.extrapolated || b.extrapolated ? " Extrapolated: beyond the measured step sizes or the model's validity." : "");
}

std::string cheaper_sentence(const Decision& d) {
  const auto v = ranked(d, &StepAtScale::cost_per_1000);
  if (v.size() < 2) return "";
  const StepAtScale &a = *v[0], &b = *v[1];
  std::string util;
  for (const StepAtScale* s : v)
    if (s->cost->kind == "bare_metal")
      util = fmt::format(" at the stated utilisation of {:.0f}% for '{}'", 100 * s->cost->utilisation, s->label);
  return fmt::format("Per 1,000 steps{}, '{}' costs {} and '{}' {}: '{}' is cheaper by {:.0f}%{}.", util, a.label,
                     format_money(a.cost_per_1000, a.cost->currency), b.label, format_money(b.cost_per_1000, b.cost->currency),
                     a.label, 100 * (1 - a.cost_per_1000 / b.cost_per_1000),
                     a.predicted || b.predicted ? " (from predicted step times)" : "");
}

std::string break_even_sentence(const BreakEven& b) {
  const std::string months =
      !std::isfinite(b.months) ? "never pays back"
      : b.months > b.amortisation_months
          ? fmt::format("pays back after {:.3g} months, beyond its {:.0f}-month amortisation", b.months, b.amortisation_months)
          : fmt::format("pays back after {:.3g} months (amortisation {:.0f})", b.months, b.amortisation_months);
  return fmt::format(
      "Owning ('{}') costs the same per step as renting ('{}') at {:.3g}% utilisation, and less above it; at the stated "
      "{:.0f}% the purchase {}.",
      b.own, b.rent, 100 * b.utilisation, 100 * b.owner_utilisation, months);
}

std::string data_sentence(const DataMove& m) {
  std::string costs;
  for (const auto& [label, v] : m.cost) costs += fmt::format("{}'{}' {}", costs.empty() ? "" : ", ", label, format_money(v, m.currency));
  return fmt::format("Moving the {:g} TB data set at the stated {:g} Gbit/s takes {}{}.", m.tb, m.gbit_s, format_seconds(m.seconds),
                     costs.empty() ? "" : "; transfer cost " + costs);
}

}  // namespace

Section summary_section(const Decision& d) {
  Section s;
  s.heading = "Summary";
  for (std::string x : {faster_sentence(d), cheaper_sentence(d)})
    if (!x.empty()) s.paragraphs.push_back(std::move(x));
  if (d.break_even) s.paragraphs.push_back(break_even_sentence(*d.break_even));
  if (d.data) s.paragraphs.push_back(data_sentence(*d.data));
  if (s.paragraphs.empty()) s.paragraphs.push_back("Nothing to decide: fewer than two sets have the workload's collective.");
  return s;
}

Section decision_section(const Decision& d, const Workload& w) {
  Section s;
  s.heading = "The decision at scale";
  s.paragraphs.push_back(fmt::format(
      "Workload {}: {:.4g} parameters in {} on {} GPUs, {} all-reduced per step ({}), {} of compute per step added without "
      "overlap. Communication per step: {}. Cost per 1,000 steps = 1000 x step time x GPUs x price per GPU-hour / 3600. "
      "Break-even utilisation = owning per year x step time owned / (GPUs owned x 8760 h x cloud price per GPU-hour x step "
      "time rented); break-even months = capital / (renting per month - operating cost per month), renting the work the "
      "owned GPUs do at the stated utilisation (docs/compare.md).",
      w.name.empty() ? w.file : w.name, w.parameters, w.dtype, w.gpus, format_size(d.bytes_per_step), w.collective,
      format_seconds(w.compute_s),
      d.at_scale ? "the model's prediction at the target scale, with its 90% interval (ccbench model --help)"
                 : "read off each set's measured curve (busbw at that size / bus factor), no interval"));
  Table t;
  t.title = "Per set";
  t.header = {"label", "basis", "communication per step", "90% interval", "step time", "cost per 1,000 steps", "90% interval"};
  t.left_columns = 2;
  for (const StepAtScale& x : d.sets) {
    const bool interval = x.predicted && std::isfinite(x.comm_lo_s);
    const std::string cur = x.cost ? x.cost->currency : "";
    t.rows.push_back({{x.label},
                      {x.basis + (x.extrapolated ? " (extrapolated)" : ""), x.extrapolated ? Tone::warn : Tone::plain},
                      {format_seconds(x.comm_s)},
                      {interval ? format_seconds(x.comm_lo_s) + " - " + format_seconds(x.comm_hi_s) : "-"},
                      {format_seconds(x.step_s)},
                      {x.cost ? format_money(x.cost_per_1000, cur) : "no cost profile"},
                      {interval && x.cost ? format_money(x.cost_lo, cur) + " - " + format_money(x.cost_hi, cur) : "-"}});
  }
  s.tables.push_back(std::move(t));
  if (d.break_even) {
    const BreakEven& b = *d.break_even;
    Table sens;
    sens.title = fmt::format("Sensitivity: cost per step owning '{}' / renting '{}' (below 1: owning is cheaper)", b.own, b.rent);
    sens.header = {"utilisation"};
    for (double f : b.price_factors) sens.header.push_back(fmt::format("cloud price {:+.0f}%", 100 * (f - 1)));
    for (std::size_t i = 0; i < b.utilisations.size(); ++i) {
      std::vector<Cell> row{{fmt::format("{:.0f}%", 100 * b.utilisations[i])}};
      for (double r : b.own_over_rent[i]) row.push_back({fmt::format("{:.2f}", r), r < 1 ? Tone::better : Tone::worse});
      sens.rows.push_back(std::move(row));
    }
    s.tables.push_back(std::move(sens));
  }
  return s;
}

}  // namespace ccb
