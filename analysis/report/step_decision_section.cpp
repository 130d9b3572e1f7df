// The decision for a training step (compare --workload STEP.yaml) in words
// and tables: each set's predicted step, its tokens per second, goodput and
// cost per million useful tokens, which set is faster and cheaper, where
// owning breaks even, and how the cheaper call fares when node MTBF and
// checkpoint time are off. Numbers from analysis/decide/decision.cpp
// (decide_training_step); every figure names its basis.
#include <fmt/format.h>

#include <cmath>

#include "analysis/report/decision_words.hpp"
#include "analysis/workload/training_step.hpp"

namespace ccb {
namespace {

const StepAtScale* named_set(const Decision& d, const std::string& label) {
  for (const StepAtScale& s : d.sets)
    if (s.label == label) return &s;
  return nullptr;
}

std::string step_where(const Decision& d) {
  const StepFacts& f = *d.training;
  return fmt::format("At {} GPUs on {} node{} ({}{})", f.ranks, d.nodes, d.nodes == 1 ? "" : "s", f.shape,
                     d.at_scale ? ", --scale" : ", the workload's target");
}

// An interval of a step that rests on an unbounded phase: "unbounded".
std::string seconds_interval(double lo, double hi) {
  if (hi == INFINITY) return "unbounded";
  return std::isfinite(lo) && std::isfinite(hi) ? format_seconds(lo) + " - " + format_seconds(hi) : "-";
}

std::string money_interval(double lo, double hi, const std::string& currency) {
  return hi == INFINITY ? "unbounded" : format_money(lo, currency) + " - " + format_money(hi, currency);
}

// "12.3 s on 'bare' (interval 11.9 s - 13 s; compute 10.1 s, exposed communication 2.2 s)"
std::string step_words(const StepAtScale& s) {
  return fmt::format("{} on '{}' (interval {}{}; compute {}, exposed communication {})", format_seconds(s.step_s),
                     s.label, seconds_interval(s.step_lo_s, s.step_hi_s),
                     s.unbounded.empty() ? "" : ": the scale model cannot bound " + s.unbounded,
                     format_seconds(s.step->compute_s), format_seconds(s.comm_s));
}

std::string basis_words(const StepAtScale& a, const StepAtScale& b) {
  const bool modelled = !a.modelled.empty() || !b.modelled.empty();
  return modelled ? "predicted from each set's measured curves, and its scale model for the groups no sweep measured"
                  : "predicted from each set's measured curves";
}

std::string step_faster(const Decision& d) {
  std::string refused;
  for (const StepAtScale& s : d.sets)
    if (!s.refused.empty())
      refused += fmt::format("{}'{}' has no prediction: {}.", refused.empty() ? "" : " ", s.label, s.refused);
  const RatioCall& c = d.faster;
  if (c.kind == RatioCall::none)
    return fmt::format("{}, nothing can be decided: fewer than two sets have a predicted step.{}", step_where(d),
                       refused.empty() ? "" : " " + refused);
  const StepAtScale &a = *named_set(d, c.lower), &b = *named_set(d, c.higher);
  const std::string verdict = c.kind == RatioCall::winner ? fmt::format("'{}' is faster by {:.2f}x (interval {})",
                                                                        a.label, c.ratio, interval_text(c))
                                                          : cannot_tell(c, "faster");
  return fmt::format("{}, one step of {} ({:.4g} tokens) is {}: {} and {}: {}.{}", step_where(d), d.training->name,
                     d.training->tokens_per_step, basis_words(a, b), step_words(a), step_words(b), verdict,
                     refused.empty() ? "" : " " + refused);
}

std::string goodput_words(const Decision& d, const StepAtScale& a, const StepAtScale& b) {
  const StepFacts& f = *d.training;
  if (!(f.checkpoint_s > 0) || !(std::isfinite(a.node_mtbf_hours) && std::isfinite(b.node_mtbf_hours)))
    return "every step counted useful (the workload gives no goodput: node_mtbf_hours and checkpoint_s)";
  return fmt::format(
      "useful share of the job's time {:.1f}% on '{}' and {:.1f}% on '{}' (Young's checkpoint interval; inputs: node "
      "MTBF {:g} h and {:g} h, checkpoint {:g} s, restart {:g} s)",
      100 * a.useful, a.label, 100 * b.useful, b.label, a.node_mtbf_hours, b.node_mtbf_hours, f.checkpoint_s,
      std::max(0.0, f.restart_s));
}

std::string step_cheaper(const Decision& d) {
  const RatioCall& c = d.cheaper;
  if (c.kind == RatioCall::none) return "";
  const StepAtScale &a = *named_set(d, c.lower), &b = *named_set(d, c.higher);
  if (a.cost->currency != b.cost->currency)
    return fmt::format("Per million useful tokens, '{}' costs {} and '{}' {}: different currencies, not compared.",
                       a.label, format_money(a.unit_cost, a.cost->currency), b.label,
                       format_money(b.unit_cost, b.cost->currency));
  std::string util;
  for (const StepAtScale* s : {&a, &b})
    if (s->cost->kind == "bare_metal")
      util = fmt::format(", at the stated utilisation of {:.0f}% for '{}'", 100 * s->cost->utilisation, s->label);
  const std::string verdict = cheaper_by(c);
  return fmt::format(
      "Per million useful tokens (predicted step x input price{}; {}), '{}' costs {} (interval {}) and '{}' {} "
      "(interval {}): {}.",
      util, goodput_words(d, a, b), a.label, format_money(a.unit_cost, a.cost->currency),
      money_interval(a.cost_lo, a.cost_hi, a.cost->currency), b.label, format_money(b.unit_cost, b.cost->currency),
      money_interval(b.cost_lo, b.cost_hi, b.cost->currency), verdict);
}

// Whether the cheaper call survives node MTBF x 0.25..2 and checkpoint time x 0.5..4.
std::string goodput_sentence(const Decision& d) {
  if (d.goodput_cases.empty() || d.cheaper.kind == RatioCall::none) return "";
  std::string changed;
  int same = 0;
  for (const GoodputCase& g : d.goodput_cases) {
    const bool held = g.cheaper.kind == d.cheaper.kind && g.cheaper.lower == d.cheaper.lower;
    if (held) {
      ++same;
    } else if (changed.empty()) {
      changed = fmt::format("at node MTBF x{:g} and checkpoint time x{:g}: {}", g.mtbf_factor, g.checkpoint_factor,
                            g.cheaper.kind == RatioCall::winner ? fmt::format("'{}' is cheaper", g.cheaper.lower)
                                                                : cannot_tell(g.cheaper, "cheaper"));
    }
  }
  const int n = static_cast<int>(d.goodput_cases.size());
  if (d.cheaper.kind != RatioCall::winner) {  // no call to hold: say whether any case would make one
    int called = 0;
    std::string example;
    for (const GoodputCase& g : d.goodput_cases)
      if (g.cheaper.kind == RatioCall::winner && called++ == 0)
        example = fmt::format("at node MTBF x{:g} and checkpoint time x{:g}, '{}' would be cheaper", g.mtbf_factor,
                              g.checkpoint_factor, g.cheaper.lower);
    if (called == 0)
      return fmt::format(
          "None of the {} cases of node MTBF x0.25-2 and checkpoint time x0.5-4 tells which is cheaper either (the "
          "table \"Sensitivity: goodput\").",
          n);
    return fmt::format(
        "Which is cheaper cannot be told at the stated goodput inputs; {} of the {} cases of node MTBF x0.25-2 and "
        "checkpoint time x0.5-4 would tell ({}): inputs off by that much, not the measurements, would decide it "
        "(the table \"Sensitivity: goodput\").",
        called, n, example);
  }
  if (same == n)
    return fmt::format(
        "The cheaper call holds in all {} cases of node MTBF x0.25-2 and checkpoint time x0.5-4 (the table "
        "\"Sensitivity: goodput\").",
        n);
  return fmt::format(
      "The cheaper call depends on the goodput inputs: it holds in {} of {} cases of node MTBF x0.25-2 and "
      "checkpoint time x0.5-4; {} (the table \"Sensitivity: goodput\").",
      same, n, changed);
}

std::string by_dimension(const PredictedStep& p) {
  std::string out;
  for (std::size_t i = 0; i < kDims; ++i)
    if (p.by_dim[i].hi > 0)
      out += fmt::format("{}{} {}", out.empty() ? "" : ", ", setting_name(static_cast<Dim>(i)),
                         format_seconds(p.by_dim[i].mid));
  return out.empty() ? "none" : out;
}

Table step_set_table(const Decision& d) {
  Table t;
  t.title = "Per set (the slowest pipeline stage)";
  t.header = {"label",
              "basis",
              "step time",
              "interval",
              "compute",
              "exposed communication",
              "by dimension",
              "tokens/s",
              "useful share",
              "node MTBF",
              "per million useful tokens",
              "interval"};
  t.left_columns = 2;
  for (const StepAtScale& x : d.sets) {
    if (!x.refused.empty() || !x.step) {
      std::vector<Cell> row{{x.label}, {x.basis + ": no prediction, " + x.refused, Tone::warn}};
      row.resize(t.header.size(), Cell{"-"});
      t.rows.push_back(std::move(row));
      continue;
    }
    const std::string cur = x.cost ? x.cost->currency : "";
    t.rows.push_back(
        {{x.label},
         {x.basis},
         {format_seconds(x.step_s)},
         {seconds_interval(x.step_lo_s, x.step_hi_s)},
         {format_seconds(x.step->compute_s)},
         {format_seconds(x.comm_s) + " (" + seconds_interval(x.comm_lo_s, x.comm_hi_s) + ")"},
         {by_dimension(*x.step) + (x.bubble_s > 0 ? "; pp includes the bubble" : "")},
         {fmt::format("{:.4g}", d.training->tokens_per_step / x.step_s)},
         {std::isfinite(x.node_mtbf_hours) && d.training->checkpoint_s > 0 ? fmt::format("{:.1f}%", 100 * x.useful)
                                                                           : "100% (no goodput inputs)"},
         {std::isfinite(x.node_mtbf_hours) ? fmt::format("{:g} h ({})", x.node_mtbf_hours, x.mtbf_basis) : "-"},
         {x.cost ? format_money(x.unit_cost, cur) : "no cost profile"},
         {x.cost ? money_interval(x.cost_lo, x.cost_hi, cur) : "-"}});
  }
  return t;
}

Table goodput_table(const Decision& d) {
  Table t;
  t.title = "Sensitivity: goodput (node MTBF and checkpoint time off by a factor; the step as predicted)";
  t.header = {"node MTBF", "checkpoint"};
  std::vector<std::size_t> shown;
  for (std::size_t i = 0; i < d.sets.size(); ++i)
    if (d.sets[i].refused.empty() && d.sets[i].step) {
      shown.push_back(i);
      t.header.push_back(fmt::format("useful '{}'", d.sets[i].label));
      t.header.push_back(fmt::format("per M tokens '{}'", d.sets[i].label));
    }
  t.header.push_back("cheaper");
  t.left_columns = 2;
  t.last_left = true;
  for (const GoodputCase& g : d.goodput_cases) {
    std::vector<Cell> row{{fmt::format("x{:g}", g.mtbf_factor)}, {fmt::format("x{:g}", g.checkpoint_factor)}};
    for (std::size_t i : shown) {
      const StepAtScale& s = d.sets[i];
      row.push_back({fmt::format("{:.1f}%", 100 * g.useful[i])});
      row.push_back({s.cost ? format_money(g.cost[i], s.cost->currency) : "-"});
    }
    row.push_back({g.cheaper.kind == RatioCall::winner
                       ? fmt::format("'{}' by {:.2f}x", g.cheaper.lower, g.cheaper.ratio)
                   : g.cheaper.kind == RatioCall::none ? std::string("-")
                                                       : std::string("cannot tell"),
                   g.cheaper.kind == RatioCall::winner ? Tone::plain : Tone::warn});
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace

std::vector<std::string> step_summary(const Decision& d) {
  return {step_faster(d), step_cheaper(d), goodput_sentence(d)};
}

Section step_decision_section(const Decision& d) {
  const StepFacts& f = *d.training;
  Section s;
  s.heading = "The decision at scale: a training step";
  s.paragraphs.push_back(fmt::format(
      "Workload {} ({}): {} on {} GPUs, {} per node, {:.4g} tokens per step, compute {} per step (input). Each set's "
      "step is predicted from its own curves as ccbench workload predict does (docs/workload.md): every phase read "
      "off the curve of its collective at its group's ranks and nodes{}, the stages' programs simulated with the "
      "stated overlap; interval: low = 10th-percentile times, no link sharing; high = 90th percentile, shared, every "
      "inter-node phase queued. Cost per million useful tokens = step x GPUs x price per GPU-hour / 3600 / (tokens "
      "per step x useful share) x 1e6; useful share: Young's goodput from node MTBF, checkpoint and restart time "
      "(inputs). Break-even as for one collective, on the time per useful step (docs/compare.md).",
      f.name, f.file, f.shape, f.ranks, f.ranks_per_node, f.tokens_per_step, format_seconds(f.compute_s),
      d.at_scale ? " (with --scale: the set's scale model where no sweep measured that group)" : ""));
  for (const StepAtScale& x : d.sets)
    for (const std::string& m : x.modelled)
      s.paragraphs.push_back(fmt::format("'{}', not measured, from its scale model: {}.", x.label, m));
  s.tables.push_back(step_set_table(d));
  if (d.break_even) s.tables.push_back(break_even_table(*d.break_even, "per useful token"));
  if (!d.goodput_cases.empty()) s.tables.push_back(goodput_table(d));
  return s;
}

}  // namespace ccb
