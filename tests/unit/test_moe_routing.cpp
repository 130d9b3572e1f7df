// A MoE layer's dispatch and combine as traffic (collectives/moe_routing):
// deduplicated token counts, the transpose, skew, a routing file, seeded
// repeatability and every bad input refused in one line.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <numeric>

#include "collectives/traffic.hpp"
#include "common/errors.hpp"
#include "tests/unit/refusal.hpp"

namespace ccb {
namespace moe_test {  // named: the unit tests are one unity build

using test::refusal;

TEST(MoeRouting, DispatchSendsEachTokenOnceToEachRankOfItsExperts) {
  // topk = every expert: each token goes to every rank exactly once.
  TrafficModel all = parse_traffic("moe:experts=8:topk=8:hidden=4");
  const TrafficPlan p = make_traffic_plan(all, 4, 100 * 4);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(p.at(i, j), 100u * 4) << i << "->" << j;
  // topk = 1: each token to one rank, so a rank sends exactly its tokens.
  const TrafficPlan one = make_traffic_plan(parse_traffic("moe:experts=16:topk=1:hidden=3:seed=5"), 4, 50 * 3);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(one.sent(i), 50u * 3);
  // topk 2 of 2 experts per rank at 2 ranks: a token reaches 1 or 2 ranks.
  const TrafficPlan two = make_traffic_plan(parse_traffic("moe:experts=4:topk=2:hidden=1"), 2, 1000);
  for (int i = 0; i < 2; ++i) {
    EXPECT_GE(two.sent(i), 1000u);
    EXPECT_LE(two.sent(i), 2000u);
    EXPECT_GT(two.sent(i), 1000u);  // some tokens pick one expert on each rank
  }
}

TEST(MoeRouting, CombineIsTheTransposeOfDispatchAndSeedsRepeat) {
  const TrafficModel d = parse_traffic("moe:experts=32:topk=4:hidden=2:lognormal=1:seed=7:dispatch");
  const TrafficModel c = parse_traffic("moe:experts=32:topk=4:hidden=2:lognormal=1:seed=7:combine");
  const TrafficPlan pd = make_traffic_plan(d, 8, 256 * 2), pc = make_traffic_plan(c, 8, 256 * 2);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) EXPECT_EQ(pd.at(i, j), pc.at(j, i));
  EXPECT_EQ(make_traffic_plan(d, 8, 256 * 2).counts, pd.counts);
  const TrafficModel other = parse_traffic("moe:experts=32:topk=4:hidden=2:lognormal=1:seed=8");
  EXPECT_NE(make_traffic_plan(other, 8, 256 * 2).counts, pd.counts);
  // The text round-trips.
  EXPECT_EQ(parse_traffic(d.text()).text(), d.text());
  EXPECT_EQ(d.text(), "moe:experts=32:topk=4:hidden=2:lognormal=1:seed=7:dispatch");
}

TEST(MoeRouting, AHotRankReceivesMoreAndUniformIsEven) {
  const TrafficPlan hot = make_traffic_plan(parse_traffic("moe:experts=64:topk=2:hidden=1:hot=4:rank=3"), 8, 4000);
  EXPECT_EQ(hot.busiest_rank(), 3);
  double others = 0;
  for (int r = 0; r < 8; ++r)
    if (r != 3) others += static_cast<double>(hot.received(r)) / 7;
  const double ratio = static_cast<double>(hot.received(3)) / others;
  EXPECT_GT(ratio, 2.5);  // experts 4x as likely; deduplication and top-2 keep it below 4
  EXPECT_LT(ratio, 4.01);
  const TrafficPlan even = make_traffic_plan(parse_traffic("moe:experts=64:topk=2:hidden=1"), 8, 4000);
  // A token reaches a rank unless both its experts are among the other 56.
  const double expected = 8 * 4000 * (1 - 56.0 * 55 / (64 * 63));
  for (int r = 0; r < 8; ++r) EXPECT_NEAR(static_cast<double>(even.received(r)), expected, 0.05 * expected);
}

TEST(MoeRouting, ARoutingFileGivesTheShapeOfEachRanksTokens) {
  const std::string path = ::testing::TempDir() + "moe-routing.txt";
  std::ofstream(path) << "# a comment\n1 x\n";
  EXPECT_NE(refusal([&] { parse_traffic("moe:topk=1:hidden=1:routing=" + path); }).find("not a token count"),
            std::string::npos);
  std::ofstream(path) << "1 1e300\n";
  EXPECT_NE(
      refusal([&] { parse_traffic("moe:topk=1:hidden=1:routing=" + path); }).find("not a token count (0 to 1e15)"),
      std::string::npos);
  std::ofstream(path) << "# tokens per expert\n10 0 0 30\n0 5 5 0\n";  // 2 ranks x 4 experts (2 per rank)
  const TrafficModel m = parse_traffic("moe:topk=1:hidden=2:routing=" + path);
  EXPECT_EQ(m.moe.experts, 4);
  const TrafficPlan p = make_traffic_plan(m, 2, 40 * 2);
  EXPECT_EQ(p.at(0, 0), 10u * 2);  // rank 0: a quarter to its own experts
  EXPECT_EQ(p.at(0, 1), 30u * 2);
  EXPECT_EQ(p.at(1, 0), 20u * 2);
  EXPECT_EQ(p.at(1, 1), 20u * 2);
  EXPECT_NE(refusal([&] { make_traffic_plan(m, 4, 80); }).find("2 rows for 4 ranks"), std::string::npos);
  EXPECT_NE(refusal([&] { parse_traffic("moe:experts=8:topk=1:hidden=1:routing=" + path); }).find("has 4 experts"),
            std::string::npos);
  EXPECT_NE(refusal([&] { parse_traffic("moe:topk=1:hidden=1:seed=3:routing=" + path); }).find("no seed"),
            std::string::npos);
  std::remove(path.c_str());
}

// Experts drawn without replacement when the alias keeps hitting taken
// ones: hot=1e6 makes the hot rank's 4 experts all but certain, so each
// token's other 4 picks come from draw_remaining, uniformly over the 12
// left: a cold rank (4 of them) is hit with 1 - C(8,4)/C(12,4) = 0.8586.
TEST(MoeRouting, DrawsAmongTheRestAreInProportionWhenFewExpertsHoldTheWeight) {
  const int tokens = 20000;
  const TrafficPlan p =
      make_traffic_plan(parse_traffic("moe:experts=16:topk=8:hidden=1:hot=1e6:rank=0:seed=3"), 4, tokens);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(p.at(i, 0), static_cast<std::uint64_t>(tokens)) << i;
    for (int j = 1; j < 4; ++j) EXPECT_NEAR(static_cast<double>(p.at(i, j)) / tokens, 1 - 70.0 / 495, 0.02) << i << j;
  }
}

