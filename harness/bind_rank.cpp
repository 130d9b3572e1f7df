#include "harness/bind_rank.hpp"
#include "results/json_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace ccb {
namespace {

int gpu_index(const NodeTopology& t, const std::vector<std::string>& bus_ids) {
  if (bus_ids.empty()) return -1;
  for (const auto& g : t.gpus)
    if (g.bus_id == bus_ids.front()) return g.index;
  return -1;
}

}  // namespace

void bind_and_describe(BindPolicy policy, const Comm& comm, const NodeTopology* topo, const std::string& topo_error,
                       RankPlacement& me) {
  me.bind_policy = std::string(setting_name(policy));
  const int gpu = topo ? gpu_index(*topo, me.gpus) : -1;
  // The GPU of every process on this host, in local-rank order.
  std::vector<int> local_gpus;
  for (const auto& entry : comm.all_strings(fmt::format("{}|{}", me.host, gpu))) {
    const auto bar = entry.rfind('|');
    if (entry.substr(0, bar) == me.host) local_gpus.push_back(std::stoi(entry.substr(bar + 1)));
  }
  if (!topo) {
    me.bind_reason = "no topology (" + topo_error + "): left as launched";
    return;
  }
  me.node = topology_fingerprint(*topo);
  const BindPlan plan = plan_binding(*topo, policy, me.local_rank, local_gpus, current_cpu_binding());
  me.bind_reason = plan.reason;
  bool bound = false;
  if (!plan.cpus.empty()) {
    if (topo->source != "this machine") {
      me.warnings.push_back(
          fmt::format("--bind {}: the topology is {}, not this machine: not bound", me.bind_policy, topo->source));
    } else if (const std::string error = apply_binding(plan); !error.empty()) {
      me.warnings.push_back(fmt::format("--bind {}: {}", me.bind_policy, error));
    } else {
      bound = true;
    }
  }
  const std::vector<int> cpus = current_cpu_binding();
  me.cpu_numa = numa_of_cpus(*topo, cpus);
  me.mem_numa = bound ? plan.numa : -1;
  me.gpu_numa = gpu >= 0 ? topo->gpus[static_cast<std::size_t>(gpu)].numa : -1;
  const int nic = nearest_nic(*topo, gpu, me.local_rank);
  if (nic >= 0) {
    me.nic = topo->nics[static_cast<std::size_t>(nic)].name;
    me.nic_distance = gpu >= 0 ? topo->gpu_nic[static_cast<std::size_t>(gpu)][static_cast<std::size_t>(nic)] : "";
  }
  for (auto& w : binding_warnings(*topo, cpus, me.mem_numa, gpu)) me.warnings.push_back(std::move(w));
}

PlacedProcess place_process(BindPolicy policy, const Comm& comm, const ProcessRanks& ranks) {
  std::optional<NodeTopology> topo;
  std::string error;
  try {
    topo = load_topology();
  } catch (const std::exception& e) {
    error = e.what();
  }
  PlacedProcess p{this_process(comm, ranks), topo ? json_text(topology_json(*topo)) : ""};
  bind_and_describe(policy, comm, topo ? &*topo : nullptr, error, p.me);
  return p;
}

}  // namespace ccb
