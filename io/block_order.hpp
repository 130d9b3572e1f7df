// The order in which a pass visits a region's blocks: front to back, or a
// random permutation (every block exactly once, as fio's random map), and
// for the mixed pattern which visits read and which write. Pure functions of
// (blocks, seed): every rank and every re-run draws the same order.
#pragma once
#include <cstdint>

namespace ccb {

class BlockOrder {
 public:
  BlockOrder(std::uint64_t blocks, bool random, std::uint64_t seed);
  std::uint64_t size() const { return blocks_; }
  // The k-th block visited, k < size(): a bijection of [0, size()).
  std::uint64_t at(std::uint64_t k) const;

 private:
  std::uint64_t permute(std::uint64_t x) const;  // bijection of [0, 2^(2 half_bits))
  std::uint64_t blocks_;
  bool random_;
  unsigned half_bits_ = 1;
  std::uint64_t keys_[4] = {};
};

// Thread t of `threads` takes visits [first, end) of the order: contiguous
// slices, together all of them.
struct Slice {
  std::uint64_t first, end;
};
inline Slice thread_slice(std::uint64_t visits, int t, int threads) {
  const auto T = static_cast<std::uint64_t>(threads), i = static_cast<std::uint64_t>(t);
  return {visits * i / T, visits * (i + 1) / T};
}

// Mixed pattern: whether visit k reads (read_percent of the visits, spread
// evenly by a hash of (seed, k)).
bool visit_reads(std::uint64_t seed, std::uint64_t k, int read_percent);

std::uint64_t mix64(std::uint64_t x);  // splitmix64's finaliser

}  // namespace ccb
