// Memory for device buffers: the device kernels behind the Memory interface.
// Each call runs on the device that owns the buffer (several devices per
// process work), on that device's legacy default stream, and returns when done.
#pragma once
#include "kernels/memory.hpp"

namespace ccb {

class DeviceMemory : public Memory {
 public:
  std::string_view kind() const override { return "device"; }
  // cudaMalloc on the current device; a backend may allocate otherwise (ncclMemAlloc).
  void* allocate(std::size_t bytes, int local) override;
  void release(void* p) override;
  void fill_input(DType d, const Pattern& p, int rank, void* buf, std::size_t count, uint64_t first) override;
  void fill_sentinel(DType d, int nranks, void* buf, std::size_t count) override;
  std::size_t count_wrong_input(DType d, const Pattern& p, int rank, const void* buf, std::size_t count,
                                uint64_t first) override;
  std::size_t count_wrong_result(DType d, const Pattern& p, const void* buf, std::size_t count,
                                 uint64_t first) override;
  void corrupt(void* buf, std::size_t element_size, std::size_t index) override;
  void copy_to_host(const void* buf, std::size_t bytes, void* host) override;
  std::size_t cache_bytes() const override;  // the current device's L2
};

// Makes the device that owns `ptr` current (a device pointer of this process).
void set_device_of(const void* ptr);

}  // namespace ccb
