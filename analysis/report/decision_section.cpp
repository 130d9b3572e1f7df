// The decision at scale in words and tables: which set is faster at the
// target GPU count, which is cheaper, where owning breaks even, how long a
// data set takes to move. Numbers from analysis/decide/decision.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/report/decision_words.hpp"
#include "analysis/report/report.hpp"

namespace ccb {
namespace {

std::string where(const Decision& d) {
  return d.at_scale
             ? fmt::format("At {} GPUs{}", d.gpus, d.nodes > 0 ? fmt::format(" on {} nodes", d.nodes) : "")
             : fmt::format("At the measured scale (the workload names {} GPUs; give --scale to project)", d.gpus);
}

const StepAtScale* find_set(const Decision& d, const std::string& label) {
  for (const StepAtScale& s : d.sets)
    if (s.label == label) return &s;
  return nullptr;
}

std::string refused_sentences(const Decision& d) {
  std::string out;
  for (const StepAtScale& s : d.sets)
    if (!s.refused.empty())
      out += fmt::format("{}'{}' has no estimate at {} per step: {}.", out.empty() ? "" : " ", s.label,
                         format_size(d.bytes_per_step), s.refused);
  return out;
}

std::string faster_sentence(const Decision& d) {
  const RatioCall& c = d.faster;
  const std::string refused = refused_sentences(d);
  if (c.kind == RatioCall::none)
    return refused.empty() ? "" : fmt::format("{}, nothing can be decided. {}", where(d), refused);
  const StepAtScale &a = *find_set(d, c.lower), &b = *find_set(d, c.higher);
  const std::string times =
      fmt::format("{}, the communication of {} per step takes {} on '{}' and {} on '{}'", where(d),
                  format_size(d.bytes_per_step), format_seconds(a.comm_s), a.label, format_seconds(b.comm_s), b.label);
  const std::string kind = a.predicted || b.predicted ? "90% interval" : "range the curves allow";
  const std::string verdict = c.kind == RatioCall::winner ? fmt::format("'{}' is faster by {:.2f}x ({} {})", a.label,
                                                                        c.ratio, kind, interval_text(c))
                                                          : cannot_tell(c, "faster");
  return fmt::format(
      "{}: {}.{}{}", times, verdict,
      a.extrapolated || b.extrapolated ? " Extrapolated: beyond the measured step sizes or the model's validity." : "",
      refused.empty() ? "" : " " + refused);
}

std::string cheaper_sentence(const Decision& d) {
  const RatioCall& c = d.cheaper;
  if (c.kind == RatioCall::none) return "";
  const StepAtScale &a = *find_set(d, c.lower), &b = *find_set(d, c.higher);
  if (a.cost->currency != b.cost->currency)
    return fmt::format("Per 1,000 steps, '{}' costs {} and '{}' {}: different currencies, not compared.", a.label,
                       format_money(a.unit_cost, a.cost->currency), b.label,
                       format_money(b.unit_cost, b.cost->currency));
  std::string util;
  for (const StepAtScale* s : {&a, &b})
    if (s->cost->kind == "bare_metal")
      util = fmt::format(" at the stated utilisation of {:.0f}% for '{}'", 100 * s->cost->utilisation, s->label);
  const std::string verdict = cheaper_by(c);
  return fmt::format("Per 1,000 steps{}, '{}' costs {} and '{}' {}: {}{}.", util, a.label,
                     format_money(a.unit_cost, a.cost->currency), b.label, format_money(b.unit_cost, b.cost->currency),
                     verdict, a.predicted || b.predicted ? " (from predicted step times)" : "");
}

std::string percent(double u) { return fmt::format("{:.3g}%", 100 * u); }

}  // namespace

std::string cheaper_by(const RatioCall& c) {
  if (c.kind != RatioCall::winner) return cannot_tell(c, "cheaper");
  const auto pct = [](double ratio) { return 100 * (1 - 1 / ratio); };
  return fmt::format(
      "'{}' is cheaper by {:.0f}%{}", c.lower, pct(c.ratio),
      std::isfinite(c.lo) ? range_text(fmt::format("{:.0f}%", pct(c.lo)), fmt::format("{:.0f}%", pct(c.hi))) : "");
}

std::string break_even_sentence(const BreakEven& b, const std::string& per) {
  const double lo = std::isfinite(b.utilisation_lo) ? b.utilisation_lo : b.utilisation;
  const double hi = std::isfinite(b.utilisation_hi) ? b.utilisation_hi : b.utilisation;
  const std::string range = lo < hi ? range_text(percent(lo), percent(hi)) : "";
  if (!std::isfinite(b.utilisation) || lo > 1)
    return fmt::format(
        "Owning ('{}') never costs less {} than renting ('{}'): it would need {} utilisation{}, "
        "more than 100%.",
        b.own, per, b.rent, std::isfinite(b.utilisation) ? percent(b.utilisation) : "infinite", range);
  if (!std::isfinite(hi) || !(lo > 0))
    return fmt::format(
        "Cannot tell whether owning ('{}') ever costs less {} than renting ('{}'): a step time's interval is "
        "unbounded, and so is the break-even utilisation.",
        b.own, per, b.rent);
  if (hi > 1)
    return fmt::format(
        "Cannot tell whether owning ('{}') ever costs less {} than renting ('{}'): the break-even "
        "utilisation lies between {} and {}, below 100% at one end and beyond it at the other.",
        b.own, per, b.rent, percent(lo), percent(hi));
  if (lo <= b.owner_utilisation && b.owner_utilisation <= hi)
    return fmt::format(
        "Owning ('{}') costs the same {} as renting ('{}') at {} utilisation{}, and less above it; "
        "at the stated {:.0f}%, inside that range, cannot tell whether the purchase pays back.",
        b.own, per, b.rent, percent(b.utilisation), range_text(percent(lo), percent(hi)), 100 * b.owner_utilisation);
  const std::string months =
      !std::isfinite(b.months) ? "never pays back"
      : b.months > b.amortisation_months
          ? fmt::format("pays back after {:.3g} months, beyond its {:.0f}-month amortisation", b.months,
                        b.amortisation_months)
          : fmt::format("pays back after {:.3g} months (amortisation {:.0f} months)", b.months, b.amortisation_months);
  return fmt::format(
      "Owning ('{}') costs the same {} as renting ('{}') at {} utilisation{}, and less above it; at the stated "
      "{:.0f}% the purchase {}.",
      b.own, per, b.rent, percent(b.utilisation), range, 100 * b.owner_utilisation, months);
}

namespace {

std::string data_sentence(const DataMove& m) {
  std::string costs;
  for (const auto& [label, v] : m.cost)
    costs += fmt::format("{}'{}' {}", costs.empty() ? "" : ", ", label, format_money(v, m.currency));
  return fmt::format("Moving the {:g} TB data set at the stated {:g} Gbit/s takes {}{}.", m.tb, m.gbit_s,
                     format_seconds(m.seconds), costs.empty() ? "" : "; transfer cost " + costs);
}

}  // namespace

Section summary_section(const Decision& d) {
  Section s;
  s.heading = "Summary";
  const std::vector<std::string> first =
      d.training ? step_summary(d) : std::vector<std::string>{faster_sentence(d), cheaper_sentence(d)};
  for (std::string x : first)
    if (!x.empty()) s.paragraphs.push_back(std::move(x));
  if (d.break_even)
    s.paragraphs.push_back(break_even_sentence(*d.break_even, d.training ? "per useful token" : "per step"));
  if (d.data) s.paragraphs.push_back(data_sentence(*d.data));
  if (s.paragraphs.empty())
    s.paragraphs.push_back("Nothing to decide: fewer than two sets have the workload's collective.");
  return s;
}

Section decision_section(const Decision& d, const Workload& w) {
  Section s;
  s.heading = "The decision at scale";
  s.paragraphs.push_back(fmt::format(
      "Workload {}: {:.4g} parameters in {} on {} GPUs, {} all-reduced per step ({}), {} of compute per step added "
      "without "
      "overlap. Communication per step: {}. Cost per 1,000 steps = 1000 x step time x GPUs x price per GPU-hour / "
      "3600. "
      "Break-even utilisation = owning per year x step time owned / (GPUs owned x 8760 h x cloud price per GPU-hour x "
      "step "
      "time rented); break-even months = capital / (renting per month - operating cost per month), renting the work "
      "the "
      "owned GPUs do at the stated utilisation (docs/compare.md).",
      w.name.empty() ? w.file : w.name, w.parameters, w.dtype, w.gpus, format_size(d.bytes_per_step), w.collective,
      format_seconds(w.compute_s),
      d.at_scale
          ? "the model's prediction at the target scale, with its 90% interval (ccbench model --help)"
          : "read off each set's measured curve (busbw at that size / bus factor; beyond the largest measured size "
            "the plateau of the largest sizes when it is flat, at most 4096x beyond), with the range the curve "
            "allows (the two sizes around it, or the plateau's lowest and highest busbw)"));
  Table t;
  t.title = "Per set";
  const char* range = d.at_scale ? "90% interval" : "range";
  t.header = {"label", "basis", "communication per step", range, "step time", "cost per 1,000 steps", range};
  t.left_columns = 2;
  for (const StepAtScale& x : d.sets) {
    const bool interval = std::isfinite(x.comm_lo_s) && std::isfinite(x.comm_hi_s);
    const std::string cur = x.cost ? x.cost->currency : "";
    if (!x.refused.empty()) {
      t.rows.push_back(
          {{x.label}, {x.basis + ": no estimate, " + x.refused, Tone::warn}, {"-"}, {"-"}, {"-"}, {"-"}, {"-"}});
      continue;
    }
    t.rows.push_back({{x.label},
                      {x.basis + (x.extrapolated ? " (extrapolated)" : ""), x.extrapolated ? Tone::warn : Tone::plain},
                      {format_seconds(x.comm_s)},
                      {!x.unbounded.empty() ? Cell{"unbounded: the model cannot bound " + x.unbounded, Tone::warn}
                       : interval           ? Cell{format_seconds(x.comm_lo_s) + " - " + format_seconds(x.comm_hi_s)}
                                            : Cell{"-"}},
                      {format_seconds(x.step_s)},
                      {x.cost ? format_money(x.unit_cost, cur) : "no cost profile"},
                      {!x.unbounded.empty() && x.cost ? "unbounded"
                       : interval && x.cost ? format_money(x.cost_lo, cur) + " - " + format_money(x.cost_hi, cur)
                                            : "-"}});
  }
  s.tables.push_back(std::move(t));
  if (d.break_even) s.tables.push_back(break_even_table(*d.break_even, "per step"));
  return s;
}

Table break_even_table(const BreakEven& b, const std::string& per) {
  Table sens;
  sens.title = fmt::format(
      "Sensitivity: cost {} owning '{}' / renting '{}' (below 1: owning is cheaper; in brackets the interval the "
      "step times allow: a cell is called only when it lies on one side of 1)",
      per, b.own, b.rent);
  sens.header = {"utilisation"};
  for (double f : b.price_factors) sens.header.push_back(fmt::format("cloud price {:+.0f}%", 100 * (f - 1)));
  for (std::size_t i = 0; i < b.utilisations.size(); ++i) {
    std::vector<Cell> row{{fmt::format("{:.0f}%", 100 * b.utilisations[i])}};
    for (std::size_t k = 0; k < b.own_over_rent[i].size(); ++k) {
      const double r = b.own_over_rent[i][k], lo = b.own_over_rent_lo[i][k], hi = b.own_over_rent_hi[i][k];
      const std::string range = !std::isfinite(hi) ? "unbounded" : fmt::format("{:.3g}-{:.3g}", lo, hi);
      row.push_back({fmt::format("{:.3g} ({})", r, range), hi < 1 ? Tone::better : lo > 1 ? Tone::worse : Tone::warn});
    }
    sens.rows.push_back(std::move(row));
  }
  return sens;
}

}  // namespace ccb
