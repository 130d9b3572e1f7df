#include "io/io_memory.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "common/errors.hpp"

#if CCBENCH_HAVE_CUDA
#include <cuda_runtime.h>

#include "kernels/cuda/gpu_info.hpp"
#endif

namespace ccb {
namespace {

constexpr std::size_t kAlign = 4096;

class PageableBuffers final : public IoBuffers {
 public:
  PageableBuffers(std::size_t slots, std::size_t bytes) {
    const std::size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;
    for (std::size_t i = 0; i < slots; ++i) {
      void* p = std::aligned_alloc(kAlign, rounded);
      if (!p) throw std::runtime_error(fmt::format("out of memory: {} buffers of {} bytes", slots, bytes));
      slots_.push_back(p);
    }
  }
  ~PageableBuffers() override {
    for (void* p : slots_) std::free(p);
  }
  void* slot(std::size_t i) override { return slots_[i]; }

 private:
  std::vector<void*> slots_;
};

#if CCBENCH_HAVE_CUDA
void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(fmt::format("{}: {}", what, cudaGetErrorString(e)));
}

class PinnedBuffers : public IoBuffers {
 public:
  PinnedBuffers(std::size_t slots, std::size_t bytes, int device) : bytes_(bytes) {
    cuda_check(cudaSetDevice(device), "cudaSetDevice");
    for (std::size_t i = 0; i < slots; ++i) {
      void* p = nullptr;
      cuda_check(cudaHostAlloc(&p, bytes, cudaHostAllocDefault), "cudaHostAlloc");
      slots_.push_back(p);
    }
  }
  ~PinnedBuffers() override {
    for (void* p : slots_) cudaFreeHost(p);
  }
  void* slot(std::size_t i) override { return slots_[i]; }

 protected:
  std::size_t bytes_;
  std::vector<void*> slots_;
};

class DeviceBuffers final : public PinnedBuffers {
 public:
  DeviceBuffers(std::size_t slots, std::size_t bytes, int device) : PinnedBuffers(slots, bytes, device) {
    cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    cuda_check(cudaMalloc(&target_, bytes * slots), "cudaMalloc");
    events_.resize(slots);
    for (auto& e : events_) cuda_check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    pending_.assign(slots, false);
  }
  ~DeviceBuffers() override {
    cudaStreamSynchronize(stream_);
    for (auto e : events_) cudaEventDestroy(e);
    cudaFree(target_);
    cudaStreamDestroy(stream_);
  }
  void arrived(std::size_t i, std::size_t bytes) override {
    cuda_check(
        cudaMemcpyAsync(static_cast<char*>(target_) + i * bytes_, slots_[i], bytes, cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync");
    cuda_check(cudaEventRecord(events_[i], stream_), "cudaEventRecord");
    pending_[i] = true;
  }
  void reusable(std::size_t i) override {
    if (pending_[i]) cuda_check(cudaEventSynchronize(events_[i]), "cudaEventSynchronize");
    pending_[i] = false;
  }
  void drain() override {
    cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    pending_.assign(pending_.size(), false);
  }

 private:
  cudaStream_t stream_{};
  void* target_ = nullptr;
  std::vector<cudaEvent_t> events_;
  std::vector<bool> pending_;
};
#endif

}  // namespace

std::string io_gpu_unavailable() {
#if CCBENCH_HAVE_CUDA
  const GpuInfo g = query_gpus();
  if (g.devices > 0) return "";
  return fmt::format("no GPU visible ({})", g.error.empty() ? "CUDA reports 0 devices" : g.error);
#else
  return "this ccbench was built without CUDA";
#endif
}

std::string io_gds_status() {
#if CCBENCH_HAVE_CUFILE
  return "cufile.h found; not used by this version";
#else
  return "not built (cufile.h not found)";
#endif
}

std::unique_ptr<IoBuffers> make_io_buffers(IoMemory kind, std::size_t slots, std::size_t bytes, int device) {
  if (kind == IoMemory::pageable) return std::make_unique<PageableBuffers>(slots, bytes);
  if (const std::string why = io_gpu_unavailable(); !why.empty())
    throw UsageError(fmt::format("--memory {}: needs a GPU: {}", name(kind), why));
#if CCBENCH_HAVE_CUDA
  if (kind == IoMemory::pinned) return std::make_unique<PinnedBuffers>(slots, bytes, device);
  return std::make_unique<DeviceBuffers>(slots, bytes, device);
#else
  (void)device;
  return nullptr;
#endif
}

}  // namespace ccb
