// Where a rank should run and how to check where it did: --bind
// auto|none|numa|core, decided from the node's topology (pure), applied with
// hwloc on this machine, and checked (cores vs GPU vs memory NUMA nodes).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "common/settings.hpp"
#include "harness/topo/topology.hpp"

namespace ccb {

struct BindPlan {
  int numa = -1;       // the NUMA node chosen (-1: none, e.g. no NUMA information)
  std::string cpus;    // what to bind to ("" = leave the binding as it is)
  std::string reason;  // "near GPU3", "near NIC mlx5_1", "spread across NUMA nodes", ...
};

// The NIC nearest to GPU `gpu` (best distance class; GPUs sharing it take turns),
// or for no GPU the `local`-th NIC round robin, RDMA NICs first; -1 when none.
int nearest_nic(const NodeTopology& t, int gpu, int local);

// The plan for local rank `local`; local_gpus[j] is the GPU of local rank j
// (-1: none), one entry per local rank on the node.
// auto and numa: the NUMA node near the GPU, else near the rank's NIC, else
// local % NUMA nodes; numa binds to all its cores, auto too unless the
// launcher's binding `current_cpus` already lies inside it; core: one core of
// that node, the k-th for the k-th local rank placed there; none: nothing.
BindPlan plan_binding(const NodeTopology& t, BindPolicy policy, int local, const std::vector<int>& local_gpus,
                      const std::vector<int>& current_cpus);

// What is wrong with a rank on `cpus` whose memory is bound to `mem_numa`
// (-1: not bound) and that uses GPU `gpu` (-1: none): one sentence each.
std::vector<std::string> binding_warnings(const NodeTopology& t, const std::vector<int>& cpus, int mem_numa, int gpu);

// The calling thread (the one that measures), on this machine (hwloc): its
// CPU binding, and binding to a plan (CPUs, and memory to the plan's NUMA
// node). Returns "" or what failed. Only this thread moves: the binding comes
// after the backend's init, and a process-wide one would pile NCCL's proxy
// threads (and MPI's) onto the measuring core, where they starve.
std::vector<int> current_cpu_binding();
std::string apply_binding(const BindPlan& plan);

}  // namespace ccb
