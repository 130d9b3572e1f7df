// The buffers one thread of ccbench io reads into or writes from: pageable
// host memory, pinned host memory (cudaHostAlloc), or pinned staging buffers
// whose every completed read goes on to a GPU (cudaMemcpyAsync on one stream,
// an event per buffer: the storage reads of the next buffers overlap the copy
// of this one, and a buffer is reused only once its copy is done).
#pragma once
#include <cstddef>
#include <memory>
#include <string>

#include "io/io_options.hpp"

namespace ccb {

class IoBuffers {
 public:
  virtual ~IoBuffers() = default;
  virtual void* slot(std::size_t i) = 0;
  // A read into slot i completed: send it on (device: the copy to the GPU).
  virtual void arrived(std::size_t i, std::size_t bytes) { (void)i, (void)bytes; }
  // Waits until slot i may be read into again (device: its copy is done).
  virtual void reusable(std::size_t i) { (void)i; }
  // Waits for every copy: the end of the end-to-end time.
  virtual void drain() {}
};

// `slots` buffers of `bytes` each, 4 KiB aligned (O_DIRECT). `device` is
// the CUDA ordinal for pinned and device memory. Throws UsageError when the
// memory kind needs a GPU that this build or machine does not have.
std::unique_ptr<IoBuffers> make_io_buffers(IoMemory kind, std::size_t slots, std::size_t bytes, int device);

// Why pinned or device memory cannot be used here ("" when it can).
std::string io_gpu_unavailable();

// GPUDirect Storage (cuFile): "not built (cufile.h not found)" on builds
// without it; ccbench io does not use cuFile yet.
std::string io_gds_status();

}  // namespace ccb
