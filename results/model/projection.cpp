#include "results/model/projection.hpp"

#include <fmt/format.h>

#include <cmath>

#include "common/errors.hpp"

namespace ccb {

std::optional<Projection> project_set(const ResultSet& measured, int ranks, int nodes, std::string* why) {
  Projection p;
  try {
    p.model = fit_model({measured});
  } catch (const UsageError& e) {
    *why = e.what();
    return std::nullopt;
  }
  p.set.label = fmt::format("{} (predicted {}x{})", measured.label, ranks, nodes);
  p.set.files = measured.files;
  p.set.formats.assign(measured.files.size(), "model prediction");
  p.set.environment = measured.environment;
  p.set.noise = measured.noise;  // a prediction from noisy runs inherits their noise
  p.set.oversubscribed = measured.oversubscribed;
  p.set.note_env("tool", "ccbench model (prediction)");
  p.set.note_env("placement.ranks", std::to_string(ranks));
  p.set.note_env("placement.nodes", std::to_string(nodes));
  std::string how;
  for (const Prediction& pr : predict(p.model, ranks, nodes, std::vector<std::uint64_t>{})) {
    const ModelSeries& s = *pr.series;
    std::string counts;
    for (int c : s.counts) counts += (counts.empty() ? "" : ",") + std::to_string(c);
    how += fmt::format("{}{}: family {} fitted at {} ranks{}", how.empty() ? "" : "; ", s.key(), family_name(s.family),
                       counts, pr.flags.empty() ? "" : " (" + pr.flags.front() + ")");
    for (const PredictedPoint& q : pr.points) {
      ImportedPoint ip;
      ip.collective = s.collective;
      ip.dtype = s.dtype;
      ip.op = s.op;
      ip.path = s.path;
      ip.memory = s.memory;
      ip.in_place = s.in_place;
      ip.ranks = ranks;
      ip.nodes = nodes;
      ip.bytes = q.bytes;
      ip.time_us = q.time_us;
      ip.time_lo_us = q.lo_us;
      ip.time_hi_us = q.hi_us;
      ip.algbw_gbps = q.algbw_gbps;
      ip.busbw_gbps = q.busbw_gbps;
      p.set.points.push_back(std::move(ip));
    }
  }
  p.set.predicted_from = fmt::format("model fitted on '{}' ({})", measured.label, how);
  return p;
}

std::optional<ScaledTime> scaled_time(const Model& m, const std::string& collective, int ranks, int nodes,
                                      double bytes) {
  std::optional<ScaledTime> best;
  for (const Prediction& pr : predict(m, ranks, nodes, {static_cast<std::uint64_t>(std::llround(bytes))})) {
    if (pr.series->collective != collective || pr.points.empty()) continue;
    if (best && pr.series->in_place != 0) continue;
    const PredictedPoint& q = pr.points.front();
    bool beyond = false;
    for (const std::string& f : pr.flags) beyond = beyond || f.starts_with("beyond");
    best = ScaledTime{q.time_us, q.lo_us, q.hi_us, q.size_extrapolated || beyond, pr.series->key(), ""};
    if (pr.series->unusable())
      best->unusable = fmt::format("the fit of {} is unusable: median left-out error {:.0f}% (bound {:.0f}%)",
                                   pr.series->key(), 100 * (std::exp(pr.series->left_out_median()) - 1),
                                   100 * (std::exp(ModelSeries::kUnusableLeftOut) - 1));
  }
  return best;
}

}  // namespace ccb
