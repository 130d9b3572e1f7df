#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "harness/topo/binding.hpp"
#if CCBENCH_HAVE_HWLOC
#include <hwloc.h>
#else
#include <sched.h>
#endif

namespace ccb {
#if CCBENCH_HAVE_HWLOC
std::vector<int> current_cpu_binding() {
  hwloc_topology_t topo;
  std::vector<int> out;
  if (hwloc_topology_init(&topo) != 0) return out;
  if (hwloc_topology_load(topo) == 0) {
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_THREAD) == 0) {
      for (int c = hwloc_bitmap_first(set); c >= 0; c = hwloc_bitmap_next(set, c)) out.push_back(c);
    }
    hwloc_bitmap_free(set);
  }
  hwloc_topology_destroy(topo);
  return out;
}

std::string apply_binding(const BindPlan& plan) {
  if (plan.cpus.empty()) return "";
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return "hwloc_topology_init failed";
  std::string error;
  if (hwloc_topology_load(topo) != 0) error = "hwloc cannot load this machine's topology";
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (error.empty()) {
    hwloc_bitmap_list_sscanf(set, plan.cpus.c_str());
    if (hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD) != 0)
      error = fmt::format("cannot bind to cpus {} ({})", plan.cpus, std::strerror(errno));
  }
  if (error.empty() && plan.numa >= 0) {
    hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
    hwloc_bitmap_only(nodes, static_cast<unsigned>(plan.numa));
    if (hwloc_set_membind(topo, nodes, HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_THREAD | HWLOC_MEMBIND_BYNODESET) != 0)
      error = fmt::format("cannot bind memory to NUMA node {} ({})", plan.numa, std::strerror(errno));
    hwloc_bitmap_free(nodes);
  }
  hwloc_bitmap_free(set);
  hwloc_topology_destroy(topo);
  return error;
}

#else
std::vector<int> current_cpu_binding() {  // without hwloc: the affinity mask
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}
std::string apply_binding(const BindPlan& plan) {
  return plan.cpus.empty() ? "" : "this ccbench was built without hwloc: cannot bind";
}
#endif

}  // namespace ccb
