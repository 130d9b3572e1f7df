// Compiled twice (see CMakeLists.txt): CCB_KERNELS_ENTRY names the table this
// copy defines. Nothing here may differ in results between the two copies.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>
#include <type_traits>

#include "kernels/element.hpp"
#include "kernels/host_kernels.hpp"

#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace ccb {
namespace {

// Splits [0, count) into blocks and calls body(start, len, lo, hi, sub) for
// each, so that expected_at() can form pattern_mix(first + start + k) in
// 32-bit lanes: low32(i) = lo + k and low32(i >> 8) = hi + ((sub + k) >> 8).
template <class Body>
inline void for_each_mix(std::size_t count, uint64_t first, Body&& body) {
  constexpr std::size_t kBlock = std::size_t{1} << 20;
  for (std::size_t start = 0; start < count; start += kBlock) {
    const std::size_t len = count - start < kBlock ? count - start : kBlock;
    const uint64_t base = first + start;
    const uint32_t lo = static_cast<uint32_t>(base), hi = static_cast<uint32_t>(base >> 8);
    const uint32_t sub = static_cast<uint32_t>(base & 255u);
    body(start, len, lo, hi, sub);
  }
}

// The expected element k of a block (inputs of `rank`, or the reduced result).
template <DType D, PatternKind K, bool Result>
inline element_t<D> expected_at(const Pattern& p, int rank, uint32_t lo, uint32_t hi, uint32_t sub, uint32_t k) {
  const uint32_t h = (lo + k) ^ (hi + ((sub + k) >> 8));
  return from_exact_int<D>(Result ? pattern_result<K>(p, h) : pattern_input<K>(p, rank, h));
}

// Writes the expected values straight from the formula.
template <DType D, PatternKind K, bool Result>
void generate(const Pattern& p, int rank, element_t<D>* __restrict out, std::size_t count, uint64_t first) {
  for_each_mix(count, first, [&](std::size_t start, std::size_t len, uint32_t lo, uint32_t hi, uint32_t sub) {
    element_t<D>* __restrict o = out + start;
    for (uint32_t k = 0; k < len; ++k) o[k] = expected_at<D, K, Result>(p, rank, lo, hi, sub, k);
  });
}

// For 1- and 2-byte dtypes every pattern uses at most b low bits of the index
// mix (b = 8, or 11 for half), which depend on the low b + 8 bits of the
// index: the expected sequence repeats with period 2^(b+8). Long buffers are
// filled and checked against one cached period, at memcpy-like speed.
template <DType D>
constexpr unsigned period_bits() {
  return sizeof(element_t<D>) > 2 ? 0 : (D == DType::half ? 19 : 16);
}

bool same_pattern(const Pattern& a, const Pattern& b) {
  return a.kind == b.kind && a.nranks == b.nranks && a.mask == b.mask && a.bias == b.bias && a.active == b.active &&
         a.prod_bits == b.prod_bits && a.extreme_off == b.extreme_off && a.degenerate == b.degenerate;
}

template <DType D, PatternKind K, bool Result>
const element_t<D>* period_table(const Pattern& p, int rank) {
  struct Cache {
    bool valid = false;
    Pattern pattern;
    int rank = 0;
    std::vector<element_t<D>> values;
  };
  thread_local Cache cache;
  if (!cache.valid || cache.rank != rank || !same_pattern(cache.pattern, p)) {
    cache.values.resize(std::size_t{1} << period_bits<D>());
    generate<D, K, Result>(p, rank, cache.values.data(), cache.values.size(), 0);
    cache = Cache{true, p, rank, std::move(cache.values)};
  }
  return cache.values.data();
}

// Calls f(k, index, len) over runs of the buffer that map to contiguous table entries.
template <class F>
void for_each_period_run(std::size_t count, uint64_t first, unsigned bits, F&& f) {
  const uint64_t period = uint64_t{1} << bits;
  for (std::size_t k = 0; k < count;) {
    const uint64_t index = (first + k) & (period - 1);
    const std::size_t len = static_cast<std::size_t>(std::min<uint64_t>(count - k, period - index));
    f(k, static_cast<std::size_t>(index), len);
    k += len;
  }
}

template <DType D>
constexpr bool use_table(std::size_t count) {
  return period_bits<D>() > 0 && count >= (std::size_t{1} << period_bits<D>());
}

template <DType D, PatternKind K>
void fill_loop(const Pattern& p, int rank, element_t<D>* __restrict out, std::size_t count, uint64_t first) {
  if (use_table<D>(count)) {
    const element_t<D>* table = period_table<D, K, false>(p, rank);
    for_each_period_run(count, first, period_bits<D>(), [&](std::size_t k, std::size_t index, std::size_t len) {
      std::memcpy(out + k, table + index, len * sizeof(element_t<D>));
    });
    return;
  }
  generate<D, K, false>(p, rank, out, count, first);
}

template <DType D, PatternKind K, bool Result>
std::size_t verify_loop(const Pattern& p, int rank, const element_t<D>* __restrict in, std::size_t count,
                        uint64_t first) {
  std::size_t wrong = 0;
  if (use_table<D>(count)) {
    const element_t<D>* __restrict table = period_table<D, K, Result>(p, rank);
    for_each_period_run(count, first, period_bits<D>(), [&](std::size_t k, std::size_t index, std::size_t len) {
      const element_t<D>* __restrict x = in + k;
      const element_t<D>* __restrict e = table + index;
      uint32_t w = 0;  // a run is at most 2^19 long
      for (std::size_t j = 0; j < len; ++j) w += x[j] != e[j];
      wrong += w;
    });
    return wrong;
  }
  for_each_mix(count, first, [&](std::size_t start, std::size_t len, uint32_t lo, uint32_t hi, uint32_t sub) {
    const element_t<D>* __restrict x = in + start;
    uint32_t w = 0;  // per block: at most 2^20, and a 32-bit counter keeps the lanes 32-bit
    for (uint32_t k = 0; k < len; ++k) w += x[k] != expected_at<D, K, Result>(p, rank, lo, hi, sub, k);
    wrong += w;
  });
  return wrong;
}

void fill_input(DType dtype, const Pattern& p, int rank, void* buf, std::size_t count, uint64_t first) {
  visit_dtype(dtype, [&](auto d) {
    visit_kind(p.kind, [&](auto k) {
      fill_loop<decltype(d)::value, decltype(k)::value>(p, rank, static_cast<element_t<decltype(d)::value>*>(buf),
                                                        count, first);
    });
  });
}

std::size_t count_wrong_input(DType dtype, const Pattern& p, int rank, const void* buf, std::size_t count,
                              uint64_t first) {
  return visit_dtype(dtype, [&](auto d) {
    return visit_kind(p.kind, [&](auto k) {
      return verify_loop<decltype(d)::value, decltype(k)::value, false>(
          p, rank, static_cast<const element_t<decltype(d)::value>*>(buf), count, first);
    });
  });
}

std::size_t count_wrong_result(DType dtype, const Pattern& p, const void* buf, std::size_t count, uint64_t first) {
  return visit_dtype(dtype, [&](auto d) {
    return visit_kind(p.kind, [&](auto k) {
      return verify_loop<decltype(d)::value, decltype(k)::value, true>(
          p, 0, static_cast<const element_t<decltype(d)::value>*>(buf), count, first);
    });
  });
}

// Arithmetic type used to combine two elements, and the conversions to it.
template <DType D>
struct Compute {
  using type = element_t<D>;
  static type load(element_t<D> v) { return v; }
  static element_t<D> store(type v) { return v; }
};
template <>
struct Compute<DType::half> {
  using type = float;
  static float load(uint16_t v) { return half_to_float(v); }
  static uint16_t store(float v) { return float_to_half(v); }
};
template <>
struct Compute<DType::bfloat16> {
  using type = float;
  static float load(uint16_t v) { return bf16_to_float(v); }
  static uint16_t store(float v) { return float_to_bf16(v); }
};

template <class F>
struct Fp8Compute {
  using type = float;
  static float load(uint8_t v) { return fp8_to_float<F>(v); }
  static uint8_t store(float v) { return float_to_fp8<F>(v); }
};
template <>
struct Compute<DType::f8e4m3> : Fp8Compute<E4M3> {};
template <>
struct Compute<DType::f8e5m2> : Fp8Compute<E5M2> {};

// Signed integers wrap like MPI implementations do, computed in the unsigned
// type so that overflow is defined (the patterns never overflow; random data
// in the tests does).
template <ReduceOp Op, class T>
inline T combine(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && (Op == ReduceOp::sum || Op == ReduceOp::prod)) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(combine<Op, U>(static_cast<U>(a), static_cast<U>(b)));
  } else if constexpr (Op == ReduceOp::sum) return static_cast<T>(a + b);
  else if constexpr (Op == ReduceOp::prod) return static_cast<T>(a * b);
  else if constexpr (Op == ReduceOp::min) return a < b ? a : b;
  else return a > b ? a : b;
}

