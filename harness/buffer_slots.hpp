// Where in each local rank's buffers iteration k runs: pure arithmetic, so
// that a sweep to 8 GiB never holds more than one iteration's arguments.
//
// Three layouts: fixed (every iteration on the same bytes), --rotate-buffers
// (page-aligned slots of an arena twice the cache beyond the largest point)
// and nccl-tests' buffer shift (--buffer-shift; the nccl backend's default):
// iteration k starts (k mod (span / size)) sizes into buffers of `span`
// bytes, span being -e (or the largest planned buffer when that is larger).
#pragma once
#include <cstddef>

namespace ccb {

// One local rank's buffers.
struct PointBuffers {
  void* send = nullptr;
  void* recv = nullptr;  // also the single buffer of in-place runs
  std::size_t recv_capacity_count = 0;
  std::size_t arena_bytes = 0;  // --rotate-buffers: each buffer's size, rotated through (0: off)
  std::size_t shift_bytes = 0;  // the buffer shift's span: each buffer's size (0: off)
};

struct BufferSlots {
  std::size_t slot_bytes = 0;  // from one slot's start to the next
  std::size_t slots = 1;
  bool shifted = false;  // the buffer shift: only slot 0 is filled and checked
  // Byte offset of iteration k's slot (k >= 0; the warm-up's k too).
  std::size_t offset(long k) const { return slots <= 1 ? 0 : static_cast<std::size_t>(k) % slots * slot_bytes; }
};

// The slots of a point whose larger buffer needs `need` bytes. Every slot
// lies inside the buffers: offset(k) + need <= the buffer size.
BufferSlots buffer_slots(const PointBuffers& b, std::size_t need);

}  // namespace ccb
