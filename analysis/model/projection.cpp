#include "analysis/model/projection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

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
  const std::vector<Prediction> preds = predict(p.model, ranks, nodes, std::vector<std::uint64_t>{});
  for (const Prediction& pr : preds) {
    const ModelSeries& s = *pr.series;
    // One prediction per series: the library's own choice where there is one
    // (a fit of unforced runs, or the forced fits by the library's rules),
    // else the first forced algorithm's.
    const auto same = [&](const Prediction& o) {
      return std::tie(o.series->collective, o.series->dtype, o.series->op, o.series->path, o.series->memory,
                      o.series->in_place) == std::tie(s.collective, s.dtype, s.op, s.path, s.memory, s.in_place);
    };
    auto first =
        std::find_if(preds.begin(), preds.end(), [&](const Prediction& o) { return same(o) && o.forced.empty(); });
    if (first == preds.end()) first = std::find_if(preds.begin(), preds.end(), same);
    if (&*first != &pr) continue;
    std::string counts;
    for (int c : s.counts) counts += (counts.empty() ? "" : ",") + std::to_string(c);
    if (pr.by_rules)
      how += fmt::format(
          "{}{}: what the library chooses, by its fixed rules ({}), from the fits of runs that forced "
          "each algorithm at {} ranks",
          how.empty() ? "" : "; ", s.key(false), p.model.library.substr(0, p.model.library.find(',')), counts);
    else
      how += fmt::format("{}{}: family {} fitted at {} ranks{}", how.empty() ? "" : "; ", s.key(),
                         family_name(s.family), counts, pr.flags.empty() ? "" : " (" + pr.flags.front() + ")");
    std::size_t unfitted = 0;
    for (const PredictedPoint& q : pr.points) {
      if (std::isnan(q.time_us)) {  // the library's rules choose an algorithm not fitted
        ++unfitted;
        continue;
      }
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
      ip.time_unbounded = q.unbounded;
      ip.algbw_gbps = q.algbw_gbps;
      ip.busbw_gbps = q.busbw_gbps;
      ip.forced_algorithm = pr.forced;
      p.set.points.push_back(std::move(ip));
    }
    if (unfitted)
      how +=
          fmt::format(" ({} sizes left out: the library's rules choose an algorithm the runs did not force)", unfitted);
  }
  p.set.predicted_from = fmt::format("model fitted on '{}' ({})", measured.label, how);
  return p;
}

std::optional<ScaledTime> scaled_time(const Model& m, const std::string& collective, int ranks, int nodes,
                                      double bytes) {
  std::optional<ScaledTime> best;
  // The library's own choice before a forced algorithm, out-of-place before in-place.
  int best_rank = 4;
  for (const Prediction& pr : predict(m, ranks, nodes, {static_cast<std::uint64_t>(std::llround(bytes))})) {
    if (pr.series->collective != collective || pr.points.empty() || std::isnan(pr.points.front().time_us)) continue;
    const int rank = (pr.forced.empty() ? 0 : 2) + (pr.series->in_place != 0 ? 1 : 0);
    if (best && !(rank < best_rank || (rank == best_rank && pr.series->in_place == 0))) continue;
    best_rank = rank;
    const PredictedPoint& q = pr.points.front();
    bool beyond = false;
    for (const std::string& f : pr.flags) beyond = beyond || f.starts_with("beyond");
    best = ScaledTime{q.time_us, q.lo_us, q.hi_us, q.size_extrapolated || beyond, pr.series->key(), "", q.unbounded};
    if (pr.series->unusable())
      best->unusable = fmt::format("the fit of {} is unusable: median left-out error {:.0f}% (bound {:.0f}%)",
                                   pr.series->key(), 100 * (std::exp(pr.series->left_out_median()) - 1),
                                   100 * (std::exp(ModelSeries::kUnusableLeftOut) - 1));
  }
  return best;
}

}  // namespace ccb
