#include "harness/point_observations.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "collectives/nccl/nccl_env.hpp"
#include "collectives/nccl/nccl_log.hpp"
#include "harness/topo/topology.hpp"

namespace ccb {
namespace {

// Every process's lines ("<tag><text>\n"), by tag, over all processes.
std::map<char, std::set<std::string>> gather_tagged(const Comm& comm, const std::string& mine) {
  std::map<char, std::set<std::string>> out;
  for (const auto& all : comm.all_strings(mine))
    for (std::size_t at = 0, nl; (nl = all.find('\n', at)) != std::string::npos; at = nl + 1)
      out[all[at]].insert(all.substr(at + 1, nl - at - 1));
  return out;
}

}  // namespace

std::string host_of_rank(const std::vector<RankPlacement>& placement, int rank) {
  for (const RankPlacement& p : placement)
    if (p.rank == rank) return p.host;
  return "";
}

TrafficPoint traffic_point(const TrafficModel& model, const TrafficPlan& plan, std::size_t elem, std::size_t count,
                           const std::vector<RankPlacement>& placement) {
  TrafficPoint t;
  t.busiest_rank = plan.busiest_rank();
  t.busiest_bytes = plan.busiest_elements() * elem;
  t.busiest_host = host_of_rank(placement, t.busiest_rank);
  t.sent_min = t.received_min = std::numeric_limits<std::size_t>::max();
  std::size_t all_sent = 0;
  for (int r = 0; r < plan.n; ++r) {
    const std::size_t sent = plan.sent(r) * elem, received = plan.received(r) * elem;
    all_sent += sent;
    t.sent_min = std::min(t.sent_min, sent), t.sent_max = std::max(t.sent_max, sent);
    t.received_min = std::min(t.received_min, received), t.received_max = std::max(t.received_max, received);
  }
  t.sent_mean = plan.n > 0 ? all_sent / static_cast<std::size_t>(plan.n) : 0;
  if (model.kind == TrafficKind::moe) t.tokens = count / model.moe.hidden;
  // The busiest rank's larger side, by where each peer runs.
  const int b = t.busiest_rank;
  const bool receives = plan.received(b) >= plan.sent(b);
  t.split_known = !t.busiest_host.empty();
  for (int peer = 0; peer < plan.n && t.split_known; ++peer) {
    const std::string host = host_of_rank(placement, peer);
    if (host.empty()) t.split_known = false;
    const std::size_t bytes = (receives ? plan.at(peer, b) : plan.at(b, peer)) * elem;
    (host == t.busiest_host ? t.busiest_scale_up : t.busiest_scale_out) += bytes;
  }
  if (!t.split_known) t.busiest_scale_up = t.busiest_scale_out = 0;
  return t;
}

std::string nvlink_under_pcie(const Config& cfg, const Comm& comm, const Backend& backend,
                              const std::string& topo_json) {
  if (backend.name() != "nccl" || cfg.path != PathRequest::pcie) return "";
  std::string mine;
  if (!topo_json.empty()) {
    const auto j = nlohmann::json::parse(topo_json, nullptr, false);
    if (!j.is_discarded()) mine = pcie_request_warning(topology_from_json(j).gpu_gpu);
  }
  for (const auto& w : comm.all_strings(mine))
    if (!w.empty()) return w;
  return "";
}

void record_transports(const Config& cfg, const Comm& comm, Backend& backend, const std::string& nvlink_note,
                       PointRecord& rec) {
  if (!backend.observes_transports()) return;
  std::string chosen;
  for (const auto& a : backend.chosen_algorithms()) chosen += "a" + a + "\n";
  const std::set<std::string> algorithms = gather_tagged(comm, chosen)['a'];
  const ObservedTransports mine = backend.observed_transports(algorithms);
  std::string text = mine.per_point ? "" : "s\n";  // s: a process could not tell this point's own
  for (const auto& c : mine.classes) text += "c" + c + "\n";
  for (const auto& t : mine.transports) text += "t" + t + "\n";
  auto all = gather_tagged(comm, text);
  const std::set<std::string>& classes = all['c'];
  rec.path_classes = std::vector<std::string>(classes.begin(), classes.end());
  rec.transports.assign(all['t'].begin(), all['t'].end());
  rec.transports_per_point = all['s'].empty();
  rec.algorithms.assign(algorithms.begin(), algorithms.end());
  rec.path_warning = path_mismatch(cfg.path, classes, comm.nodes());
  if (rec.path_warning.empty() && classes.count("p2p")) rec.path_warning = nvlink_note;
}

}  // namespace ccb
