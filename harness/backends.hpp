// Choosing the backend --backend names and building it: mpi (host memory, or
// device memory through a CUDA-aware MPI) or nccl (one or -g N GPUs per
// process). What the user can fix is a UsageError, agreed on by every process.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "collectives/backend.hpp"
#include "harness/comm.hpp"
#include "harness/config.hpp"
#include "harness/require_gpu.hpp"

namespace ccb {

// Collective over comm. nccl_log_file: this process's NCCL INFO log ("" = none).
// Returns nullptr after printing the agreed error (rank 0) when any process
// cannot run the backend.
std::unique_ptr<Backend> make_backend(const Config& cfg, const Comm& comm, const std::string& nccl_log_file);

// The CUDA devices a process with node-local rank `local_rank` of
// `local_size` drives with `per_process` GPUs each, when `visible` are
// visible to it: consecutive blocks; or all of them when the launcher left
// exactly `per_process` visible (CUDA_VISIBLE_DEVICES per rank). Throws
// UsageError when neither fits.
// `first` (nccl-tests' NCCL_TESTS_DEVICE): every process takes GPUs first,
// first + 1, ... instead of its local rank's share.
std::vector<int> choose_devices(int local_rank, int local_size, int per_process, int visible, const std::string& host,
                                std::optional<int> first = std::nullopt);
// NCCL_TESTS_DEVICE's value (nullptr: unset); throws UsageError when it is not a GPU ordinal.
std::optional<int> first_device_from(const char* value);

}  // namespace ccb
