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

std::vector<std::vector<std::string>> gpu_peer_matrix() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return {};
  std::vector<std::vector<std::string>> m(static_cast<std::size_t>(n),
                                          std::vector<std::string>(static_cast<std::size_t>(n)));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      int can = 0, rank = 0, atomics = 0;
      cudaDeviceCanAccessPeer(&can, i, j);
      cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, i, j);
      cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, i, j);
      m[i][j] = can ? "P2P rank " + std::to_string(rank) + (atomics ? ", atomics" : "") : "no";
    }
  return m;
}

std::string gpu_bus_id(int ordinal) {
  char id[32] = {};
  if (cudaDeviceGetPCIBusId(id, sizeof id, ordinal) != cudaSuccess) return "";
  std::string s = id;
  for (auto& c : s) c = static_cast<char>(c >= 'A' && c <= 'F' ? c - 'A' + 'a' : c);
  return s;
}

}  // namespace ccb
