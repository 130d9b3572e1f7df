// NCCL's environment, set before its initialisation: the variables that force
// a path (the table in docs/gpu.md) and the INFO log that says which path was used.
#pragma once
#include "common/settings.hpp"
#include <string>
#include <utility>
#include <vector>

namespace ccb {

// The variables --path sets for NCCL ("auto": none).
//   nvlink  NCCL_P2P_LEVEL=NVL                          (peer access over NVLink only)
//   pcie    NCCL_P2P_LEVEL=PHB, NCCL_NVLS_ENABLE=0      (peer access across PCIe)
//   shm     NCCL_P2P_DISABLE=1, NCCL_NVLS_ENABLE=0      (through host shared memory)
//   rdma    NCCL_IB_DISABLE=0                           (IB verbs or the cluster's RDMA
//                                                        plugin; a socket fallback is a path warning)
//   tcp     NCCL_NET=Socket, NCCL_IB_DISABLE=1          (sockets)
std::vector<std::pair<std::string, std::string>> nccl_path_environment(PathRequest path);

// --path pcie sets NCCL_P2P_LEVEL=PHB, which allows peer access up to a PCIe
// host bridge but cannot forbid NVLink, a nearer level. gpu_gpu: the node's
// GPU distance matrix (harness/topo: "NV#", "PIX", ...). Returns the warning
// when two GPUs are joined by NVLink ("" when PCIe is all there is).
std::string pcie_request_warning(const std::vector<std::vector<std::string>>& gpu_gpu);

// Sets them (overriding the caller's values) and, unless the caller set
// NCCL_DEBUG to another level than INFO or TRACE (respected: NCCL then writes
// as it was told, and transports are not observed: "" returned),
// NCCL_DEBUG=INFO with NCCL_DEBUG_FILE=<log dir>/nccl.%h.%p.log unless the
// caller set NCCL_DEBUG_FILE. The log dir: `log_dir` (--nccl-log-dir), else
// nccl_log_folder(). `algorithms`: TUNING added to NCCL_DEBUG_SUBSYS
// (nccl_subsys_with_tuning). Returns this process's log file name (NCCL
// expands %h and %p the same way). UsageError when the folder cannot be used.
std::string request_nccl_path(PathRequest path, const std::string& log_dir, bool algorithms = false);

// The default log folder, one per user and job: $TMPDIR (or /tmp)
// /ccbench-nccl-UID/JOB, JOB from SLURM_JOB_ID, else Open MPI's PMIx
// namespace (one per mpirun), else "local". Made mode 0700 (the user's
// folder); one that is a link, not a folder, or another user's is refused.
std::string nccl_log_folder(const char* tmpdir, unsigned uid, const char* slurm_job, const char* pmix_namespace);
// Makes `folder` (and its parent, the user's) unless they are there, and
// checks them; UsageError "--nccl-log-dir ...: why" otherwise.
void prepare_nccl_log_folder(const std::string& folder, bool ours);

// NCCL_DEBUG_FILE with %h (host name) and %p (pid) expanded for this process.
std::string expand_nccl_debug_file(const std::string& pattern, const std::string& host, long pid);

}  // namespace ccb
