// alltoallv's traffic models (collectives/traffic): the counts each model
// gives, their sums, seeded repeatability, nccl-tests' matrix file, and every
// bad input refused in one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "analysis/model/skewed_alltoall.hpp"
#include "collectives/traffic.hpp"
#include "common/errors.hpp"
#include "tests/unit/refusal.hpp"
#include "tests/unit/synthetic_runs.hpp"

namespace ccb {
namespace traffic_test {  // named: the unit tests are one unity build

using test::refusal;

TEST(Traffic, EveryModelButAMatrixSendsTheSizeFromEveryRank) {
  for (const char* spec : {"uniform", "spread:0", "spread:1", "spread:0.3", "hot:4", "hot:2.5:rank=3", "lognormal:1",
                           "lognormal:2:seed=9", "permutations:1", "permutations:3:seed=5"})
    for (int n : {1, 2, 3, 5, 8})
      for (std::uint64_t per_rank : {0ull, 1ull, 7ull, 1000ull, 1ull << 20}) {
        const TrafficModel m = parse_traffic(spec);
        if (m.kind == TrafficKind::hot && m.hot_rank >= n) continue;
        const TrafficPlan p = make_traffic_plan(m, n, per_rank);
        std::uint64_t all_received = 0;
        for (int r = 0; r < n; ++r) {
          EXPECT_EQ(p.sent(r), per_rank) << spec << " n " << n << " rank " << r;
          all_received += p.received(r);
        }
        EXPECT_EQ(all_received, per_rank * static_cast<std::uint64_t>(n)) << spec;
      }
}

TEST(Traffic, UniformIsAlltoallAndSpreadIsNcclTestsDistanceWeighting) {
  const TrafficPlan u = make_traffic_plan(parse_traffic("uniform"), 4, 400);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(u.at(i, j), 100u);
  // spread:1 at 4 ranks: in proportion to the distance (j - i) mod 4: 0, 1, 2, 3 of 6.
  const TrafficPlan s = make_traffic_plan(parse_traffic("spread:1"), 4, 600);
  EXPECT_EQ(s.at(0, 0), 0u);
  EXPECT_EQ(s.at(0, 1), 100u);
  EXPECT_EQ(s.at(0, 3), 300u);
  EXPECT_EQ(s.at(2, 1), 300u);  // distance 3
  EXPECT_EQ(s.recv_offset(1, 2), s.at(0, 1) + s.at(1, 1));
  EXPECT_EQ(s.send_offset(0, 2), s.at(0, 0) + s.at(0, 1));
  EXPECT_EQ(s.busiest_elements(), 600u);  // balanced: every rank sends and receives 600
  // Without --traffic: nccl-tests' variables, else its default spread:1.
  EXPECT_EQ(traffic_from_environment(nullptr, nullptr).text(), "spread:1");
  EXPECT_EQ(traffic_from_environment(nullptr, "0.25").text(), "spread:0.25");
  EXPECT_EQ(traffic_from_environment(nullptr, "0.25").from, "NCCL_TESTS_ALLTOALLV_SPREAD");
  EXPECT_NE(refusal([] { traffic_from_environment(nullptr, "2"); }).find("NCCL_TESTS_ALLTOALLV_SPREAD '2'"),
            std::string::npos);
}

// DeepEP's unbalanced ratio: tokens to the hot rank / mean to each other rank.
TEST(Traffic, TheHotRankGetsRTimesWhatEachOtherGets) {
  const TrafficPlan p = make_traffic_plan(parse_traffic("hot:4:rank=2"), 4, 7000);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(p.at(i, 2), 4000u);
    EXPECT_EQ(p.at(i, 0), 1000u);
  }
  EXPECT_EQ(p.busiest_rank(), 2);
  EXPECT_EQ(p.busiest_elements(), 16000u);  // 4 x 4000 received
  EXPECT_EQ(p.largest_buffer(), 16000u);
  EXPECT_EQ(make_traffic_plan(parse_traffic("hot:1"), 4, 400).busiest_elements(), 400u);  // 1: uniform
}

TEST(Traffic, SeededModelsRepeatExactlyAndDifferBySeed) {
  const auto plan = [](const char* spec) { return make_traffic_plan(parse_traffic(spec), 16, 1 << 20).counts; };
  EXPECT_EQ(plan("lognormal:1.5:seed=3"), plan("lognormal:1.5:seed=3"));
  EXPECT_NE(plan("lognormal:1.5:seed=3"), plan("lognormal:1.5:seed=4"));
  EXPECT_EQ(plan("permutations:2:seed=8"), plan("permutations:2:seed=8"));
  // Log-normal shares: a receiver's load differs from the mean; every sender routes alike.
  const TrafficPlan l = make_traffic_plan(parse_traffic("lognormal:1"), 16, 1 << 20);
  EXPECT_GT(l.busiest_elements(), std::uint64_t{1} << 20);
  for (int j = 0; j < 16; ++j) EXPECT_NEAR(static_cast<double>(l.at(0, j)), static_cast<double>(l.at(5, j)), 1.0);
  // Permutations: doubly stochastic, each rank sends to at most K ranks.
  const TrafficPlan p = make_traffic_plan(parse_traffic("permutations:2"), 16, 1000);
  for (int r = 0; r < 16; ++r) {
    EXPECT_EQ(p.received(r), 1000u);
    int peers = 0;
    for (int j = 0; j < 16; ++j) peers += p.at(r, j) > 0;
    EXPECT_LE(peers, 2);
  }
  EXPECT_EQ(parse_traffic("lognormal:1").text(), "lognormal:1:seed=1");  // the seed is always recorded
}

// nccl-tests' matrix file (alltoallv_perf's NCCL_TESTS_ALLTOALLV_MATRIX_FILE):
// its shape, scaled so that ranks send the size on average; the first n rows
// and columns of a larger one.
TEST(Traffic, AMatrixFileGivesItsShape) {
  const TrafficModel m = read_traffic_matrix("100 200 150\n50 100 75\n300 150 200\n", "t.txt");
  EXPECT_EQ(m.dim, 3);
  const TrafficPlan p = make_traffic_plan(m, 3, 1000);  // 3000 in all, the matrix's 1325 scaled
  std::uint64_t all = 0;
  for (int r = 0; r < 3; ++r) all += p.sent(r);
  EXPECT_EQ(all, 3000u);
  EXPECT_NEAR(static_cast<double>(p.at(2, 0)), 300 * 3000.0 / 1325, 1.0);
  EXPECT_EQ(p.busiest_rank(), 2);                        // sends 650 of 1325
  const TrafficPlan two = make_traffic_plan(m, 2, 100);  // the first 2 rows and columns: 450 in all
  EXPECT_NEAR(static_cast<double>(two.at(0, 1)), 200 * 200.0 / 450, 1.0);
  EXPECT_EQ(m.text(), "matrix:t.txt");
}

TEST(Traffic, BadInputIsOneLine) {
  struct Case {
    std::string spec, says;
  };
  for (const Case& c :
       {Case{"hot:0.5", "the hot ratio is at least 1"}, Case{"hot", "hot needs a value"},
        Case{"hot:x", "'x' is not a number"}, Case{"spread:1.5", "between 0 (uniform) and 1"},
        Case{"lognormal:-1", "SIGMA is between 0 and 4"}, Case{"permutations:0", "K is a whole number"},
        Case{"permutations:1.5", "K is a whole number"}, Case{"hot:2:seed=3", "not an option of hot"},
        Case{"zipf:1", "expected uniform, spread:F"}, Case{"uniform:2", "uniform takes no value"},
        Case{"matrix:/nonexistent/m.txt", "--traffic matrix /nonexistent/m.txt: cannot read (No such file"},
        Case{"hot:2:rank=-1", "expected rank=K"}}) {
    const std::string why = refusal([&] { parse_traffic(c.spec); });
    EXPECT_NE(why.find(c.says), std::string::npos) << c.spec << ": " << why;
    EXPECT_EQ(why.find('\n'), std::string::npos) << c.spec;
  }
  EXPECT_NE(refusal([] { read_traffic_matrix("1 2\n3\n", "m"); }).find("row 2 has 1 numbers, row 1 has 2"),
            std::string::npos);
  EXPECT_NE(refusal([] { read_traffic_matrix("1 2 3\n4 5 6\n", "m"); }).find("not square"), std::string::npos);
  EXPECT_NE(refusal([] { read_traffic_matrix("1 -2\n3 4\n", "m"); }).find("row 1, column 2: '-2'"), std::string::npos);
  EXPECT_NE(refusal([] { read_traffic_matrix("0 0\n0 0\n", "m"); }).find("every entry is 0"), std::string::npos);
  EXPECT_NE(refusal([] { read_traffic_matrix("\n\n", "m"); }).find("no numbers"), std::string::npos);
  const TrafficModel two = read_traffic_matrix("1 2\n3 4\n", "m");
  EXPECT_NE(refusal([&] { make_traffic_plan(two, 3, 10); }).find("2 rows for 3 ranks"), std::string::npos);
  EXPECT_NE(refusal([] { make_traffic_plan(parse_traffic("hot:2:rank=4"), 4, 10); }).find("rank 4 is not one of"),
            std::string::npos);
}

// alltoallv read off a uniform alltoall fit: each size at the alltoall time of
// its busiest rank's bytes (uniform: the alltoall itself).
TEST(Traffic, AlltoallvIsPredictedAtItsBusiestRanksBytes) {
  synthetic::Shape shape;
  shape.collective = "alltoall";
  shape.from = 64 << 10, shape.to = 64u << 20, shape.factor = 2;
  const auto alltoall = [](int n, double s) { return (n - 1) * (20.0 + s / n / 500.0); };  // ring-like
  const Model m = fit_model({synthetic::sweep({2, 4, 8}, alltoall, shape)});
  const std::vector<std::uint64_t> sizes{1 << 20, 8 << 20};
  const std::vector<SkewedPrediction> uniform = predict_alltoallv(m, 8, 8, parse_traffic("uniform"), sizes);
  ASSERT_EQ(uniform.size(), 1u);  // the out-of-place fit only
  EXPECT_EQ(uniform[0].series->in_place, 0);
  for (const SkewedPoint& p : uniform[0].points) {
    EXPECT_EQ(p.busiest_bytes, p.bytes);
    EXPECT_NEAR(p.at.time_us / alltoall(8, static_cast<double>(p.bytes)), 1.0, 0.05);
  }
  const std::vector<SkewedPrediction> hot = predict_alltoallv(m, 8, 8, parse_traffic("hot:4:rank=5"), sizes);
  ASSERT_EQ(hot.size(), 1u);
  for (const SkewedPoint& p : hot[0].points) {
    EXPECT_EQ(p.busiest_rank, 5);
    EXPECT_NEAR(static_cast<double>(p.busiest_bytes) / static_cast<double>(p.bytes), 8 * 4 / 11.0, 1e-3);
    EXPECT_NEAR(p.at.time_us / alltoall(8, static_cast<double>(p.busiest_bytes)), 1.0, 0.05);
  }
  EXPECT_EQ(hot[0].traffic, "hot:4:rank=5");
  EXPECT_EQ(hot[0].link, nullptr);  // no sendrecv fit: no link bound

  // With a sendrecv fit (link bound: 2 B/us per link), the larger of the alltoall at the size and the
  // sendrecv at the busiest rank's bytes across its link.
  synthetic::Shape link_shape = shape;
  link_shape.collective = "sendrecv";
  link_shape.to = 256u << 20;
  const auto sendrecv = [](int, double s) { return 10.0 + s / 2000.0; };
  ResultSet both = synthetic::sweep({2, 4, 8}, alltoall, shape);
  const ResultSet links = synthetic::sweep({2, 4, 8}, sendrecv, link_shape);
  both.points.insert(both.points.end(), links.points.begin(), links.points.end());
  const Model m2 = fit_model({both});
  const std::vector<SkewedPrediction> bound = predict_alltoallv(m2, 8, 8, parse_traffic("hot:4:rank=5"), sizes);
  ASSERT_EQ(bound.size(), 1u);
  ASSERT_NE(bound[0].link, nullptr);
  for (const SkewedPoint& p : bound[0].points) {
    // Rank 5 receives 8 x 4/11 of the size, 4/11 of it from itself: 7 x 4/11 across its link.
    EXPECT_NEAR(static_cast<double>(p.link_bytes) / static_cast<double>(p.bytes), 7 * 4 / 11.0, 1e-3);
    const double uniform = alltoall(8, static_cast<double>(p.bytes)),
                 link = sendrecv(8, static_cast<double>(p.link_bytes));
    EXPECT_EQ(p.bound, link > uniform ? "link" : "alltoall");
    EXPECT_NEAR(p.at.time_us / std::max(uniform, link), 1.0, 0.05);
  }
  // moe: the size is a rank's tokens, which go to several ranks each: the
  // uniform bound is read at what a rank sends on average, not at the size.
  const std::vector<SkewedPrediction> moe =
      predict_alltoallv(m2, 8, 8, parse_traffic("moe:experts=64:topk=8:hidden=256"), sizes);
  ASSERT_EQ(moe.size(), 1u);
  for (const SkewedPoint& p : moe[0].points) {
    EXPECT_GT(static_cast<double>(p.mean_bytes), 4.0 * static_cast<double>(p.bytes));  // ~5.3 ranks per token
    const double uniform = alltoall(8, static_cast<double>(p.mean_bytes)),
                 link = sendrecv(8, static_cast<double>(p.link_bytes));
    EXPECT_NEAR(p.at.time_us / std::max(uniform, link), 1.0, 0.05);
  }
  // A model without alltoall fits has nothing to read it off.
  shape.collective = "all_reduce";
  EXPECT_TRUE(predict_alltoallv(fit_model({synthetic::sweep({2, 4, 8}, alltoall, shape)}), 8, 8,
                                parse_traffic("uniform"), sizes)
                  .empty());
}

// Issue 73 item 10: a matrix whose row sums overflow is refused (its plan
// gave a rank bytes the matrix says 0).
TEST(Traffic, AMatrixWhoseSumsOverflowIsRefused) {
  try {
    read_traffic_matrix("1e308 1e308\n0 1\n", "m.txt");
    FAIL() << "accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("traffic matrix m.txt: its entries add up past the largest number"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(read_traffic_matrix("1e300 1e300\n0 1\n", "m.txt"));
}

}  // namespace traffic_test
}  // namespace ccb
