#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "kernels/element.hpp"
#include "kernels/pattern.hpp"

namespace ccb {
namespace {

int64_t input_of(const Pattern& p, int rank, uint64_t index) {
  const uint32_t i = pattern_mix(index);
  switch (p.kind) {
    case PatternKind::copy: return pattern_input<PatternKind::copy>(p, rank, i);
    case PatternKind::sum: return pattern_input<PatternKind::sum>(p, rank, i);
    case PatternKind::avg: return pattern_input<PatternKind::avg>(p, rank, i);
    case PatternKind::min: return pattern_input<PatternKind::min>(p, rank, i);
    case PatternKind::max: return pattern_input<PatternKind::max>(p, rank, i);
    case PatternKind::prod: return pattern_input<PatternKind::prod>(p, rank, i);
  }
  return 0;
}
int64_t result_of(const Pattern& p, uint64_t index) {
  const uint32_t i = pattern_mix(index);
  switch (p.kind) {
    case PatternKind::sum: return pattern_result<PatternKind::sum>(p, i);
    case PatternKind::avg: return pattern_result<PatternKind::avg>(p, i);
    case PatternKind::min: return pattern_result<PatternKind::min>(p, i);
    case PatternKind::max: return pattern_result<PatternKind::max>(p, i);
    case PatternKind::prod: return pattern_result<PatternKind::prod>(p, i);
    case PatternKind::copy: break;
  }
  return 0;
}

const int kRankCounts[] = {1, 2, 3, 4, 5, 7, 8, 64, 127, 300, 1000};

}  // namespace

// The reduction of the inputs equals the closed-form result, and no partial
// result in any order leaves the dtype's exact range: the sum of magnitudes
// (or the full product) bounds every partial result.
TEST(Pattern, ClosedFormIsExactForEveryDtypeOpAndRankCount) {
  for (const auto& t : all_dtypes()) {
    for (const auto& o : all_ops()) {
      for (int n : kRankCounts) {
        const Pattern p = make_pattern(t.id, o.id, n);
        for (uint64_t i : {0ull, 1ull, 2ull, 77ull, 255ull, 256ull, 4097ull, 123456789ull}) {
          int64_t sum = 0, abs_sum = 0, prod = 1, lo = INT64_MAX, hi = INT64_MIN;
          for (int r = 0; r < n; ++r) {
            const int64_t v = input_of(p, r, i);
            if (!t.is_signed) {
              EXPECT_GE(v, 0);
            }
            EXPECT_LE(std::llabs(v), t.exact_limit);
            sum += v;
            abs_sum += std::llabs(v);
            if (o.id == ReduceOp::prod) prod *= v;  // other ops' products may overflow int64
            lo = std::min(lo, v);
            hi = std::max(hi, v);
          }
          int64_t want = 0;
          switch (o.id) {
            case ReduceOp::sum:
              want = sum;
              EXPECT_LE(abs_sum, t.exact_limit);
              break;
            case ReduceOp::prod:
              want = prod;
              EXPECT_LE(std::llabs(prod), t.exact_limit);
              break;
            case ReduceOp::min: want = lo; break;
            case ReduceOp::max: want = hi; break;
            case ReduceOp::avg:
              EXPECT_EQ(sum % n, 0) << "avg must divide exactly";
              EXPECT_LE(abs_sum, t.exact_limit);
              want = sum / n;
              break;
          }
          EXPECT_EQ(result_of(p, i), want) << t.name << " " << o.name << " n=" << n << " i=" << i;
        }
      }
    }
  }
}

TEST(Pattern, NonTrivialForSmallRankCounts) {
  // Patterns that are constant would make verification blind.
  for (const auto& t : all_dtypes())
    for (const auto& o : all_ops()) {
      const Pattern p = make_pattern(t.id, o.id, 4);
      std::vector<int64_t> values;
      for (uint64_t i = 0; i < 64; ++i) values.push_back(result_of(p, i));
      std::sort(values.begin(), values.end());
      EXPECT_GT(std::unique(values.begin(), values.end()) - values.begin(), 1) << t.name << " " << o.name;
    }
}

TEST(Pattern, CopyPatternDistinguishesRanksAndPositions) {
  for (const auto& t : all_dtypes()) {
    const Pattern p = make_pattern(t.id, std::nullopt, 8);
    int differ_rank = 0, differ_index = 0;
    for (uint64_t i = 0; i < 1000; ++i) {
      differ_rank += input_of(p, 0, i) != input_of(p, 1, i);
      differ_index += input_of(p, 0, i) != input_of(p, 0, i + 256);  // a shift by one block
    }
    EXPECT_GT(differ_rank, 990) << t.name;
    EXPECT_GT(differ_index, 990) << t.name;
  }
}

TEST(Pattern, FillThenVerifyFindsNothingAndCatchesOneCorruptElement) {
  for (const auto& t : all_dtypes()) {
    const Pattern p = make_pattern(t.id, std::nullopt, 3);
    std::vector<unsigned char> buf(1000 * t.size);
    fill_input(t.id, p, 2, buf.data(), 1000, 5000);
    EXPECT_EQ(count_wrong_input(t.id, p, 2, buf.data(), 1000, 5000), 0u) << t.name;
    buf[417 * t.size] ^= 0x01;
    EXPECT_EQ(count_wrong_input(t.id, p, 2, buf.data(), 1000, 5000), 1u) << t.name;
  }
}

TEST(Pattern, WrongRankOrOffsetIsCaught) {
  for (const auto& t : all_dtypes()) {
    const Pattern p = make_pattern(t.id, std::nullopt, 4);
    std::vector<unsigned char> buf(4096 * t.size);
    fill_input(t.id, p, 1, buf.data(), 4096, 0);
    EXPECT_GT(count_wrong_input(t.id, p, 2, buf.data(), 4096, 0), 4000u) << t.name;
    EXPECT_GT(count_wrong_input(t.id, p, 1, buf.data(), 4096, 1024), 4000u) << t.name;
  }
}

TEST(Pattern, SentinelDiffersFromEveryRanksInput) {
  for (const auto& t : all_dtypes()) {
    std::vector<unsigned char> buf(512 * t.size);
    fill_sentinel(t.id, 4, buf.data(), 512);
    const Pattern p = make_pattern(t.id, std::nullopt, 4);
    for (int r = 0; r < 4; ++r) EXPECT_GT(count_wrong_input(t.id, p, r, buf.data(), 512, 0), 500u) << t.name;
  }
}

TEST(Pattern, AvgDegeneratesToZerosOnlyBeyondTheExactRange) {
  EXPECT_FALSE(make_pattern(DType::bfloat16, ReduceOp::avg, 64).degenerate);
  EXPECT_FALSE(make_pattern(DType::bfloat16, ReduceOp::avg, 256).degenerate);  // every value 1 +- 1
  EXPECT_TRUE(make_pattern(DType::bfloat16, ReduceOp::avg, 257).degenerate);
  EXPECT_FALSE(make_pattern(DType::f8e5m2, ReduceOp::avg, 8).degenerate);
  EXPECT_TRUE(make_pattern(DType::f8e5m2, ReduceOp::avg, 9).degenerate);
  EXPECT_FALSE(make_pattern(DType::float32, ReduceOp::avg, 100000).degenerate);
}

}  // namespace ccb

namespace ccb {
// Issue 54: fp8 sums at 16 (e4m3) / 8 (e5m2) ranks and more have one value
// everywhere; the point's note says a misrouted chunk is not detected there.
TEST(Pattern, BlindSpotsAreNamed) {
  EXPECT_EQ(pattern_blind_spot(DType::f8e4m3, ReduceOp::sum, 8), "");
  EXPECT_NE(pattern_blind_spot(DType::f8e4m3, ReduceOp::sum, 16), "");
  EXPECT_EQ(pattern_blind_spot(DType::f8e5m2, ReduceOp::sum, 4), "");
  EXPECT_NE(pattern_blind_spot(DType::f8e5m2, ReduceOp::sum, 8).find("misrouted chunk is not detected"),
            std::string::npos);
  EXPECT_EQ(pattern_blind_spot(DType::float32, ReduceOp::sum, 4096), "");
  EXPECT_EQ(pattern_blind_spot(DType::f8e4m3, std::nullopt, 4096), "");  // copies keep their positions
  EXPECT_NE(pattern_blind_spot(DType::bfloat16, ReduceOp::avg, 257), "");
  EXPECT_EQ(pattern_blind_spot(DType::bfloat16, ReduceOp::max, 4096), "");
}
}  // namespace ccb
