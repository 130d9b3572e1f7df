// fp16 and bfloat16 <-> float conversions (round to nearest even), branch-free
// so that loops over them vectorise. Host and device share these definitions.
#pragma once
#include <cstdint>
#include <cstring>

// Inline functions live in a namespace named after the instruction-set level
// their translation unit is compiled for, so that copies built with different
// -march flags never merge at link time (see host_kernels.hpp).
#ifndef CCB_ISA_NAMESPACE
#define CCB_ISA_NAMESPACE portable
#endif

#if defined(__CUDACC__)
#define CCB_HD __host__ __device__
#else
#define CCB_HD
#endif

namespace ccb {
inline namespace CCB_ISA_NAMESPACE {

CCB_HD inline uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
CCB_HD inline float bits_f32(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

CCB_HD inline float bf16_to_float(uint16_t b) { return bits_f32(uint32_t{b} << 16); }

CCB_HD inline uint16_t float_to_bf16(float f) {
  const uint32_t u = f32_bits(f);
  const uint32_t rounded = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
  const uint32_t quiet_nan = (u >> 16) | 0x40u;
  return static_cast<uint16_t>(((u & 0x7FFFFFFFu) > 0x7F800000u) ? quiet_nan : rounded);
}

// After F. Giesen, "half_to_float_fast5"/"float_to_half_fast3_rtne" (public domain).
CCB_HD inline float half_to_float(uint16_t h) {
  const uint32_t shifted_exp = 0x7C00u << 13;
  uint32_t o = (uint32_t{h} & 0x7FFFu) << 13;
  const uint32_t exp = shifted_exp & o;
  o += (127u - 15u) << 23;
  const uint32_t inf_nan = o + ((128u - 16u) << 23);
  const uint32_t denorm = f32_bits(bits_f32(o + (1u << 23)) - bits_f32(113u << 23));
  o = exp == shifted_exp ? inf_nan : (exp == 0 ? denorm : o);
  return bits_f32(o | ((uint32_t{h} & 0x8000u) << 16));
}

CCB_HD inline uint16_t float_to_half(float value) {
  const uint32_t f32_infinity = 255u << 23;
  const uint32_t f16_overflow = (127u + 16u) << 23;
  const uint32_t denorm_magic = ((127u - 15u) + (23u - 10u) + 1u) << 23;
  uint32_t f = f32_bits(value);
  const uint32_t sign = f & 0x80000000u;
  f ^= sign;
  const uint32_t big = f > f32_infinity ? 0x7E00u : 0x7C00u;
  const uint32_t small = f32_bits(bits_f32(f) + bits_f32(denorm_magic)) - denorm_magic;
  const uint32_t mant_odd = (f >> 13) & 1u;
  const uint32_t normal = (f + ((15u - 127u) << 23) + 0xFFFu + mant_odd) >> 13;
  const uint32_t o = f >= f16_overflow ? big : (f < (113u << 23) ? small : normal);
  return static_cast<uint16_t>(o | (sign >> 16));
}

// Exact conversions of small integers (|v| <= 2048 for half, <= 256 for
// bfloat16): no rounding needed, cheap enough for fill and verify loops.
CCB_HD inline uint16_t exact_int_to_half(int32_t v) {
  const uint32_t u = f32_bits(static_cast<float>(v));
  const uint32_t magnitude = u & 0x7FFFFFFFu;
  const uint32_t h = magnitude ? (magnitude >> 13) - (112u << 10) : 0u;
  return static_cast<uint16_t>(((u >> 16) & 0x8000u) | h);
}
CCB_HD inline uint16_t exact_int_to_bf16(int32_t v) {
  return static_cast<uint16_t>(f32_bits(static_cast<float>(v)) >> 16);
}

}  // namespace CCB_ISA_NAMESPACE
}  // namespace ccb
