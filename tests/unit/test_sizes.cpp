#include <gtest/gtest.h>

#include "collectives/collective.hpp"
#include "harness/sweep_sizes.hpp"
#include "common/errors.hpp"

namespace ccb {

TEST(Sizes, ParsesBinarySuffixes) {
  EXPECT_EQ(parse_size("8"), 8u);
  EXPECT_EQ(parse_size("64K"), 65536u);
  EXPECT_EQ(parse_size("1M"), 1048576u);
  EXPECT_EQ(parse_size("2G"), 2147483648u);
  EXPECT_EQ(parse_size("1g"), 1073741824u);
  EXPECT_EQ(parse_size("3KiB"), 3072u);
  EXPECT_EQ(parse_size("2mib"), 2u << 20);
  EXPECT_EQ(parse_size("1T"), 1ull << 40);
  EXPECT_EQ(parse_size("0"), 0u);
}

TEST(Sizes, RejectsWhatIsNotASize) {
  for (const char* bad : {"", "K", "-1", "1.5M", "8X", "8 K", "1MM", "99999999999999999999", "17179869184G"})
    EXPECT_FALSE(parse_size(bad).has_value()) << bad;
}

TEST(Sizes, RefusesDecimalUnitsWithAnExplanation) {
  for (const char* decimal : {"8MB", "3KB", "1gb", "2TB"}) EXPECT_FALSE(parse_size(decimal).has_value()) << decimal;
  EXPECT_EQ(size_error("8MB"),
            "'8MB': sizes are binary (K = 1024): write 8M or 8MiB; decimal KB, MB, GB are not taken");
  EXPECT_NE(size_error("8X").find("not a size"), std::string::npos);
}

TEST(Sizes, FormatsLargestExactUnit) {
  EXPECT_EQ(format_size(std::size_t{1024}), "1 KiB");
  EXPECT_EQ(format_size(std::size_t{1536}), "1.5 KiB");
  EXPECT_EQ(format_size(std::size_t{1048560}), "1024 KiB");  // not 1.02e+03 KiB
  EXPECT_EQ(format_size(std::size_t{64} << 20), "64 MiB");
  EXPECT_EQ(format_size(std::size_t{0}), "0 B");
  EXPECT_EQ(format_size(8.0), "8 B");
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
  // Per-rank count rounded down to 16 bytes (4 floats): 8, 16, 32 -> 0-byte rows
  // (kept, as nccl-tests prints them), 64 -> 16/3 = 5 -> 4 per rank, 48 B;
  // 1000 -> 250/3 = 83 -> 80 per rank, 960 B.
  ASSERT_EQ(pts.size(), 5u);
  EXPECT_EQ(pts[0].bytes, 0u);
  EXPECT_EQ(pts[2].bytes, 0u);
  EXPECT_EQ(pts[3].bytes, 48u);
  EXPECT_EQ(pts[3].count, 12u);
  EXPECT_EQ(pts[3].chunk, 4u);
  EXPECT_EQ(pts[3].shown_count(), 4u);
  EXPECT_EQ(pts[4].bytes, 960u);
  EXPECT_EQ(pts[4].requested_bytes, 1000u);
  const auto ar = plan_points({10}, *find_collective("all_reduce"), DType::float64, 3, false);
  EXPECT_EQ(ar[0].bytes, 8u);
  EXPECT_EQ(ar[0].shown_count(), 1u);
}

// --warmup-order sizes-first warms what nccl-tests' TimeTest warms: doubling
// from -b to -e whatever -f is, planned as the points are, never beyond the
// largest point the buffers were sized for.
TEST(Sizes, WarmUpPointsDoubleFromMinToMaxUpToTheLargestPoint) {
  const Collective& ar = *find_collective("all_reduce");
  std::vector<std::size_t> bytes;
  for (const auto& p : warm_up_points(8, 1024, {}, ar, DType::float32, 2, 1024)) bytes.push_back(p.bytes);
  EXPECT_EQ(bytes, (std::vector<std::size_t>{8, 16, 32, 64, 128, 256, 512, 1024}));
  // -b 8 -e 127 -f 16: the only point is 8 B, so nothing larger is warmed.
  bytes.clear();
  for (const auto& p : warm_up_points(8, 127, {}, ar, DType::float32, 2, 8)) bytes.push_back(p.bytes);
  EXPECT_EQ(bytes, (std::vector<std::size_t>{8}));
  // An explicit list (ccbench accept) is warmed as given; float64 rounds 12 B down to 8.
  bytes.clear();
  for (const auto& p : warm_up_points(0, 0, {12, 4096}, ar, DType::float64, 3, 4096)) bytes.push_back(p.bytes);
  EXPECT_EQ(bytes, (std::vector<std::size_t>{8, 4096}));
  // 0 bytes: warmed once, then 1, 2, 4 (nccl-tests would loop for ever at 0).
  bytes.clear();
  for (const auto& p : warm_up_points(0, 4, {}, *find_collective("broadcast"), DType::int8, 2, 4))
    bytes.push_back(p.bytes);
  EXPECT_EQ(bytes, (std::vector<std::size_t>{0, 1, 2, 4}));
}

// The rows of nccl-tests 2.19.6 (setupArgs and each collective's
// GetCollByteCount), written out per collective: printed size =
// max(send, receive) bytes, printed count = the parameter count.
struct NcclTestsRow {
  std::size_t size, count;
};
NcclTestsRow nccl_tests_row(std::string_view coll, std::size_t bytes, std::size_t elt, std::size_t nranks) {
  const std::size_t count = bytes / elt;
  const std::size_t base = (count / nranks) & ~(16 / elt - 1);
  if (coll == "all_gather" || coll == "gather") return {base * nranks * elt, base};       // send base, recv base x n
  if (coll == "reduce_scatter" || coll == "scatter") return {base * nranks * elt, base};  // send base x n, recv base
  if (coll == "alltoall") return {base * nranks * elt, base};                             // both base x n
  return {count * elt, count};  // all_reduce, broadcast, reduce, sendrecv
}

TEST(Sizes, RowsEqualNcclTestsForEveryRankCountDtypeAndCollective) {
  std::vector<std::size_t> sizes;
  for (std::size_t s = 0; s <= 300; ++s) sizes.push_back(s);
  for (std::size_t s = 512; s <= (std::size_t{1} << 30); s *= 2) sizes.insert(sizes.end(), {s - 1, s, s + 7});
  for (std::string_view name : {"all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast", "reduce",
                                "gather", "scatter", "sendrecv"})
    for (const DTypeInfo& d : all_dtypes())
      for (int n = 1; n <= 9; ++n) {
        const auto pts = plan_points(sizes, *find_collective(name), d.id, n, false);
        ASSERT_EQ(pts.size(), sizes.size());
        for (std::size_t i = 0; i < sizes.size(); ++i) {
          const NcclTestsRow want = nccl_tests_row(name, sizes[i], d.size, static_cast<std::size_t>(n));
          ASSERT_EQ(pts[i].bytes, want.size) << name << " " << d.name << " " << n << " ranks, " << sizes[i] << " B";
          ASSERT_EQ(pts[i].shown_count(), want.count)
              << name << " " << d.name << " " << n << " ranks, " << sizes[i] << " B";
        }
      }
}

TEST(Sizes, StrictPlanRefusesToRound) {
  EXPECT_THROW(plan_points({24}, *find_collective("alltoall"), DType::float32, 3, true), UsageError);  // 16 B x 3 ranks
  EXPECT_NO_THROW(plan_points({48}, *find_collective("alltoall"), DType::float32, 3, true));
  EXPECT_THROW(plan_points({6}, *find_collective("all_reduce"), DType::float32, 3, true), UsageError);
  EXPECT_THROW(plan_points({0}, *find_collective("all_reduce"), DType::float32, 3, true), UsageError);
}

}  // namespace ccb
