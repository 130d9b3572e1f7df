// What the CUDA runtime sees: device count, or why there is none.
#pragma once
#include <string>

namespace ccb {

struct GpuInfo {
  int devices = 0;
  std::string error;  // empty when the query succeeded
  int runtime_version = 0;
  int driver_version = 0;
};

// Safe without a GPU or a driver: reports the CUDA error instead.
GpuInfo query_gpus();

// The PCI address of CUDA device `ordinal`, lower case ("0000:12:00.0"); "" when unknown.
std::string gpu_bus_id(int ordinal);

}  // namespace ccb
