// The data patterns, defined once for host and device code.
//
// Every element value is a small integer, so it is exact in every dtype and
// every partial result of a reduction stays exact, in any order: the expected
// result has a closed form per element (no loop over ranks), which keeps
// verification as cheap as a streaming read.
//
//   h(i)                 = low32(i) XOR low32(i >> 8)      (index mix)
//   copy     v(r,i)      = ((h + 40503 r) & mask) - bias    (rank and index encoded)
//   sum      v(r,i)      = r < active ? (h & mask) + (r & 1) : 0
//            result(i)   = active (h & mask) + floor(active / 2)
//   avg      v(r,i)      = (h & mask) + 1 + d(r),  d(0) = +1, d(1) = -1, else 0
//            result(i)   = (h & mask) + 1        (sum is n times that, divides exactly)
//   min/max  v(r,i)      = (h & mask) + (off(r) & mask) - bias,  off(r) = (37 r + 11) & 63
//            result(i)   = (h & mask) + min_r/max_r (off(r) & mask) - bias
//   prod     v(r,i)      = r < bits ? 2^((h >> r) & 1) : 1
//            result(i)   = 2^popcount(h & (2^bits - 1))
//
// The parameters (mask, active, bits, bias) are chosen per dtype and rank
// count so that every partial sum or product stays within the dtype's exact
// integer range. When no non-trivial pattern fits (avg with more ranks than
// half the exact range), the avg pattern is all zeros ("degenerate").
#pragma once
#include <cstdint>
#include <type_traits>

#include "kernels/half.hpp"

namespace ccb {

enum class PatternKind : uint8_t { copy, sum, avg, min, max, prod };

struct Pattern {
  PatternKind kind = PatternKind::copy;
  int32_t nranks = 1;
  uint32_t mask = 0;
  int32_t bias = 0;
  int32_t active = 0;       // sum: ranks that contribute
  int32_t prod_bits = 0;    // prod: ranks that contribute a factor of 1 or 2
  int32_t extreme_off = 0;  // min/max: min or max over ranks of off(r)
  bool degenerate = false;  // avg: all zeros
};

inline namespace CCB_ISA_NAMESPACE {

CCB_HD inline uint32_t pattern_mix(uint64_t i) { return static_cast<uint32_t>(i) ^ static_cast<uint32_t>(i >> 8); }
CCB_HD inline int32_t minmax_offset(int32_t rank) { return (37 * rank + 11) & 63; }

CCB_HD inline int popcount32(uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __popc(x);
#else
  return __builtin_popcount(x);
#endif
}

// Value rank `rank` puts at the index whose mix is h = pattern_mix(i). The
// kind is a template parameter so that fill and verify loops carry no switch;
// every value fits in 32 bits (|v| <= 2^24), so loops run in 32-bit lanes.
template <PatternKind K>
CCB_HD inline int32_t pattern_input(const Pattern& p, int32_t rank, uint32_t h) {
  if constexpr (K == PatternKind::copy) {
    return static_cast<int32_t>((h + 40503u * static_cast<uint32_t>(rank)) & p.mask) - p.bias;
  } else if constexpr (K == PatternKind::sum) {
    return rank < p.active ? static_cast<int32_t>(h & p.mask) + (rank & 1) : 0;
  } else if constexpr (K == PatternKind::avg) {
    if (p.degenerate) return 0;
    const int32_t delta = p.nranks < 2 ? 0 : (rank == 0 ? 1 : (rank == 1 ? -1 : 0));
    return static_cast<int32_t>(h & p.mask) + 1 + delta;
  } else if constexpr (K == PatternKind::min || K == PatternKind::max) {
    return static_cast<int32_t>(h & p.mask) + (minmax_offset(rank) & static_cast<int32_t>(p.mask)) - p.bias;
  } else {
    return rank < p.prod_bits ? 1 << ((h >> rank) & 1u) : 1;
  }
}

// Value of the reduction over all ranks at the index whose mix is h (copy: 0).
template <PatternKind K>
CCB_HD inline int32_t pattern_result(const Pattern& p, uint32_t h) {
  if constexpr (K == PatternKind::sum) {
    return p.active * static_cast<int32_t>(h & p.mask) + p.active / 2;
  } else if constexpr (K == PatternKind::avg) {
    return p.degenerate ? 0 : static_cast<int32_t>(h & p.mask) + 1;
  } else if constexpr (K == PatternKind::min || K == PatternKind::max) {
    return static_cast<int32_t>(h & p.mask) + p.extreme_off - p.bias;
  } else if constexpr (K == PatternKind::prod) {
    return 1 << popcount32(h & ((1u << p.prod_bits) - 1u));
  } else {
    return 0;
  }
}

// Calls f(std::integral_constant<PatternKind, K>{}) for the runtime kind k
// (host code: fill and verify loops are instantiated per kind).
template <class F>
decltype(auto) visit_kind(PatternKind k, F&& f) {
  switch (k) {
    case PatternKind::sum: return f(std::integral_constant<PatternKind, PatternKind::sum>{});
    case PatternKind::avg: return f(std::integral_constant<PatternKind, PatternKind::avg>{});
    case PatternKind::min: return f(std::integral_constant<PatternKind, PatternKind::min>{});
    case PatternKind::max: return f(std::integral_constant<PatternKind, PatternKind::max>{});
    case PatternKind::prod: return f(std::integral_constant<PatternKind, PatternKind::prod>{});
    case PatternKind::copy: break;
  }
  return f(std::integral_constant<PatternKind, PatternKind::copy>{});
}

}  // namespace CCB_ISA_NAMESPACE
}  // namespace ccb
