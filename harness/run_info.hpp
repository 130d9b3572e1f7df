// Provenance of a run: versions, placement of every rank, filtered and
// redacted environment.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "harness/comm.hpp"
#include "results/record.hpp"

namespace ccb {

// Environment variables worth recording: NCCL_*, UCX_*, OMPI_*, CUDA_*, SLURM_*,
// PMIX_*, CCBENCH_*. Values of names that look like secrets (TOKEN, SECRET,
// PASSWORD, PASSWD, KEY, CREDENTIAL, AUTH, COOKIE, SESSION) are replaced.
bool is_recorded_variable(std::string_view name);
bool looks_secret(std::string_view name);
inline constexpr std::string_view kRedacted = "<redacted>";
std::map<std::string, std::string> capture_environment(const char* const* envp);

std::string utc_now_iso8601();

// The ranks this process drives.
struct ProcessRanks {
  int first_rank = 0;
  int world_ranks = 1;
  std::vector<int> devices;  // their GPUs (empty: host memory)
};

// This process: rank, host, pid, CPU and cpuset now, GPUs, versions.
RankPlacement this_process(const Comm& comm, const ProcessRanks& mine);

// Versions, placement and topology; collective over comm. `me` is this
// process's placement (this_process, then bind_and_describe); `topo_json`
// its node's topology ("" when unknown). Every process's placement and one
// topology per distinct node are filled on every process; the environment is
// this process's own (rank 0's is the one recorded).
void collect_run_info(const Comm& comm, const RankPlacement& me, int world_ranks, const std::string& topo_json,
                      RunInfo& info);

// Where nodes of one run differ in what matters for comparing them: GPU
// model or count, NIC link speeds, CUDA driver or NCCL version. One sentence each.
std::vector<std::string> node_differences(const std::vector<NodeRecord>& nodes,
                                          const std::vector<RankPlacement>& placement);

}  // namespace ccb
