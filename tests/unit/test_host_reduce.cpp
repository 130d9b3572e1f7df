#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

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