template <DType D, ReduceOp Op>
void reduce_loop(const element_t<D>* __restrict in, element_t<D>* __restrict inout, std::size_t n) {
  using C = Compute<D>;
  std::size_t k = 0;
#if defined(__AVX2__)
  if constexpr (D == DType::bfloat16) {
    // 16 elements a step. bf16 -> float is an interleave with zeros; unpacklo/hi
    // and packus work within 128-bit lanes, so the order comes back unchanged.
    // Rounding is float_to_bf16's: nearest even, NaNs kept quiet.
    const __m256i zero = _mm256_setzero_si256(), quiet = _mm256_set1_epi32(0x40);
    const __m256i bias = _mm256_set1_epi32(0x7FFF), one = _mm256_set1_epi32(1);
    const __m256i abs_mask = _mm256_set1_epi32(0x7FFFFFFF), inf = _mm256_set1_epi32(0x7F800000);
    const auto op = [](__m256 a, __m256 b) {
      if constexpr (Op == ReduceOp::sum) return _mm256_add_ps(a, b);
      else if constexpr (Op == ReduceOp::prod) return _mm256_mul_ps(a, b);
      else if constexpr (Op == ReduceOp::min) return _mm256_min_ps(a, b);  // a < b ? a : b
      else return _mm256_max_ps(a, b);                                     // a > b ? a : b
    };
    const auto to_bf16_bits = [&](__m256 r) {
      const __m256i u = _mm256_castps_si256(r);
      const __m256i high = _mm256_srli_epi32(u, 16);
      const __m256i rounded =
          _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, bias), _mm256_and_si256(high, one)), 16);
      const __m256i is_nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, abs_mask), inf);
      return _mm256_blendv_epi8(rounded, _mm256_or_si256(high, quiet), is_nan);
    };
    for (; k + 16 <= n; k += 16) {
      const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + k));
      const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(inout + k));
      const __m256 lo =
          op(_mm256_castsi256_ps(_mm256_unpacklo_epi16(zero, x)), _mm256_castsi256_ps(_mm256_unpacklo_epi16(zero, y)));
      const __m256 hi =
          op(_mm256_castsi256_ps(_mm256_unpackhi_epi16(zero, x)), _mm256_castsi256_ps(_mm256_unpackhi_epi16(zero, y)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(inout + k),
                          _mm256_packus_epi32(to_bf16_bits(lo), to_bf16_bits(hi)));
    }
  }
