// ccbench topo: the node's topology as text or JSON (under mpirun, one block
// per distinct node), and with --plan N the binding --bind would give N local
// ranks there, with the warnings a run would print.
#pragma once
#include "harness/comm.hpp"
#include "harness/config.hpp"
#include "harness/topo/binding.hpp"

namespace ccb {

int run_topo(const Config& cfg, const Comm& comm);

// The --plan table (pure; for tests): N local ranks, GPU r % GPUs each when
// the node has GPUs, every rank starting on `launcher_cpus` (empty: all).
std::string binding_plan_text(const NodeTopology& t, BindPolicy policy, int ranks,
                              const std::vector<int>& launcher_cpus);

}  // namespace ccb
