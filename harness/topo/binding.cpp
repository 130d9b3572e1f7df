#include "harness/topo/binding.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace ccb {
namespace {

// Distance classes from nearest to farthest.
int rank_of(const std::string& d) {
  static const std::array<std::string_view, 6> kOrder{"PIX", "PXB", "PHB", "NODE", "SYS", "X"};
  if (d.rfind("NV", 0) == 0) return -1;
  for (std::size_t i = 0; i < kOrder.size(); ++i)
    if (kOrder[i] == d) return static_cast<int>(i);
  return 99;
}

// The NUMA node auto/numa/core choose, and why.
std::pair<int, std::string> choose_numa(const NodeTopology& t, int local, int gpu) {
  if (t.numa.empty()) return {-1, "no NUMA information"};
  if (gpu >= 0 && gpu < static_cast<int>(t.gpus.size()) && t.gpus[gpu].numa >= 0)
    return {t.gpus[gpu].numa, fmt::format("near GPU{}", gpu)};
  const int nic = nearest_nic(t, gpu, local);
  if (nic >= 0 && t.nics[nic].numa >= 0) return {t.nics[nic].numa, fmt::format("near NIC {}", t.nics[nic].name)};
  const auto& n = t.numa[static_cast<std::size_t>(local) % t.numa.size()];
  return {n.os_index, "spread across NUMA nodes"};
}

const TopoNuma* numa_node(const NodeTopology& t, int os_index) {
  for (const auto& n : t.numa)
    if (n.os_index == os_index) return &n;
  return nullptr;
}

}  // namespace

int nearest_nic(const NodeTopology& t, int gpu, int local) {
  if (t.nics.empty()) return -1;
  if (gpu >= 0 && gpu < static_cast<int>(t.gpu_nic.size())) {
    // The NICs of the best distance class; several GPUs sharing them take turns.
    int best = 99;
    for (const auto& d : t.gpu_nic[gpu]) best = std::min(best, rank_of(d));
    std::vector<int> nearest;
    for (int k = 0; k < static_cast<int>(t.nics.size()); ++k)
      if (rank_of(t.gpu_nic[gpu][k]) == best) nearest.push_back(k);
    return nearest[static_cast<std::size_t>(gpu) % nearest.size()];
  }
  std::vector<int> order;
  for (int pass = 0; pass < 2; ++pass)
    for (int k = 0; k < static_cast<int>(t.nics.size()); ++k)
      if ((t.nics[k].kind == "rdma") == (pass == 0)) order.push_back(k);
  return order[static_cast<std::size_t>(local) % order.size()];
}

BindPlan plan_binding(const NodeTopology& t, BindPolicy policy, int local, const std::vector<int>& local_gpus,
                      const std::vector<int>& current_cpus) {
  const auto gpu_of = [&](int j) { return j < static_cast<int>(local_gpus.size()) ? local_gpus[j] : -1; };
  const int gpu = gpu_of(local);
  BindPlan plan;
  if (policy == BindPolicy::none) {
    plan.reason = "--bind none: the launcher's binding";
    return plan;
  }
  const auto [numa, reason] = choose_numa(t, local, gpu);
  plan.numa = numa;
  plan.reason = reason;
  const TopoNuma* node = numa_node(t, numa);
  if (!node) return plan;
  const std::vector<int> node_cpus = parse_cpu_list(node->cpus);
  if (policy == BindPolicy::core) {
    // The k-th local rank placed on this node gets its k-th core.
    int k = 0;
    for (int other = 0; other < local; ++other)
      if (choose_numa(t, other, gpu_of(other)).first == numa) ++k;
    plan.cpus = std::to_string(node_cpus[static_cast<std::size_t>(k) % node_cpus.size()]);
    plan.reason += fmt::format(", core {} of the node", k % node_cpus.size());
    return plan;
  }
  const bool inside = !current_cpus.empty() && std::all_of(current_cpus.begin(), current_cpus.end(), [&](int c) {
    return std::binary_search(node_cpus.begin(), node_cpus.end(), c);
  });
  if (policy == BindPolicy::automatic && inside) {
    plan.reason += ", the launcher's binding lies inside it: kept";
    return plan;
  }
  plan.cpus = node->cpus;
  return plan;
}

std::vector<std::string> binding_warnings(const NodeTopology& t, const std::vector<int>& cpus, int mem_numa, int gpu) {
  std::vector<std::string> out;
  const std::vector<int> cores_numa = numa_of_cpus(t, cpus);
  const auto list = [](const std::vector<int>& v) {
    std::string s;
    for (int x : v) s += fmt::format("{}{}", s.empty() ? "" : ",", x);
    return s;
  };
  if (gpu >= 0 && gpu < static_cast<int>(t.gpus.size()) && t.gpus[gpu].numa >= 0 &&
      std::find(cores_numa.begin(), cores_numa.end(), t.gpus[gpu].numa) == cores_numa.end())
    out.push_back(fmt::format("GPU{} ({}) is on NUMA node {}, but the rank's cores {} are on NUMA node {}", gpu,
                              t.gpus[gpu].bus_id, t.gpus[gpu].numa, format_cpu_list(cpus), list(cores_numa)));
  if (mem_numa >= 0 && std::find(cores_numa.begin(), cores_numa.end(), mem_numa) == cores_numa.end())
    out.push_back(fmt::format("memory is bound to NUMA node {}, but the rank's cores {} are on NUMA node {}", mem_numa,
                              format_cpu_list(cpus), list(cores_numa)));
  return out;
}

}  // namespace ccb
