// Stragglers (results/stragglers): the rank that arrived last, named only
// when chance and the barrier's own order cannot explain it.
#include <gtest/gtest.h>

#include <random>

#include "results/link_probe.hpp"
#include "results/stragglers.hpp"

namespace ccb {
namespace stragglers_test {  // named: the unit tests are one unity build

// Entries of `ranks` ranks over `iters` iterations 1 ms apart, each rank
// jittered by up to `jitter_us`; rank `slow` (-1: none) `late_us` later.
std::vector<std::vector<double>> entries(int ranks, int iters, double jitter_us, int slow, double late_us,
                                         unsigned seed = 1) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0, jitter_us * 1e-6);
  std::vector<std::vector<double>> e(static_cast<std::size_t>(ranks));
  for (int i = 0; i < iters; ++i)
    for (int r = 0; r < ranks; ++r)
      e[static_cast<std::size_t>(r)].push_back(i * 1e-3 + u(g) + (r == slow ? late_us * 1e-6 : 0));
  return e;
}

TEST(Stragglers, ASlowRankIsNamedWithHowLateItWas) {
  const auto s = find_stragglers(entries(6, 30, 2, 4, 200), 400);
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->named);
  EXPECT_EQ(s->last_rank, 4);
  EXPECT_EQ(s->last_count, 30);
  EXPECT_LT(s->chance_p, 1e-15);
  EXPECT_NEAR(s->lateness_us[4], 200, 3);
  EXPECT_NEAR(s->skew_us.p50, 200, 3);
  ASSERT_TRUE(s->skew_us.ci95_lo);
  EXPECT_LE(*s->skew_us.ci95_lo, s->skew_us.p50);
  EXPECT_EQ(s->last_counts.size(), 6u);
}

// A healthy group: the last rank changes at random, so nobody is named.
TEST(Stragglers, NoiseNamesNobody) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const auto s = find_stragglers(entries(8, 50, 20, -1, 0, seed), 400);
    ASSERT_TRUE(s);
    EXPECT_FALSE(s->named) << "seed " << seed << ": rank " << s->last_rank << " last " << s->last_count;
  }
}

// A barrier releases ranks in a fixed order microseconds apart: measured on
// barriers alone, that order is taken out, so it names nobody; a rank late
// beyond it still is.
TEST(Stragglers, TheBarriersOwnOrderIsNotAStraggler) {
  const auto order = barrier_order_s(entries(4, 30, 0.5, 3, 40, 7));
  ASSERT_EQ(order.size(), 4u);
  EXPECT_NEAR(order[3] * 1e6, 40, 1);
  const auto plain = find_stragglers(entries(4, 40, 0.5, 3, 40), 200);
  EXPECT_TRUE(plain->named);  // 40 us, every time: without the barrier's order it looks like a straggler
  const auto s = find_stragglers(entries(4, 40, 0.5, 3, 40), 200, order);
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->named);
  EXPECT_NEAR(s->lateness_us[3], 0, 2);
  EXPECT_TRUE(find_stragglers(entries(4, 40, 0.5, 3, 400), 600, order)->named);  // 360 us beyond it
  // Too little late to have held anyone up: under the floor, or under 10% of the iteration.
  EXPECT_FALSE(find_stragglers(entries(4, 40, 0.1, 3, 15), 100)->named);
  EXPECT_FALSE(find_stragglers(entries(4, 40, 0.1, 3, 100), 10000)->named);
}

TEST(Stragglers, TooLittleToReadIsNothing) {
  EXPECT_FALSE(find_stragglers({{1.0, 2.0}}, 10));  // one rank
  EXPECT_FALSE(find_stragglers({{}, {}}, 10));      // no iterations
  // Three iterations of two ranks cannot beat chance (each is last half the time).
  EXPECT_FALSE(find_stragglers(entries(2, 3, 1, 1, 500), 400)->named);
  EXPECT_NEAR(binomial_tail(10, 10, 0.5), 1.0 / 1024, 1e-12);
  EXPECT_DOUBLE_EQ(binomial_tail(10, 0, 0.5), 1.0);
}

// The link probe's reading: a host whose NIC is slow slows both its ring
// links; one slow cable slows one link; a uniform ring names nothing.
TEST(LinkProbe, ASlowHostsTwoLinksNameItAndOneSlowLinkNamesItsEnds) {
  const std::vector<std::string> hosts{"a", "b", "c", "d", "e", "f"};
  // Position p's exchange is slow when one of its two links is: host c (2) slow both ways.
  const std::vector<double> a{0.04, 0.16, 0.16, 0.16, 0.04, 0.04}, b{0.04, 0.16, 0.17, 0.16, 0.04, 0.04};
  const LinkReading r = read_links(hosts, a, b);
  ASSERT_EQ(r.link_s.size(), 6u);
  EXPECT_EQ(r.slow_hosts, std::vector<std::string>{"c"});
  EXPECT_TRUE(r.slow_links.empty());  // both explained by host c
  EXPECT_NE(r.text().find("host c: both its links slow (160 ms and 160 ms)"), std::string::npos) << r.text();
  // The cable between d and e only: positions 3 and 4 slow in both passes.
  const LinkReading cable = read_links(hosts, {0.04, 0.04, 0.04, 0.2, 0.2, 0.04}, {0.04, 0.04, 0.04, 0.2, 0.2, 0.04});
  EXPECT_TRUE(cable.slow_hosts.empty());
  EXPECT_EQ(cable.slow_links, std::vector<int>{3});
  EXPECT_NE(cable.text().find("link d <-> e: slow (200 ms)"), std::string::npos) << cable.text();
  // Four hosts, b slow: every exchange but d's touches b; two of the four links slow, still named (the
  // fastest quarter is the reference, not the median).
  EXPECT_EQ(read_links({"a", "b", "c", "d"}, {0.4, 0.4, 0.4, 0.1}, {0.4, 0.4, 0.4, 0.1}).slow_hosts,
            std::vector<std::string>{"b"});
  EXPECT_FALSE(read_links(hosts, {0.04, 0.041, 0.042, 0.04, 0.043, 0.04}, {0.04, 0.04, 0.05, 0.04, 0.04, 0.045})
                   .slow_links.size());
  EXPECT_NE(read_links(hosts, std::vector<double>(6, 0.04), std::vector<double>(6, 0.04)).text().find("no slow link"),
            std::string::npos);
  // Three hosts: every exchange touches a slow host, so nothing could stand apart: not read.
  EXPECT_TRUE(read_links({"a", "b", "c"}, {1, 1, 1}, {1, 1, 1}).link_s.empty());
}

}  // namespace stragglers_test
}  // namespace ccb
