#include "analysis/model/skewed_alltoall.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/errors.hpp"
#include "kernels/dtype.hpp"

namespace ccb {
namespace {

// The out-of-place, unforced prediction of `collective` like `s` (dtype,
// path, memory) at `ranks`, at the given sizes; nullptr when the model has none.
const Prediction* find_prediction(const std::vector<Prediction>& preds, const ModelSeries& s,
                                  std::string_view collective) {
  for (const Prediction& p : preds)
    if (p.series && p.series->collective == collective && p.series->dtype == s.dtype && p.series->path == s.path &&
        p.series->memory == s.memory && p.series->in_place != 1 && p.forced.empty())
      return &p;
  return nullptr;
}

PredictedPoint at_bytes(const Prediction& p, std::uint64_t bytes) {
  const auto q =
      std::find_if(p.points.begin(), p.points.end(), [&](const PredictedPoint& z) { return z.bytes == bytes; });
  return q == p.points.end() ? PredictedPoint{} : *q;
}

}  // namespace

std::vector<SkewedPrediction> predict_alltoallv(const Model& m, int ranks, int nodes, const TrafficModel& traffic,
                                                const std::vector<std::uint64_t>& sizes) {
  if (ranks > kMaxTrafficPlanRanks)
    throw UsageError(
        fmt::format("--traffic {}: {} ranks: alltoallv traffic is planned as an n x n matrix, for at most "
                    "{} ranks (predict alltoall without --traffic at this scale)",
                    traffic.text(), ranks, kMaxTrafficPlanRanks));
  std::vector<SkewedPrediction> out;
  for (const ModelSeries& s : m.series) {
    if (s.collective != "alltoall" || s.in_place == 1 || !s.forced.empty()) continue;
    const auto d = parse_dtype(s.dtype);
    const std::uint64_t elem = d ? info(*d).size : 1;
    SkewedPrediction sp;
    sp.traffic = traffic.text();
    sp.ranks = ranks;
    sp.nodes = nodes;
    std::vector<std::uint64_t> wanted;  // every size either bound may be read at
    for (std::uint64_t size : sizes) {
      const TrafficPlan plan = make_traffic_plan(traffic, ranks, size / elem);
      SkewedPoint p;
      p.bytes = size / elem * elem;
      p.busiest_rank = plan.busiest_rank();
      p.busiest_bytes = plan.busiest_elements() * elem;
      p.link_bytes = plan.busiest_remote_elements() * elem;
      std::uint64_t sent = 0;
      for (int r = 0; r < ranks; ++r) sent += plan.sent(r);
      p.mean_bytes = sent / static_cast<std::uint64_t>(ranks) * elem;
      wanted.insert(wanted.end(), {p.mean_bytes, p.busiest_bytes, p.link_bytes});
      sp.points.push_back(p);
    }
    std::sort(wanted.begin(), wanted.end());
    wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
    const std::vector<Prediction> preds = predict(m, ranks, nodes, wanted);
    const Prediction* uniform = find_prediction(preds, s, "alltoall");
    if (!uniform || std::any_of(out.begin(), out.end(), [&](auto& o) { return o.series == uniform->series; }))
      continue;  // a series of each level picks the same fit
    const Prediction* link = find_prediction(preds, s, "sendrecv");
    sp.series = uniform->series;
    sp.link = link ? link->series : nullptr;
    sp.flags = uniform->flags;
    if (link)
      for (const std::string& f : link->flags) sp.flags.push_back("sendrecv: " + f);
    for (SkewedPoint& p : sp.points) {
      if (!link) {
        p.at = at_bytes(*uniform, p.busiest_bytes);
        continue;
      }
      const PredictedPoint a = at_bytes(*uniform, p.mean_bytes), l = at_bytes(*link, p.link_bytes);
      const bool link_bound = l.time_us > a.time_us;
      p.at = link_bound ? l : a;
      p.bound = link_bound ? "link" : "alltoall";
      p.at.lo_us = std::max(a.lo_us, l.lo_us);
      p.at.hi_us = std::max(a.hi_us, l.hi_us);
      p.at.unbounded = a.unbounded || l.unbounded;
    }
    out.push_back(std::move(sp));
  }
  return out;
}

}  // namespace ccb
