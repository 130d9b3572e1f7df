// The host-memory ceiling of a shared-memory run (docs/expect.md "The
// limit"), measured beside it: every rank of the node copies a buffer larger
// than the caches at once, as the collective's ranks do, and the median of
// the ranks' best rates is the limit of busbw (each byte a rank receives
// through shared memory is copied by a core at least once, and busbw counts
// each received byte once).
#pragma once
#include <cstddef>
#include <string>

#include "harness/comm.hpp"

namespace ccb {

struct MemoryCopyRate {
  double gbps = 0;  // GB/s (1e9 bytes/s) copied by one rank while every rank copies; 0: not measured
  std::string how;  // "2 ranks copying 32 MiB each at once, best of 4 per rank, median over ranks"
};

// Collective over `comm` (every rank of one node). ~50 ms on a 2-core host.
MemoryCopyRate measure_memory_copy(const Comm& comm, std::size_t bytes = std::size_t{32} << 20, int repeats = 4);

}  // namespace ccb
