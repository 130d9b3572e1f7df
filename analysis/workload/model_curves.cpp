#include "analysis/workload/model_curves.hpp"

#include <fmt/format.h>

#include <cmath>

#include "common/errors.hpp"
#include "analysis/model/library_rules.hpp"

namespace ccb {

std::vector<std::string> add_model_curves(const StepProgram& prog, const Model& m, const SeriesTable& measured,
                                          ResultSet& into) {
  std::vector<std::string> lines;
  for (const CurveNeed& n : curves_needed(prog, measured)) {
    const std::vector<Prediction> preds = predict(m, n.ranks, n.nodes, n.bytes);
    const Prediction* best = nullptr;
    for (const Prediction& p : preds) {
      if (!p.series || p.series->collective != n.collective || !p.forced.empty()) continue;
      if (!best || (best->series->in_place != 0 && p.series->in_place == 0)) best = &p;
    }
    if (!best) {
      std::string forced;
      for (const Prediction& p : preds)
        if (p.series && p.series->collective == n.collective && !p.forced.empty() &&
            forced.find(algorithm_label(p.forced, n.collective)) == std::string::npos)
          forced += (forced.empty() ? "" : ", ") + algorithm_label(p.forced, n.collective);
      throw UsageError(fmt::format(
          "no measured curve for '{}': {} at {} ranks on {} node{}, and the model cannot predict what the library "
          "chooses there ({})",
          n.phase, n.collective, n.ranks, n.nodes, n.nodes == 1 ? "" : "s",
          forced.empty() ? fmt::format("it has no {} fit", n.collective)
                         : fmt::format("its {} fits force {}; ccbench model predict's flags say what the library "
                                       "would run",
                                       n.collective, forced)));
    }
    if (!best->other_level.empty())
      throw UsageError(fmt::format(
          "no measured curve for '{}': {} at {} ranks on {} node{}, and the model has only {}: a step's phase is "
          "not read off a curve of another path; add a run of {} at {} ranks on {} node{} ({})",
          n.phase, n.collective, n.ranks, n.nodes, n.nodes == 1 ? "" : "s", best->other_level, n.collective, n.ranks,
          n.nodes, n.nodes == 1 ? "" : "s",
          n.nodes == 1 ? fmt::format("mpirun -np {} ccbench {} on one node", n.ranks, n.collective)
                       : "a sweep across nodes, fitted into the model"));
    std::size_t added = 0;
    for (const PredictedPoint& q : best->points) {
      if (!std::isfinite(q.time_us) || q.time_us <= 0) continue;
      ImportedPoint ip;
      ip.collective = n.collective;
      ip.dtype = best->series->dtype, ip.op = best->series->op, ip.path = best->series->path;
      ip.memory = best->series->memory;
      ip.ranks = n.ranks, ip.nodes = n.nodes, ip.in_place = 0;
      ip.bytes = q.bytes, ip.requested_bytes = q.bytes;
      ip.time_us = q.time_us, ip.time_lo_us = q.lo_us, ip.time_hi_us = q.hi_us;
      ip.time_unbounded = q.unbounded;
      into.points.push_back(std::move(ip));
      ++added;
    }
    if (added == 0)
      throw UsageError(
          fmt::format("no measured curve for '{}': {} at {} ranks on {} node{}, and the model predicts "
                      "no time there",
                      n.phase, n.collective, n.ranks, n.nodes, n.nodes == 1 ? "" : "s"));
    std::string flags;
    for (const std::string& f : best->flags) flags += (flags.empty() ? " (" : "; ") + f;
    lines.push_back(fmt::format("{} at {} ranks on {} node{}: {}{}{}{}", n.collective, n.ranks, n.nodes,
                                n.nodes == 1 ? "" : "s",
                                best->by_rules ? "the library's choice by its rules, from " : "", best->series->key(),
                                flags, flags.empty() ? "" : ")"));
  }
  return lines;
}

OptionStep predict_option_step(const TrainingWorkload& w, const StepProgram& prog, ResultSet points,
                               const Model* model) {
  constexpr unsigned fields = kKeyRanks | kKeyNodes | kKeyInPlace;
  OptionStep out;
  SeriesTable table = build_series(points, fields);
  if (model) {
    out.modelled = add_model_curves(prog, *model, table, points);
    table = build_series(points, fields);
  }
  out.detail = predict_step(prog, table);
  out.step = summarize_prediction(w, prog, out.detail);
  return out;
}

}  // namespace ccb
