// Where buffers live (host or device) and the pattern kernels that run
// there: the interface a backend hands the harness (collectives/backend.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kernels/dtype.hpp"
#include "kernels/pattern_math.hpp"

namespace ccb {

class Memory {
 public:
  virtual ~Memory() = default;
  virtual std::string_view kind() const = 0;  // "host", "device"
  // A buffer for local rank `local` (on its device, for device memory).
  virtual void* allocate(std::size_t bytes, int local) = 0;
  virtual void release(void* p) = 0;
  virtual void fill_input(DType d, const Pattern& p, int rank, void* buf, std::size_t count, uint64_t first) = 0;
  virtual void fill_sentinel(DType d, int nranks, void* buf, std::size_t count) = 0;
  virtual std::size_t count_wrong_input(DType d, const Pattern& p, int rank, const void* buf, std::size_t count,
                                        uint64_t first) = 0;
  virtual std::size_t count_wrong_result(DType d, const Pattern& p, const void* buf, std::size_t count,
                                         uint64_t first) = 0;
  // The last-level cache in front of this memory (host: L3, device: L2), for
  // --rotate-buffers.
  virtual std::size_t cache_bytes() const { return std::size_t{64} << 20; }
  // Test-only fault injection: flip the bits of element `index`.
  virtual void corrupt(void* buf, std::size_t element_size, std::size_t index) = 0;
  // `bytes` of `buf` into host memory at `host` (--bitwise reads each result).
  virtual void copy_to_host(const void* buf, std::size_t bytes, void* host) = 0;
};

}  // namespace ccb
