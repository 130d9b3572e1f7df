// ccbench entry point: parse (before MPI starts, so that --path can set
// Open MPI's parameters), start MPI, run the sweep.
#include <fmt/format.h>
#include <mpi.h>

#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "harness/cli.hpp"
#include "harness/mpi_path.hpp"
#include "harness/sweep.hpp"
#include "harness/usage_error.hpp"

namespace ccb {
Config rank0_config(int argc, char** argv) {
  std::string mine;
  for (int i = 0; i < argc; ++i) mine.append(argv[i]).push_back('\0');
  int rank = 0, len = static_cast<int>(mine.size());
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string joined = rank == 0 ? mine : std::string(static_cast<std::size_t>(len), '\0');
  MPI_Bcast(joined.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<const char*> args;
  for (std::size_t at = 0; at < joined.size(); at = joined.find('\0', at) + 1) args.push_back(joined.c_str() + at);
  return parse_args(static_cast<int>(args.size()), args.data()).config;  // parsed on rank 0 already
}
}  // namespace ccb

namespace {
// This process's rank as the launcher tells it, before MPI starts; 0 when
// not launched by mpirun/srun. Used only to print errors once.
int launcher_rank() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* v = std::getenv(var)) return std::atoi(v);
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  const bool printer = launcher_rank() == 0;
  ccb::ParsedArgs args;
  try {
    args = ccb::parse_args(argc, argv);
    if (args.command == ccb::Command::run) ccb::request_mpi_path(args.config.path);
  } catch (const ccb::UsageError& e) {
    if (printer) fmt::print(stderr, "ccbench: {}\n", e.what());
    return ccb::kExitUsage;
  }
  switch (args.command) {
    case ccb::Command::help:
      if (printer) fmt::print("{}", ccb::help_text());
      return ccb::kExitOk;
    case ccb::Command::list:
      if (printer) fmt::print("{}", ccb::list_text());
      return ccb::kExitOk;
    case ccb::Command::version:
      if (printer) fmt::print("ccbench {} ({})\n", CCBENCH_VERSION, CCBENCH_GIT_REVISION);
      return ccb::kExitOk;
    case ccb::Command::run:
      break;
  }
  MPI_Init(&argc, &argv);
  int code = ccb::kExitInternal;
  try {
    // Every rank runs rank 0's command line, whatever its own said (an MPMD
    // launch, a wrapper that edits arguments): counts and sizes must agree.
    code = ccb::run_sweep(ccb::rank0_config(argc, argv));
  } catch (const std::exception& e) {
    fmt::print(stderr, "ccbench: internal error: {}\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, ccb::kExitInternal);
  }
  MPI_Finalize();
  return code;
}
