// Command line: nccl-tests' short flags, long options for everything.
#pragma once
#include <string>

#include "harness/config.hpp"

namespace ccb {

// run: a collective sweep; copy: the host/device copy bandwidth tests;
// topo: the node's topology and binding plan; list, help, version: text.
// (compare, baseline, model, accept and io have their own parsers: main.cpp.)
enum class Command { run, copy, topo, list, help, version };

struct ParsedArgs {
  Command command = Command::run;
  Config config;
};

// Throws UsageError with one line naming the flag and what is allowed.
ParsedArgs parse_args(int argc, const char* const* argv);

// The backend when --backend is not given, and why: CCBENCH_BACKEND when set;
// nccl when the build has NCCL and this process sees a GPU (nccl-tests users
// run mpirun ... and expect GPUs); mpi otherwise; a build without MPI has
// only nccl. `gpu_error` is what the CUDA query said when it saw no GPU.
struct BackendChoice {
  BackendKind backend;
  std::string reason;
};
BackendChoice choose_default_backend(bool have_mpi, bool have_nccl, int gpus, const std::string& gpu_error,
                                     const char* env_backend);

std::string help_text();
std::string list_text();

}  // namespace ccb
