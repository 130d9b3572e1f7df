#include <gtest/gtest.h>

#include <cmath>

#include "kernels/half.hpp"

namespace ccb {

TEST(Half, EveryHalfRoundTripsThroughFloat) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = half_to_float(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(half_to_float(float_to_half(f))));
      continue;
    }
    EXPECT_EQ(float_to_half(f), h) << std::hex << h;
  }
}

TEST(Half, KnownValues) {
  EXPECT_EQ(float_to_half(1.0f), 0x3C00);
  EXPECT_EQ(float_to_half(-2.0f), 0xC000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7BFF);
  EXPECT_EQ(float_to_half(65520.0f), 0x7C00);       // rounds up to infinity
  EXPECT_EQ(float_to_half(5.9604645e-8f), 0x0001);  // smallest subnormal
  EXPECT_FLOAT_EQ(half_to_float(0x3555), 0.333251953125f);
}

TEST(Half, RoundsToNearestEven) {
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to the even mantissa (1.0).
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  // 1 + 3 * 2^-11 is halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even).
  EXPECT_EQ(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)), 0x3C01);
}

TEST(BFloat16, ConversionsAndRounding) {
  EXPECT_EQ(float_to_bf16(1.0f), 0x3F80);
  EXPECT_EQ(bf16_to_float(0xC000), -2.0f);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1.0).
  EXPECT_EQ(float_to_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3F80);
  EXPECT_EQ(float_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82);
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(std::nanf("")))));
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const float f = bf16_to_float(static_cast<uint16_t>(b));
    if (!std::isnan(f)) {
      EXPECT_EQ(float_to_bf16(f), b);
    }
  }
}

TEST(ExactIntConversions, MatchRoundingConversionsOverTheExactRange) {
  for (int v = -2048; v <= 2048; ++v) EXPECT_EQ(exact_int_to_half(v), float_to_half(static_cast<float>(v))) << v;
  for (int v = -256; v <= 256; ++v) EXPECT_EQ(exact_int_to_bf16(v), float_to_bf16(static_cast<float>(v))) << v;
}

}  // namespace ccb
