// ccbench accept's options (accept_args.cpp parses them), shared by the
// command and its parts (accept_parts.hpp).
#pragma once
#include <optional>
#include <string>

#include "analysis/accept/spec.hpp"
#include "commands/io_command.hpp"
#include "harness/config.hpp"

namespace ccb {

struct AcceptArgs {
  std::string spec_path;
  std::string out_dir = "ccbench-accept";
  std::string color = "auto";
  std::string spec_text;  // as read by this process
  AcceptSpec spec;
  std::string simulate;                // --simulate CLUSTER.yaml: a cluster model instead of MPI
  std::string launcher = "auto";       // --launcher auto|mpi|slurm
  bool drain = false, resume = false;  // --drain, --resume (Slurm)
  std::string run_group;    // --run-group CHECK: one group's repeats, inside a job step the controller started
  std::string group_out;    // --group-out FILE: where that step writes them
  bool node_check = false;  // --node-check: this node alone, as Slurm's HealthCheckProgram
  std::string history_db;   // --history DB: the raw runs added when it ends
  std::string prom_path;    // --prom FILE: node pass/fail and the verdict as Prometheus text
};

// --node-check ends the process (exit 1, one line) when it has not finished
// within this bound: slurmd kills its HealthCheckProgram after 60 s.
inline constexpr int kNodeCheckSeconds = 55;

// Parses `accept ...` (argv[0] is "accept") and reads the spec. nullopt
// after --help (the caller prints accept_help()); throws UsageError.
std::optional<AcceptArgs> parse_accept(int argc, const char* const* argv);
std::string accept_help();

// A check as the sweep's configuration; an io check as ccbench io's
// arguments (UsageError naming the spec line when they do not hold).
Config check_config(const Check& c, const std::string& spec_file);
IoArgs io_check_args(const Check& c, const std::string& spec_file);

// The Slurm step controller runs this acceptance: --launcher slurm, or auto
// inside an allocation (SLURM_JOB_ID) started as one process (not by
// mpirun, not as a task of an srun step).
bool uses_slurm_steps(const AcceptArgs& args);

}  // namespace ccb
