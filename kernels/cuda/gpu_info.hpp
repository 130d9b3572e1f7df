// What the CUDA runtime sees: device count, or why there is none.
#pragma once
#include <string>
#include <vector>

namespace ccb {

struct GpuInfo {
  int devices = 0;
  std::string error;  // empty when the query succeeded
  int runtime_version = 0;
  int driver_version = 0;
};

// Safe without a GPU or a driver: reports the CUDA error instead.
GpuInfo query_gpus();

// Peer access between CUDA devices i and j as CUDA reports it: "" when i == j,
// "no" without peer access, else "P2P" with the performance rank and
// whether native atomics work ("P2P rank 0, atomics"). Empty without GPUs.
std::vector<std::vector<std::string>> gpu_peer_matrix();

// The PCI address of CUDA device `ordinal`, lower case ("0000:12:00.0"); "" when unknown.
std::string gpu_bus_id(int ordinal);

}  // namespace ccb
