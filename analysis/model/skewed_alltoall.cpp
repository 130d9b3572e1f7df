#include "analysis/model/skewed_alltoall.hpp"

#include <algorithm>

#include "kernels/dtype.hpp"

namespace ccb {

std::vector<SkewedPrediction> predict_alltoallv(const Model& m, int ranks, int nodes, const TrafficModel& traffic,
                                                const std::vector<std::uint64_t>& sizes) {
  std::vector<SkewedPrediction> out;
  for (const ModelSeries& s : m.series) {
    if (s.collective != "alltoall" || s.in_place == 1 || !s.forced.empty()) continue;
    const auto d = parse_dtype(s.dtype);
    const std::uint64_t elem = d ? info(*d).size : 1;
    SkewedPrediction sp;
    sp.traffic = traffic.text();
    sp.ranks = ranks;
    sp.nodes = nodes;
    std::vector<std::uint64_t> busiest;
    for (std::uint64_t size : sizes) {
      const TrafficPlan plan = make_traffic_plan(traffic, ranks, size / elem);
      SkewedPoint p;
      p.bytes = size / elem * elem;
      p.busiest_rank = plan.busiest_rank();
      p.busiest_bytes = plan.busiest_elements() * elem;
      busiest.push_back(p.busiest_bytes);
      sp.points.push_back(p);
    }
    for (const Prediction& pred : predict(m, ranks, nodes, busiest)) {
      if (pred.series == nullptr || pred.series->collective != s.collective || pred.series->dtype != s.dtype ||
          pred.series->path != s.path || pred.series->memory != s.memory || pred.series->in_place != s.in_place ||
          !pred.forced.empty())
        continue;
      sp.series = pred.series;
      sp.flags = pred.flags;
      for (SkewedPoint& p : sp.points) {
        const auto q = std::find_if(pred.points.begin(), pred.points.end(),
                                    [&](const PredictedPoint& z) { return z.bytes == p.busiest_bytes; });
        if (q != pred.points.end()) p.at = *q;
      }
      break;
    }
    const bool seen = std::any_of(out.begin(), out.end(), [&](auto& o) { return o.series == sp.series; });
    if (sp.series && !seen) out.push_back(std::move(sp));  // a series of each level picks the same fit
  }
  return out;
}

}  // namespace ccb
