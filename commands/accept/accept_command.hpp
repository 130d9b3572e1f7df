// ccbench accept SPEC.yaml: runs an acceptance spec's checks across the nodes
// of an MPI job, judges them and writes the verdicts (docs/acceptance.md "Acceptance
// testing").
#pragma once
#include <optional>
#include <string>

#include "harness/comm.hpp"
#include "commands/accept/accept_args.hpp"

namespace ccb {

void start_node_check_deadline();

// Sets the path settings of the spec's checks in the environment (before
// MPI_Init and NCCL); returns this process's NCCL log file ("" when none).
std::string request_accept_paths(const AcceptSpec& spec);

// --simulate: the spec's checks against the cluster model, no MPI; the same
// verdict files and exit codes as a real run.
int run_accept_simulated(const AcceptArgs& args);

// Every process of the job calls it. Returns the exit code: 0 accepted,
// 1 rejected, 2 a spec or run error.
int run_accept(const AcceptArgs& args, const Comm& world, const std::string& nccl_log);

// --run-group CHECK: the check's repeats on every rank of this job step,
// written by rank 0 to --group-out as one JSON object (group_run_from_json
// reads it). 0 when written.
int run_accept_group(const AcceptArgs& args, const Comm& world, const std::string& nccl_log);

// The Slurm step controller (commands/accept/accept_steps.cpp): one process inside
// the allocation; every group of a round its own srun step, at once.
int run_accept_steps(const AcceptArgs& args);

}  // namespace ccb
