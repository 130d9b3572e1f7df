#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include <cmath>
#include <cstring>

#include "kernels/half.hpp"

#include "kernels/host_kernels.hpp"
#include "kernels/host_reduce.hpp"
#include "kernels/pattern.hpp"

namespace ccb {

// The real kernels, applied in different orders over the real patterns, give
// the closed-form result bit for bit: the patterns are order-independent.
TEST(HostReduce, EveryOrderGivesTheExpectedResult) {
  const std::size_t count = 3000;
  for (const auto& t : all_dtypes()) {
    for (const auto& o : all_ops()) {
      for (int n : {2, 3, 5, 8}) {
        const Pattern p = make_pattern(t.id, o.id, n);
        std::vector<std::vector<unsigned char>> inputs(n, std::vector<unsigned char>(count * t.size));
        for (int r = 0; r < n; ++r) fill_input(t.id, p, r, inputs[r].data(), count, 0);
        std::vector<int> order(n);
        std::iota(order.begin(), order.end(), 0);
        std::mt19937 rng(42);
        for (int trial = 0; trial < 3; ++trial) {
          std::vector<unsigned char> acc = inputs[order[0]];
          const ReduceOp op = o.id == ReduceOp::avg ? ReduceOp::sum : o.id;
          for (int k = 1; k < n; ++k) reduce_into(t.id, op, inputs[order[k]].data(), acc.data(), count);
          if (o.id == ReduceOp::avg) divide_by_ranks(t.id, acc.data(), count, n);
          EXPECT_EQ(count_wrong_result(t.id, p, acc.data(), count, 0), 0u)
              << t.name << " " << o.name << " n=" << n << " trial " << trial;
          std::shuffle(order.begin(), order.end(), rng);
        }
      }
    }
  }
}

TEST(HostReduce, MissingRankIsCaught) {
  const std::size_t count = 1000;
  for (const auto& t : all_dtypes()) {
    const Pattern p = make_pattern(t.id, ReduceOp::sum, 4);
    std::vector<unsigned char> acc(count * t.size), in(count * t.size);
    fill_input(t.id, p, 0, acc.data(), count, 0);
    for (int r = 1; r < 3; ++r) {  // rank 3 left out
      fill_input(t.id, p, r, in.data(), count, 0);
      reduce_into(t.id, ReduceOp::sum, in.data(), acc.data(), count);
    }
    EXPECT_GT(count_wrong_result(t.id, p, acc.data(), count, 0), count / 2) << t.name;
  }
}

TEST(HostReduce, HalfAndBfloat16RoundLikeFloat) {
  const uint16_t one_h = 0x3C00, tiny_h = 0x1400;  // 1.0 and 2^-10
  uint16_t acc = one_h;
  reduce_into(DType::half, ReduceOp::sum, &tiny_h, &acc, 1);
  EXPECT_EQ(acc, 0x3C01);
  const uint16_t a = 0x3F80, b = 0x4040;  // 1.0 and 3.0 in bf16
  uint16_t m = a;
  reduce_into(DType::bfloat16, ReduceOp::max, &b, &m, 1);
  EXPECT_EQ(m, b);
  reduce_into(DType::bfloat16, ReduceOp::prod, &b, &m, 1);
  EXPECT_EQ(m, 0x4110);  // 9.0
}

TEST(HostReduce, AvgIsNotAnMpiOp) {
  int a = 1, b = 2;
  EXPECT_THROW(reduce_into(DType::int32, ReduceOp::avg, &a, &b, 1), std::logic_error);
}

}  // namespace ccb

namespace ccb {

namespace {
bool is_nan(DType d, const unsigned char* p) {
  uint16_t h = 0;
  if (d == DType::half || d == DType::bfloat16) std::memcpy(&h, p, 2);
  switch (d) {
    case DType::half: return std::isnan(half_to_float(h));
    case DType::bfloat16: return std::isnan(bf16_to_float(h));
    case DType::float32: {
      float f;
      std::memcpy(&f, p, 4);
      return std::isnan(f);
    }
    case DType::float64: {
      double f;
      std::memcpy(&f, p, 8);
      return std::isnan(f);
    }
    default: return false;
  }
}
}  // namespace

// The loops built for this CPU's instruction set give bit-identical results to
// the portable ones, on arbitrary bit patterns (NaNs, infinities, subnormals).
TEST(HostKernels, SimdLoopsMatchPortableLoops) {
  const HostKernels* fast = host_kernels_x86_64_v3();
  if (!fast) GTEST_SKIP() << "no x86-64-v3 loops on this build or CPU";
  const HostKernels& portable = host_kernels_baseline();
  std::mt19937 rng(1);
  const std::size_t count = 1000;
  for (const auto& t : all_dtypes()) {
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max}) {
      std::vector<unsigned char> in(count * t.size), a(count * t.size);
      for (auto& b : in) b = static_cast<unsigned char>(rng());
      for (auto& b : a) b = static_cast<unsigned char>(rng());
      std::vector<unsigned char> b = a;
      portable.reduce_into(t.id, op, in.data(), a.data(), count);
      fast->reduce_into(t.id, op, in.data(), b.data(), count);
      // NaN payloads are not specified (hardware conversions keep them), so any NaN equals any NaN.
      for (std::size_t k = 0; k < count; ++k) {
        const unsigned char* x = a.data() + k * t.size;
        const unsigned char* y = b.data() + k * t.size;
        if (is_nan(t.id, x) && is_nan(t.id, y)) continue;
        ASSERT_EQ(std::memcmp(x, y, t.size), 0) << t.name << " op " << static_cast<int>(op) << " element " << k;
      }
    }
    for (int n : {3, 4}) {
      const Pattern p = make_pattern(t.id, std::nullopt, n);
      const std::size_t big = std::size_t{1} << 20;  // long enough for the periodic tables
      std::vector<unsigned char> x(big * t.size), y(big * t.size);
      portable.fill_input(t.id, p, 1, x.data(), big, 12345);
      fast->fill_input(t.id, p, 1, y.data(), big, 12345);
      EXPECT_EQ(x, y) << t.name;
      x[777 * t.size] ^= 1;
      EXPECT_EQ(portable.count_wrong_input(t.id, p, 1, x.data(), big, 12345), 1u) << t.name;
      EXPECT_EQ(fast->count_wrong_input(t.id, p, 1, x.data(), big, 12345), 1u) << t.name;
    }
  }
}

// Long buffers use the periodic tables, short ones the formula: both agree.
TEST(HostKernels, PeriodicTablesMatchTheFormula) {
  for (const auto& t : all_dtypes()) {
    for (const auto& o : all_ops()) {
      const Pattern p = make_pattern(t.id, o.id, 5);
      const std::size_t big = (std::size_t{1} << 19) + 4321;
      std::vector<unsigned char> whole(big * t.size), piece(1000 * t.size);
      fill_input(t.id, p, 2, whole.data(), big, 99);
      fill_input(t.id, p, 2, piece.data(), 1000, 99 + 300000);  // short: from the formula
      EXPECT_EQ(std::memcmp(whole.data() + 300000 * t.size, piece.data(), piece.size()), 0) << t.name << o.name;
      EXPECT_EQ(count_wrong_input(t.id, p, 2, whole.data(), big, 99), 0u);
    }
  }
}

}  // namespace ccb
