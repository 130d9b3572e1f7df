#include <cuda_runtime.h>

#include "kernels/cuda/gpu_info.hpp"

namespace ccb {

GpuInfo query_gpus() {
  GpuInfo g;
  cudaRuntimeGetVersion(&g.runtime_version);
  cudaDriverGetVersion(&g.driver_version);
  const cudaError_t err = cudaGetDeviceCount(&g.devices);
  if (err != cudaSuccess) {
    g.devices = 0;
    g.error = std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
  }
  return g;
}

std::string gpu_bus_id(int ordinal) {
  char id[32] = {};
  if (cudaDeviceGetPCIBusId(id, sizeof id, ordinal) != cudaSuccess) return "";
  std::string s = id;
  for (auto& c : s) c = static_cast<char>(c >= 'A' && c <= 'F' ? c - 'A' + 'a' : c);
  return s;
}

}  // namespace ccb
