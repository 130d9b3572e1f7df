// The whole run once the processes are up (MPI_Init, or one process alone): validate against the world, open outputs,
// record provenance, measure every point, write every record.
#pragma once
#include <string>

#include "harness/comm.hpp"
#include "harness/config.hpp"
#include "results/writers.hpp"

namespace ccb {

// Returns the process exit code (see usage_error.hpp).
// nccl_log: this process's NCCL INFO log file ("" when not captured).
// extra: one more writer on rank 0 (ccbench accept collects the records with it).
int run_sweep(const Config& cfg, const Comm& comm, const std::string& nccl_log, Writer* extra = nullptr);

}  // namespace ccb
