// Applying --bind to this process and saying where it ended up: the binding
// fields of its placement record (cores' NUMA nodes, memory binding, GPU,
// nearest NIC, warnings, node fingerprint).
#pragma once
#include <string>

#include "harness/comm.hpp"
#include "harness/run_info.hpp"
#include "harness/topo/binding.hpp"
#include "results/record.hpp"

namespace ccb {

// Collective over comm (every process learns the GPUs of the others on its
// host, for --bind core). `topo` is this machine's topology, nullptr when it
// could not be loaded (`topo_error` says why); `me.gpus` holds the PCI
// addresses of this process's GPUs.
void bind_and_describe(BindPolicy policy, const Comm& comm, const NodeTopology* topo, const std::string& topo_error,
                       RankPlacement& me);

// This process placed: its topology loaded (when hwloc can), bound per
// `policy`, described (this_process + bind_and_describe). topo_json is the
// node's topology ("" when it could not be loaded). Collective over comm.
struct PlacedProcess {
  RankPlacement me;
  std::string topo_json;
};
PlacedProcess place_process(BindPolicy policy, const Comm& comm, const ProcessRanks& ranks);

}  // namespace ccb
