#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "kernels/fp8.hpp"

namespace ccb {
namespace {

template <class F>
bool is_nan_code(uint8_t b) {
  return std::isnan(fp8_to_float<F>(b));
}

// The reference: the finite code nearest to f, ties to the even code,
// beyond the largest finite value saturated.
template <class F>
uint8_t nearest_code(float f) {
  if (std::isnan(f)) return 0x7F;
  const uint8_t sign = std::signbit(f) ? 0x80 : 0;
  const double a = std::fabs(static_cast<double>(f));
  uint32_t best = 0;
  for (uint32_t c = 1; c <= F::max_finite; ++c) {
    const double dc = std::fabs(a - fp8_to_float<F>(static_cast<uint8_t>(c)));
    const double db = std::fabs(a - fp8_to_float<F>(static_cast<uint8_t>(best)));
    if (dc < db || (dc == db && (c & 1) == 0)) best = c;
  }
  if (a > fp8_to_float<F>(static_cast<uint8_t>(F::max_finite))) best = F::max_finite;
  return static_cast<uint8_t>(sign | best);
}

template <class F>
void every_code_round_trips() {
  for (uint32_t b = 0; b < 256; ++b) {
    const auto code = static_cast<uint8_t>(b);
    const float f = fp8_to_float<F>(code);
    if (std::isnan(f)) {
      EXPECT_TRUE(is_nan_code<F>(float_to_fp8<F>(f))) << b;
    } else if (std::isinf(f)) {
      EXPECT_EQ(float_to_fp8<F>(f), (b & 0x80u) | F::max_finite) << b;  // saturates
    } else {
      EXPECT_EQ(float_to_fp8<F>(f), code) << b;
    }
  }
}

template <class F>
void matches_nearest_code_reference() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> mag(-12.0f, 17.0f);
  for (int k = 0; k < 20000; ++k) {
    const float f = std::ldexp(1.0f, 0) * std::exp2(mag(rng)) * (k & 1 ? -1.0f : 1.0f);
    ASSERT_EQ(float_to_fp8<F>(f), nearest_code<F>(f)) << f;
  }
  // Every midpoint between neighbouring codes: ties go to the even code.
  for (uint32_t c = 0; c < F::max_finite; ++c) {
    const float mid = (fp8_to_float<F>(static_cast<uint8_t>(c)) + fp8_to_float<F>(static_cast<uint8_t>(c + 1))) / 2;
    EXPECT_EQ(float_to_fp8<F>(mid), (c & 1) ? c + 1 : c) << mid;
  }
}

}  // namespace

TEST(Fp8, E4M3EveryCodeRoundTrips) { every_code_round_trips<E4M3>(); }
TEST(Fp8, E5M2EveryCodeRoundTrips) { every_code_round_trips<E5M2>(); }
TEST(Fp8, E4M3RoundsToNearestEven) { matches_nearest_code_reference<E4M3>(); }
TEST(Fp8, E5M2RoundsToNearestEven) { matches_nearest_code_reference<E5M2>(); }

TEST(Fp8, KnownValues) {
  EXPECT_EQ(float_to_fp8<E4M3>(1.0f), 0x38);
  EXPECT_EQ(float_to_fp8<E4M3>(448.0f), 0x7E);
  EXPECT_EQ(float_to_fp8<E4M3>(1e6f), 0x7E);  // saturates
  EXPECT_EQ(float_to_fp8<E4M3>(-1e6f), 0xFE);
  EXPECT_EQ(float_to_fp8<E4M3>(std::ldexp(1.0f, -9)), 0x01);        // smallest subnormal
  EXPECT_EQ(float_to_fp8<E4M3>(17.0f), float_to_fp8<E4M3>(16.0f));  // tie to even
  EXPECT_EQ(float_to_fp8<E5M2>(1.0f), 0x3C);
  EXPECT_EQ(float_to_fp8<E5M2>(57344.0f), 0x7B);
  EXPECT_EQ(float_to_fp8<E5M2>(std::numeric_limits<float>::infinity()), 0x7B);
  EXPECT_EQ(float_to_fp8<E5M2>(std::ldexp(1.0f, -16)), 0x01);
  EXPECT_TRUE(std::isinf(fp8_to_float<E5M2>(0x7C)));
  EXPECT_TRUE(std::isnan(fp8_to_float<E4M3>(0x7F)));
  EXPECT_FLOAT_EQ(fp8_to_float<E4M3>(0x7E), 448.0f);
}

TEST(Fp8, SmallIntegersAreExactUpToTheDtypeLimit) {
  for (int v = -16; v <= 16; ++v) EXPECT_EQ(fp8_to_float<E4M3>(float_to_fp8<E4M3>(float(v))), float(v));
  for (int v = -8; v <= 8; ++v) EXPECT_EQ(fp8_to_float<E5M2>(float_to_fp8<E5M2>(float(v))), float(v));
  EXPECT_NE(fp8_to_float<E4M3>(float_to_fp8<E4M3>(17.0f)), 17.0f);
  EXPECT_NE(fp8_to_float<E5M2>(float_to_fp8<E5M2>(9.0f)), 9.0f);
}

}  // namespace ccb
