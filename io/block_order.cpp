#include "io/block_order.hpp"

namespace ccb {

std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

BlockOrder::BlockOrder(std::uint64_t blocks, bool random, std::uint64_t seed) : blocks_(blocks), random_(random) {
  // A Feistel network on 2 x half_bits bits: the smallest even width that
  // holds every block, so that cycle-walking (re-permuting values >= blocks)
  // takes fewer than 4 steps on average.
  while (half_bits_ < 32 && (std::uint64_t{1} << (2 * half_bits_)) < blocks) ++half_bits_;
  for (int r = 0; r < 4; ++r) keys_[r] = mix64(seed * 4 + static_cast<std::uint64_t>(r) + 1);
}

std::uint64_t BlockOrder::permute(std::uint64_t x) const {
  const std::uint64_t mask = (std::uint64_t{1} << half_bits_) - 1;
  std::uint64_t left = x >> half_bits_, right = x & mask;
  for (const std::uint64_t key : keys_) {
    const std::uint64_t next = left ^ (mix64(right ^ key) & mask);
    left = right;
    right = next;
  }
  return (left << half_bits_) | right;
}

std::uint64_t BlockOrder::at(std::uint64_t k) const {
  if (!random_) return k;
  std::uint64_t x = permute(k);
  while (x >= blocks_) x = permute(x);
  return x;
}

bool visit_reads(std::uint64_t seed, std::uint64_t k, int read_percent) {
  return static_cast<int>(mix64(seed ^ mix64(k)) % 100) < read_percent;
}

}  // namespace ccb