TEST(MoeRouting, BadInputIsOneLine) {
  for (const auto& row : std::vector<std::pair<std::string, std::string>>{
           {"moe:experts=8:topk=2", "needs experts=E, topk=K and hidden=H"},
           {"moe:experts=8:topk=9:hidden=1", "more than the 8 experts"},
           {"moe:experts=8:topk=0:hidden=1", "topk is a whole number from 1"},
           {"moe:experts=8:topk=2:hidden=1:hot=0.5", "hot is a number from 1"},
           {"moe:experts=8:topk=2:hidden=1:hot=2:lognormal=1", "at most one of"},
           {"moe:experts=8:topk=2:hidden=1:rank=2", "rank= goes with hot=R"},
           {"moe:experts=8:topk=2:hidden=1:bogus", "not an option of moe"},
           {"moe:experts=8:topk=2:hidden=1:experts=16", "'experts=16': experts given twice"},
           {"moe:experts=8:topk=2:hidden=1:dispatch:combine", "a direction given twice"},
           {"moe:experts=8:topk=2:hidden=1:routing=/nonexistent/file",
            "routing file /nonexistent/file: cannot read (No such file or directory)"},
       }) {
    const std::string &spec = row.first, &words = row.second;  // not a structured binding: clang captures none
    const std::string why = refusal([&] { parse_traffic(spec); });
    EXPECT_NE(why.find(words), std::string::npos) << spec << ": " << why;
    EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  }
  const TrafficModel m = parse_traffic("moe:experts=6:topk=2:hidden=4");
  EXPECT_NE(refusal([&] { make_traffic_plan(m, 4, 400); }).find("do not divide evenly among 4 ranks"),
            std::string::npos);
  EXPECT_NE(refusal([&] { make_traffic_plan(m, 3, 3); }).find("holds no token of 4 elements"), std::string::npos);
  EXPECT_NE(refusal([&] {
              make_traffic_plan(parse_traffic("moe:experts=8:topk=2:hidden=1:hot=2:rank=5"), 4, 8);
            }).find("hot rank 5"),
            std::string::npos);
}

}  // namespace moe_test
}  // namespace ccb
