// Memory for host buffers: page-aligned allocations and the host pattern kernels.
#pragma once
#include "kernels/memory.hpp"

namespace ccb {

class HostMemory final : public Memory {
 public:
  std::string_view kind() const override { return "host"; }
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
  std::size_t cache_bytes() const override;  // the L3 (sysconf), or 64 MiB when unknown
};

}  // namespace ccb
