// fp8 <-> float conversions for the OCP 8-bit formats NCCL reduces:
//   e4m3 ("E4M3FN"): bias 7, 3 mantissa bits, no infinities, S.1111.111 is NaN, largest 448;
//   e5m2: bias 15, 2 mantissa bits, IEEE-like (infinities and NaNs at exponent 31).
// Float -> fp8 rounds to nearest even and saturates to the largest finite
// value (as CUDA's __NV_SATFINITE does); NaN stays NaN. Host and device share
// these definitions.
#pragma once
#include <cstdint>

#include "kernels/half.hpp"

namespace ccb {
inline namespace CCB_ISA_NAMESPACE {

template <int MBits, int Bias, uint32_t MaxFinite>
struct Fp8Format {
  static constexpr int mbits = MBits;
  static constexpr int bias = Bias;
  static constexpr uint32_t max_finite = MaxFinite;  // code of the largest finite value
};
using E4M3 = Fp8Format<3, 7, 0x7E>;
using E5M2 = Fp8Format<2, 15, 0x7B>;

template <class F>
CCB_HD inline float fp8_to_float(uint8_t b) {
  const uint32_t sign = (uint32_t{b} & 0x80u) << 24;
  const uint32_t e = (uint32_t{b} & 0x7Fu) >> F::mbits;
  const uint32_t m = uint32_t{b} & ((1u << F::mbits) - 1u);
  constexpr uint32_t emax = (1u << (7 - F::mbits)) - 1u;
  const bool is_nan = F::max_finite == 0x7E ? (e == emax && m == (1u << F::mbits) - 1u) : (e == emax && m != 0);
  const bool is_inf = F::max_finite != 0x7E && e == emax && m == 0;
  // Subnormal: m x 2^(1 - bias - mbits); normal: exponent and mantissa moved into float's fields.
  const float sub = static_cast<float>(m) * bits_f32(static_cast<uint32_t>(127 + 1 - F::bias - F::mbits) << 23);
  const uint32_t normal = ((e + 127u - F::bias) << 23) | (m << (23 - F::mbits));
  const uint32_t magnitude = is_nan ? 0x7FC00000u : is_inf ? 0x7F800000u : e == 0 ? f32_bits(sub) : normal;
  return bits_f32(sign | magnitude);
}

template <class F>
CCB_HD inline uint8_t float_to_fp8(float f) {
  const uint32_t u = f32_bits(f);
  const uint32_t sign = (u >> 24) & 0x80u;
  const uint32_t a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return static_cast<uint8_t>(sign | 0x7Fu);
  const int exp = static_cast<int>(a >> 23) - 127;
  uint32_t code;
  if (exp < 1 - F::bias) {
    // Below the smallest normal: count units of the smallest subnormal, rounded to nearest even.
    const uint32_t mant = (a & 0x7FFFFFu) | (a >= 0x00800000u ? 0x800000u : 0u);
    const int s = 23 + 1 - F::bias - F::mbits - exp;
    code = s > 24 ? 0u : (mant + (1u << (s - 1)) - 1u + ((mant >> s) & 1u)) >> s;
  } else {
    constexpr int shift = 23 - F::mbits;
    const uint32_t rounded = (a + (1u << (shift - 1)) - 1u + ((a >> shift) & 1u)) >> shift;
    code = rounded - (static_cast<uint32_t>(127 - F::bias) << F::mbits);
  }
  return static_cast<uint8_t>(sign | (code > F::max_finite ? F::max_finite : code));
}

}  // namespace CCB_ISA_NAMESPACE
}  // namespace ccb
