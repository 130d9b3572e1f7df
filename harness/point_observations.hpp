// What a sweep's point records beyond its times: where alltoallv's busiest
// rank runs and how much it moves, and the transports the point used
// against what --path asked for.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "collectives/backend.hpp"
#include "collectives/traffic.hpp"
#include "harness/comm.hpp"
#include "harness/config.hpp"
#include "results/record.hpp"

namespace ccb {

// The host of world rank `rank` ("" when the placement does not list it).
std::string host_of_rank(const std::vector<RankPlacement>& placement, int rank);

// alltoallv: the point's busiest rank (named with its host) and the extremes.
TrafficPoint traffic_point(const TrafficModel& model, const TrafficPlan& plan, std::size_t elem, std::size_t count,
                           const std::vector<RankPlacement>& placement);

// --path pcie on nccl where the topology shows NVLink between GPUs: the
// warning (pcie_request_warning) of the first process whose node has it, on
// every process ("" otherwise).
std::string nvlink_under_pcie(const Config& cfg, const Comm& comm, const Backend& backend,
                              const std::string& topo_json);

// The transports of this point over all processes, and how they compare with
// --path (nvlink_note: p2p under --path pcie may be NVLink). What the
// operations chose (NCCL's tuning log: rank 0's process) goes to every process
// first, so that each can say which of its connections those algorithms use.
void record_transports(const Config& cfg, const Comm& comm, Backend& backend, const std::string& nvlink_note,
                       PointRecord& rec);

}  // namespace ccb
