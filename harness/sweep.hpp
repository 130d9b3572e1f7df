// The whole run once the processes are up (MPI_Init, or one process alone): validate against the world, open outputs,
// record provenance, measure every point, write every record.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "collectives/backend.hpp"

#include "harness/comm.hpp"
#include "harness/config.hpp"
#include "results/writers.hpp"

namespace ccb {

// Returns the process exit code (see usage_error.hpp).
// nccl_log: this process's NCCL INFO log file ("" when not captured).
// extra: one more writer on rank 0 (ccbench accept collects the records with it).
// Outputs a command adds beside the sweep's own (the table, -J, --csv): on
// rank 0, `check` runs before any output is created, `open` once all outputs
// passed their checks (the sweep command's --history and --prom:
// commands/run_exports.hpp).
struct SweepExports {
  std::function<void()> check;
  std::function<std::unique_ptr<Writer>()> open;
};

int run_sweep(const Config& cfg, const Comm& comm, const std::string& nccl_log, Writer* extra = nullptr,
              const SweepExports* exports = nullptr);

// The backend every rank agreed on (nullptr: refused, the reason printed; exit 2).
// group: --split's group of this process; the backend is built on it.
std::unique_ptr<Backend> agreed_backend(const Config& cfg, const Comm& comm, const std::string& nccl_log,
                                        const Comm* group = nullptr);
// A sweep on a backend the caller keeps: ccbench accept runs every repeat of
// a group on one backend, so on one set of NCCL communicators
// (ncclCommInitRank costs seconds to tens of seconds at 1,000 GPUs).
int run_sweep_on(Backend& backend, const Config& cfg, const Comm& comm, const std::string& nccl_log,
                 Writer* extra = nullptr);

}  // namespace ccb
