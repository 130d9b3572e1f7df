#include "analysis/model/projection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "analysis/model/skewed_alltoall.hpp"
#include "common/errors.hpp"

namespace ccb {
namespace {

// alltoallv at the target: not its own fit (its curve depends on the traffic
// model, which moves a different busiest rank at every scale) but read off
// the set's uniform alltoall (and sendrecv) fits under the traffic model its
// runs recorded (docs/alltoallv.md "Predicted"). Says how, or why not, in `how`.
void project_alltoallv(const ResultSet& measured, const Model& model, int ranks, int nodes, ResultSet& out,
                       std::string& how) {
  std::vector<std::uint64_t> sizes;
  for (const ImportedPoint& q : measured.points)
    if (q.collective == "alltoallv" && q.in_place != 1) sizes.push_back(q.bytes);
  if (sizes.empty()) return;
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  const auto t = measured.environment.find("config.traffic");
  const std::string sep = how.empty() ? "" : "; ";
  if (t == measured.environment.end() || t->second.find(" | ") != std::string::npos) {
    how += sep + (t == measured.environment.end() ? "alltoallv not projected: its runs recorded no traffic model"
                                                  : "alltoallv not projected: its runs mix traffic models (" +
                                                        t->second + "); compare one model per set");
    return;
  }
  std::vector<SkewedPrediction> preds;
  try {
    preds = predict_alltoallv(model, ranks, nodes, parse_traffic(t->second), sizes);
  } catch (const UsageError& e) {
    how += sep + "alltoallv not projected: " + e.what();
    return;
  }
  if (preds.empty()) {
    how += sep + "alltoallv not projected: the set has no uniform alltoall runs to read it off (sweep alltoall too)";
    return;
  }
  const SkewedPrediction& sp = preds.front();  // the out-of-place alltoall fit
  const double factor = ranks > 1 ? static_cast<double>(ranks - 1) / ranks : 1.0;
  for (const SkewedPoint& q : sp.points) {
    if (!std::isfinite(q.at.time_us) || q.at.time_us <= 0) continue;
    ImportedPoint ip;
    ip.collective = "alltoallv";
    ip.dtype = sp.series->dtype;
    ip.op = "-";
    ip.path = sp.series->path;
    ip.memory = sp.series->memory;
    ip.in_place = 0;
    ip.ranks = ranks;
    ip.nodes = nodes;
    ip.bytes = ip.requested_bytes = q.bytes;
    ip.time_us = q.at.time_us;
    ip.time_lo_us = q.at.lo_us;
    ip.time_hi_us = q.at.hi_us;
    ip.time_unbounded = q.at.unbounded;
    ip.algbw_gbps = static_cast<double>(q.busiest_bytes) / (q.at.time_us * 1e3);
    ip.busbw_gbps = ip.algbw_gbps * factor;
    ip.busiest_rank = q.busiest_rank;
    ip.busiest_bytes = q.busiest_bytes;
    out.points.push_back(std::move(ip));
  }
  how += fmt::format("{}alltoallv under {}: the busiest rank's bytes on {}{} (docs/alltoallv.md)", sep, sp.traffic,
                     sp.series->key(false), sp.link ? " and the sendrecv link bound" : "");
}

}  // namespace

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
    if (s.collective == "alltoallv") continue;  // project_alltoallv below
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
  project_alltoallv(measured, p.model, ranks, nodes, p.set, how);
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
