#include "kernels/cuda/device_memory.hpp"

#include <cuda_runtime_api.h>

#include <stdexcept>

#include "kernels/cuda/device_kernels.hpp"
#include "kernels/pattern.hpp"

namespace ccb {

void set_device_of(const void* ptr) {
  cudaPointerAttributes attr{};
  cuda::check(cudaPointerGetAttributes(&attr, ptr), "cudaPointerGetAttributes");
  if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged)
    throw std::runtime_error("internal error: a device buffer operation was given host memory");
  cuda::check(cudaSetDevice(attr.device), "cudaSetDevice");
}

void* DeviceMemory::allocate(std::size_t bytes, int /*local*/) {
  void* p = nullptr;
  cuda::check(cudaMalloc(&p, bytes == 0 ? 1 : bytes), "cudaMalloc");
  return p;
}

void DeviceMemory::release(void* p) { cudaFree(p); }

void DeviceMemory::fill_input(DType d, const Pattern& p, int rank, void* buf, std::size_t count, uint64_t first) {
  if (count == 0) return;
  set_device_of(buf);
  cuda::fill_input(d, p, rank, buf, count, first, nullptr);
  cuda::check(cudaStreamSynchronize(nullptr), "fill kernel");
}

void DeviceMemory::fill_sentinel(DType d, int nranks, void* buf, std::size_t count) {
  const Sentinel s = sentinel(d, nranks);
  fill_input(d, s.pattern, s.rank, buf, count, 0);
}

std::size_t DeviceMemory::count_wrong_input(DType d, const Pattern& p, int rank, const void* buf, std::size_t count,
                                            uint64_t first) {
  if (count == 0) return 0;
  set_device_of(buf);
  return cuda::count_wrong_input(d, p, rank, buf, count, first, nullptr);
}

std::size_t DeviceMemory::count_wrong_result(DType d, const Pattern& p, const void* buf, std::size_t count,
                                             uint64_t first) {
  if (count == 0) return 0;
  set_device_of(buf);
  return cuda::count_wrong_result(d, p, buf, count, first, nullptr);
}

void DeviceMemory::copy_to_host(const void* buf, std::size_t bytes, void* host) {
  set_device_of(buf);
  cuda::check(cudaMemcpy(host, buf, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
}

void DeviceMemory::corrupt(void* buf, std::size_t element_size, std::size_t index) {
  set_device_of(buf);
  unsigned char bytes[16] = {};
  auto* at = static_cast<unsigned char*>(buf) + index * element_size;
  cuda::check(cudaMemcpy(bytes, at, element_size, cudaMemcpyDeviceToHost), "cudaMemcpy");
  for (std::size_t b = 0; b < element_size; ++b) bytes[b] ^= 0x5A;
  cuda::check(cudaMemcpy(at, bytes, element_size, cudaMemcpyHostToDevice), "cudaMemcpy");
}

std::size_t DeviceMemory::cache_bytes() const {
  int device = 0, l2 = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device) != cudaSuccess || l2 <= 0)
    return Memory::cache_bytes();
  return static_cast<std::size_t>(l2);
}

}  // namespace ccb
