// The small interface every backend implements: allocate, run one
// collective, time, abort. Patterns and verification go through the backend's
// Memory, which knows where its buffers live (host now, device later).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "collectives/collective.hpp"
#include "kernels/dtype.hpp"
#include "kernels/pattern_math.hpp"

namespace ccb {

struct OpArgs {
  const Collective* coll = nullptr;
  DType dtype = DType::float32;
  ReduceOp op = ReduceOp::sum;
  int root = 0;
  std::size_t count = 0;  // the table's count column
  std::size_t chunk = 0;  // count / nranks for split collectives, else count
  const void* send = nullptr;
  void* recv = nullptr;   // in place: send == recv + in_place_send offset
  bool in_place = false;
  int window = 64;        // messages per iteration of uni_bw / bi_bw
};

class Memory {
 public:
  virtual ~Memory() = default;
  virtual std::string_view kind() const = 0;  // "host", "device"
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void release(void* p) = 0;
  virtual void fill_input(DType d, const Pattern& p, int rank, void* buf, std::size_t count,
                          uint64_t first) = 0;
  virtual void fill_sentinel(DType d, int nranks, void* buf, std::size_t count) = 0;
  virtual std::size_t count_wrong_input(DType d, const Pattern& p, int rank, const void* buf,
                                        std::size_t count, uint64_t first) = 0;
  virtual std::size_t count_wrong_result(DType d, const Pattern& p, const void* buf,
                                         std::size_t count, uint64_t first) = 0;
  // Test-only fault injection: flip the bits of element `index`.
  virtual void corrupt(void* buf, std::size_t element_size, std::size_t index) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view clock_name() const = 0;  // how start/stop measure time
  virtual bool blocking() const = 0;
  virtual Memory& memory() = 0;
  virtual void run(const OpArgs& args) = 0;
  // Timing: start_clock(), issue operations, stop_clock() waits for every
  // issued operation to complete and returns the seconds since start_clock().
  virtual void start_clock() = 0;
  virtual double stop_clock() = 0;
  virtual double clock_resolution_s() const = 0;
  // Largest element count one call accepts.
  virtual std::size_t max_count() const = 0;
};

}  // namespace ccb
