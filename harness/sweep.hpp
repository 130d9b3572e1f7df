// The whole run once the processes are up (MPI_Init, or one process alone): validate against the world, open outputs,
// record provenance, measure every point, write every record.
#pragma once
#include <string>

#include "harness/comm.hpp"
#include "harness/config.hpp"

namespace ccb {

// Returns the process exit code (see usage_error.hpp).
// nccl_log: this process's NCCL INFO log file ("" when not captured).
int run_sweep(const Config& cfg, const Comm& comm, const std::string& nccl_log);

}  // namespace ccb