#endif
#if defined(__F16C__) && defined(__AVX__)
  if constexpr (D == DType::half) {  // 8 lanes of hardware conversion, same rounding (nearest even)
    for (; k + 8 <= n; k += 8) {
      const __m256 a = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + k)));
      const __m256 b = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(inout + k)));
      __m256 r;
      if constexpr (Op == ReduceOp::sum) r = _mm256_add_ps(a, b);
      else if constexpr (Op == ReduceOp::prod) r = _mm256_mul_ps(a, b);
      else if constexpr (Op == ReduceOp::min) r = _mm256_min_ps(a, b);  // a < b ? a : b
      else r = _mm256_max_ps(a, b);                                     // a > b ? a : b
      _mm_storeu_si128(reinterpret_cast<__m128i*>(inout + k), _mm256_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT));
    }
  }
#endif
  for (; k < n; ++k) inout[k] = C::store(combine<Op>(C::load(in[k]), C::load(inout[k])));
}

void reduce_into(DType dtype, ReduceOp op, const void* in, void* inout, std::size_t count) {
  visit_dtype(dtype, [&](auto d) {
    constexpr DType D = decltype(d)::value;
    const auto* a = static_cast<const element_t<D>*>(in);
    auto* b = static_cast<element_t<D>*>(inout);
    switch (op) {
      case ReduceOp::sum: return reduce_loop<D, ReduceOp::sum>(a, b, count);
      case ReduceOp::prod: return reduce_loop<D, ReduceOp::prod>(a, b, count);
      case ReduceOp::min: return reduce_loop<D, ReduceOp::min>(a, b, count);
      case ReduceOp::max: return reduce_loop<D, ReduceOp::max>(a, b, count);
      case ReduceOp::avg: break;
    }
    throw std::logic_error("reduce_into: avg is sum followed by divide_by_ranks");
  });
}

void divide_by_ranks(DType dtype, void* buf, std::size_t count, int nranks) {
  visit_dtype(dtype, [&](auto d) {
    constexpr DType D = decltype(d)::value;
    using C = Compute<D>;
    using T = typename C::type;
    auto* x = static_cast<element_t<D>*>(buf);
    const T divisor = static_cast<T>(nranks);
    for (std::size_t k = 0; k < count; ++k) x[k] = C::store(static_cast<T>(C::load(x[k]) / divisor));
  });
}

}  // namespace

const HostKernels& CCB_KERNELS_ENTRY() {
  static const HostKernels table{CCB_KERNELS_ISA,     &fill_input,  &count_wrong_input,
                                 &count_wrong_result, &reduce_into, &divide_by_ranks};
  return table;
}

}  // namespace ccb
