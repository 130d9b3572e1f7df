#include <gtest/gtest.h>

#include "collectives/collective.hpp"
#include "harness/sizes.hpp"
#include "harness/usage_error.hpp"

namespace ccb {

TEST(Sizes, ParsesBinarySuffixes) {
  EXPECT_EQ(parse_size("8"), 8u);
  EXPECT_EQ(parse_size("64K"), 65536u);
  EXPECT_EQ(parse_size("1M"), 1048576u);
  EXPECT_EQ(parse_size("2G"), 2147483648u);
  EXPECT_EQ(parse_size("1g"), 1073741824u);
  EXPECT_EQ(parse_size("3KB"), 3072u);
  EXPECT_EQ(parse_size("1T"), 1ull << 40);
  EXPECT_EQ(parse_size("0"), 0u);
}

TEST(Sizes, RejectsWhatIsNotASize) {
  for (const char* bad : {"", "K", "-1", "1.5M", "8X", "8 K", "1MM", "99999999999999999999", "17179869184G"})
    EXPECT_FALSE(parse_size(bad).has_value()) << bad;
}

TEST(Sizes, FormatsLargestExactUnit) {
  EXPECT_EQ(format_size(1024), "1K");
  EXPECT_EQ(format_size(1536), "1536");
  EXPECT_EQ(format_size(64u << 20), "64M");
  EXPECT_EQ(format_size(0), "0");
}

TEST(Sizes, SweepByFactorAndByStep) {
  EXPECT_EQ(sweep_sizes(8, 64, 0, 2), (std::vector<std::size_t>{8, 16, 32, 64}));
  EXPECT_EQ(sweep_sizes(8, 100, 0, 4), (std::vector<std::size_t>{8, 32}));
  EXPECT_EQ(sweep_sizes(1024, 4096, 1024, 1), (std::vector<std::size_t>{1024, 2048, 3072, 4096}));
  EXPECT_EQ(sweep_sizes(32u << 20, 32u << 20, 1u << 20, 1), (std::vector<std::size_t>{32u << 20}));
  EXPECT_EQ(sweep_sizes(0, 8, 0, 2), (std::vector<std::size_t>{0, 1, 2, 4, 8}));
}

TEST(Sizes, SweepErrorsNameTheFlags) {
  EXPECT_THROW(sweep_sizes(64, 8, 0, 2), UsageError);
  EXPECT_THROW(sweep_sizes(8, 64, 0, 1), UsageError);
  EXPECT_THROW(sweep_sizes(8, 64, 0, 0), UsageError);
  EXPECT_THROW(sweep_sizes(1, 1u << 30, 1, 1), UsageError);
  try {
    sweep_sizes(64, 8, 0, 2);
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("-b/--minbytes"), std::string::npos);
  }
}

TEST(Sizes, PlanRoundsDownToWhatTheCollectiveNeeds) {
  const Collective& ag = *find_collective("all_gather");
  const auto pts = plan_points({8, 16, 32, 64, 1000}, ag, DType::float32, 3, false);
  // unit = 4 B x 3 ranks = 12 B: 8 -> 12 (raised), 16 -> 12 (repeat, dropped), 32 -> 24, 64 -> 60, 1000 -> 996
  ASSERT_EQ(pts.size(), 4u);
  EXPECT_EQ(pts[0].bytes, 12u);
  EXPECT_EQ(pts[0].count, 3u);
  EXPECT_EQ(pts[0].chunk, 1u);
  EXPECT_EQ(pts[1].bytes, 24u);
  EXPECT_EQ(pts[3].bytes, 996u);
  EXPECT_EQ(pts[3].requested_bytes, 1000u);
  const auto ar = plan_points({10}, *find_collective("all_reduce"), DType::float64, 3, false);
  EXPECT_EQ(ar[0].bytes, 8u);
  EXPECT_EQ(ar[0].chunk, 1u);
}

TEST(Sizes, StrictPlanRefusesToRound) {
  EXPECT_THROW(plan_points({16}, *find_collective("alltoall"), DType::float32, 3, true), UsageError);
  EXPECT_NO_THROW(plan_points({24}, *find_collective("alltoall"), DType::float32, 3, true));
}

}  // namespace ccb
