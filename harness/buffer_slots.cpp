#include "harness/buffer_slots.hpp"

#include <algorithm>

namespace ccb {

BufferSlots buffer_slots(const PointBuffers& b, std::size_t need) {
  constexpr std::size_t kPage = 4096;
  BufferSlots s;
  if (b.arena_bytes > 0) {  // --rotate-buffers
    s.slot_bytes = (need + kPage - 1) / kPage * kPage;
    s.slots = s.slot_bytes == 0 ? 1 : std::max<std::size_t>(1, b.arena_bytes / s.slot_bytes);
    return s;
  }
  if (b.shift_bytes > 0 && need > 0) {  // the buffer shift (nccl-tests: steps = maxbytes / size)
    s.shifted = true;
    s.slot_bytes = need;
    s.slots = std::max<std::size_t>(1, b.shift_bytes / need);
    return s;
  }
  s.slot_bytes = need;
  return s;
}

}  // namespace ccb
