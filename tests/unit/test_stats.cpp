#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "harness/sampling.hpp"
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

namespace ccb {

TEST(Stats, MedianPrecisionIsTheLargerHalfWidth) {
  // 1..100: median 50.5; the 95% interval of the median is the 40th..61st order statistics.
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  const Summary s = summarize(v);
  ASSERT_TRUE(s.ci95_lo && s.ci95_hi);
  EXPECT_DOUBLE_EQ(*s.ci95_lo, 40);
  EXPECT_DOUBLE_EQ(*s.ci95_hi, 61);
  EXPECT_DOUBLE_EQ(*median_precision(s), (61 - 50.5) / 50.5);
  EXPECT_DOUBLE_EQ(*median_precision(summarize(std::vector<double>(50, 3.0))), 0.0);
  EXPECT_FALSE(median_precision(summarize({1, 2, 3})).has_value());  // no interval below 6 samples
}

TEST(Stats, MedianPrecisionShrinksLikeOneOverRootN) {
  // Exponential samples (skewed, far from normal): quadrupling n halves the width.
  std::mt19937 rng(11);
  std::exponential_distribution<double> exp1(1.0);
  double w1 = 0, w4 = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> a, b;
    for (int i = 0; i < 400; ++i) a.push_back(1 + exp1(rng));
    for (int i = 0; i < 1600; ++i) b.push_back(1 + exp1(rng));
    w1 += *median_precision(summarize(a));
    w4 += *median_precision(summarize(b));
  }
  EXPECT_NEAR(w1 / w4, 2.0, 0.2);
}

TEST(Sampling, StopRules) {
  Config c;
  Summary tight = summarize(std::vector<double>(100, 5.0));
  std::vector<double> wide_v;
  for (int i = 1; i <= 100; ++i) wide_v.push_back(i);
  const Summary wide = summarize(wide_v);
  EXPECT_EQ(stop_reason(c, wide, 0, 100), "fixed");  // no --precision, no --time-per-size
  c.precision = 0.01;
  EXPECT_EQ(stop_reason(c, tight, 0.1, 100), "precision");
  EXPECT_EQ(stop_reason(c, wide, 0.1, 100), "");
  EXPECT_EQ(stop_reason(c, wide, 11, 100), "max_time_per_size");
  c.max_iters = 100;
  EXPECT_EQ(stop_reason(c, wide, 0.1, 100), "max_iters");
  c = Config{};
  c.time_per_size = 0.5;
  EXPECT_EQ(stop_reason(c, tight, 0.2, 100), "");  // precision alone does not stop a timed run
  EXPECT_EQ(stop_reason(c, tight, 0.5, 100), "time_per_size");
}

// -I 1's summary uses nccl-tests' definitions (src/util.cu computeIterStats),
// not ccbench's interpolated quantiles: checked on values where they differ.
TEST(Stats, InLoopStatsAreNcclTests) {
  const InLoopStats s = in_loop_stats({4, 1, 3, 2});
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 4);
  EXPECT_EQ(s.p50, 3);  // sorted[n / 2], where the interpolated median is 2.5
  EXPECT_EQ(s.p95, 4);  // index min(n - 1, ceil(n p / 100) - 1)
  EXPECT_EQ(s.avg, 2.5);
  EXPECT_DOUBLE_EQ(s.stdev, std::sqrt(1.25));  // over n, not n - 1
  EXPECT_DOUBLE_EQ(s.cv_pct, std::sqrt(1.25) / 2.5 * 100);
  std::vector<double> hundred(100);
  for (int i = 0; i < 100; ++i) hundred[static_cast<std::size_t>(i)] = i + 1;
  EXPECT_EQ(in_loop_stats(hundred).p99, 99);
  EXPECT_EQ(in_loop_stats(hundred).p95, 95);
  EXPECT_EQ(in_loop_stats({}).cv_pct, 0);
}

}  // namespace ccb
