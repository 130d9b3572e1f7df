// Sizes multiplied and summed without wrapping: a product or sum that does
// not fit saturates at the largest value, so a plan that cannot fit is
// refused by the check it feeds (free space, memory) instead of wrapping to
// a small number that passes it.
#pragma once
#include <cstdint>
#include <limits>

namespace ccb {

inline constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();

inline std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? kSaturated : r;
}

inline std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? kSaturated : r;
}

}  // namespace ccb
