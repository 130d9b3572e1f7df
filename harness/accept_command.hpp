// ccbench accept SPEC.yaml: runs an acceptance spec's checks across the nodes
// of an MPI job, judges them and writes the verdicts (docs/acceptance.md "Acceptance
// testing").
#pragma once
#include <optional>
#include <string>

#include "harness/comm.hpp"
#include "results/accept/spec.hpp"

namespace ccb {

struct AcceptArgs {
  std::string spec_path;
  std::string out_dir = "ccbench-accept";
  std::string color = "auto";
  std::string spec_text;  // as read by this process
  AcceptSpec spec;
  std::string simulate;   // --simulate CLUSTER.yaml: a cluster model instead of MPI
};

// Parses `accept ...` (argv[0] is "accept") and reads the spec. nullopt
// after --help (the caller prints accept_help()); throws UsageError.
std::optional<AcceptArgs> parse_accept(int argc, const char* const* argv);
std::string_view accept_help();

// Sets the path settings of the spec's checks in the environment (before
// MPI_Init and NCCL); returns this process's NCCL log file ("" when none).
std::string request_accept_paths(const AcceptSpec& spec);

// --simulate: the spec's checks against the cluster model, no MPI; the same
// verdict files and exit codes as a real run.
int run_accept_simulated(const AcceptArgs& args);

// Every process of the job calls it. Returns the exit code: 0 accepted,
// 1 rejected, 2 a spec or run error.
int run_accept(const AcceptArgs& args, const Comm& world, const std::string& nccl_log);

}  // namespace ccb
