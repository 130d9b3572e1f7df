// An I/O engine: a small interface over how requests reach the kernel.
// psync issues one pread/pwrite at a time (queue depth 1, as fio's psync);
// io_uring keeps up to its depth in flight (liburing; fio's io_uring engine
// without fixed buffers or polling).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/io_options.hpp"

namespace ccb {

struct IoRequest {
  int fd = -1;
  bool write = false;
  void* buf = nullptr;
  std::size_t len = 0;
  std::uint64_t offset = 0;
  std::uint64_t tag = 0;  // the caller's: handed back on completion
};

struct IoCompletion {
  std::uint64_t tag = 0;
  long result = 0;  // bytes moved, or -errno
};

class IoEngine {
 public:
  virtual ~IoEngine() = default;
  virtual std::string_view name() const = 0;
  // Queues a request; the caller keeps at most the engine's depth in flight.
  virtual void submit(const IoRequest& r) = 0;
  // Issues what is queued and waits until at least `at_least` requests have
  // completed; appends every completion it has to `out`.
  virtual void reap(std::size_t at_least, std::vector<IoCompletion>& out) = 0;
};

// Throws std::runtime_error when the engine cannot start (io_uring refused
// by the kernel or a seccomp policy: the message says so).
std::unique_ptr<IoEngine> make_engine(IoEngineKind kind, int depth);

// One request done with pread/pwrite, retried until whole: the bytes, or
// -errno (-EIO when the file ends first).
long transfer_whole(const IoRequest& r);

// Whether this build has io_uring (liburing found at build time).
bool have_io_uring();

}  // namespace ccb
