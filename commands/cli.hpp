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
// `gpu_driver`: evidence of NVIDIA GPUs on this node whatever CUDA says
// (/proc/driver/nvidia/version's first line, or "/dev/nvidia0"; "" when
// there is none): with it, a CUDA runtime that sees no GPU (a driver older
// than the toolkit: cudaErrorInsufficientDriver) is a UsageError naming both
// versions, never a silent fall back to host memory.
BackendChoice choose_default_backend(bool have_mpi, bool have_nccl, int gpus, const std::string& gpu_error,
                                     const char* env_backend, const std::string& gpu_driver = "",
                                     int runtime_version = 0, int driver_cuda_version = 0);
// What this node shows of NVIDIA's driver ("" when nothing).
std::string nvidia_driver_evidence();

std::string help_text();
std::string list_text();

}  // namespace ccb
