#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "results/stats.hpp"

namespace ccb {

TEST(Stats, QuantilesInterpolate) {
  const std::vector<double> v{1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0.5), 3);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0.9), 4.6);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0.0), 1);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 1.0), 5);
}

TEST(Stats, MedianConfidenceRanksMatchBinomialTables) {
  EXPECT_FALSE(median_ci_ranks(5).has_value());  // 2 * 2^-5 = 6.25% > 5%
  EXPECT_EQ(median_ci_ranks(6)->lower, 1u);
  EXPECT_EQ(median_ci_ranks(6)->upper, 6u);
  EXPECT_EQ(median_ci_ranks(10)->lower, 2u);
  EXPECT_EQ(median_ci_ranks(10)->upper, 9u);
  EXPECT_EQ(median_ci_ranks(20)->lower, 6u);
  EXPECT_EQ(median_ci_ranks(20)->upper, 15u);
  EXPECT_EQ(median_ci_ranks(100)->lower, 40u);
  EXPECT_EQ(median_ci_ranks(100)->upper, 61u);
}

// Coverage check against a known, skewed distribution: the interval contains
// the true median in at least 95% of many repeated experiments.
TEST(Stats, MedianIntervalCoversTheTrueMedianOfAnExponential) {
  std::mt19937 rng(7);
  std::exponential_distribution<double> dist(1.0);
  const double true_median = std::log(2.0);
  int covered = 0;
  const int trials = 2000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> s(30);
    for (auto& x : s) x = dist(rng);
    const Summary sum = summarize(s);
    covered += *sum.ci95_lo <= true_median && true_median <= *sum.ci95_hi;
  }
  EXPECT_GE(covered, static_cast<int>(0.95 * trials) - 20);  // binomial noise allowance
}

TEST(Stats, SummaryOfKnownSample) {
  const Summary s = summarize({4, 1, 3, 2});
  EXPECT_EQ(s.n, 4u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 4);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.p50, 2.5);
  EXPECT_NEAR(s.stddev, std::sqrt(5.0 / 3.0), 1e-12);
  EXPECT_FALSE(s.ci95_lo.has_value());
  EXPECT_EQ(summarize({}).n, 0u);
}

}  // namespace ccb
