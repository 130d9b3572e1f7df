// Group testing (pattern bisect) and the cluster simulator: the verdicts name
// exactly the defective nodes, links and switches; a one-off failure is noise,
// not a verdict; rounds grow as log2(n); the cluster file's errors name
// file:line:key. Pure logic through CheckRounds, the code `ccbench accept` runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "common/errors.hpp"
#include "analysis/accept/check_rounds.hpp"
#include "analysis/accept/simulate.hpp"
#include "analysis/accept/verdict.hpp"

namespace ccb {
namespace {

Check bisect_check(GroupPattern p = GroupPattern::bisect, int repeats = 1) {
  Check c;
  c.name = "b";
  c.collective = find_collective("all_reduce");
  c.sizes = {1 << 20};
  c.repeats = c.pass_repeats = repeats;
  c.pattern = p;
  Gate g;
  g.at_bytes = 1 << 20;
  g.min = 40;
  c.gates = {g};
  return c;
}

std::set<std::string> with_status(const CheckVerdict& v, NodeStatus s) {
  std::set<std::string> out;
  for (const NodeVerdict& n : v.nodes)
    if (n.status == s) out.insert(n.host);
  return out;
}

CheckVerdict run(const Check& c, const ClusterModel& m) {
  std::mt19937_64 rng(m.seed);
  return simulate_check(c, m, rng);
}

TEST(Bisect, NamesExactlyTheDefectiveNodesAtEverySize) {
  const Check c = bisect_check();
  for (int n : {2, 3, 4, 5, 7, 8, 13, 64, 100, 1024}) {
    for (int k : {0, 1, 2, 3}) {
      if (k >= n) continue;
      std::vector<int> bad;
      for (int i = 0; i < k; ++i) bad.push_back((i * 37 + 5) % n);
      std::sort(bad.begin(), bad.end());
      bad.erase(std::unique(bad.begin(), bad.end()), bad.end());
      const ClusterModel m = make_cluster(n, bad, 0.3, 0, 1);
      const CheckVerdict v = run(c, m);
      std::set<std::string> want;
      for (int b : bad) want.insert(m.names[static_cast<std::size_t>(b)]);
      if (n - static_cast<int>(bad.size()) < 2) {
        // No two healthy nodes that could vouch for each other: nobody is
        // named wrongly, and the check fails.
        for (const std::string& h : with_status(v, NodeStatus::defective)) EXPECT_TRUE(want.count(h)) << h;
        EXPECT_FALSE(v.pass);
        continue;
      }
      EXPECT_EQ(with_status(v, NodeStatus::defective), want) << "n " << n << " k " << k;
      EXPECT_EQ(v.pass, bad.empty()) << "n " << n << " k " << k;
    }
  }
}

TEST(Bisect, RoundsGrowAsLogN) {
  const Check c = bisect_check();
  const CheckVerdict clean = run(c, make_cluster(1024, {}, 0.3, 0, 1));
  EXPECT_EQ(clean.rounds, 1);  // one group of every node passes: done
  const CheckVerdict one = run(c, make_cluster(1024, {17}, 0.3, 0, 1));
  EXPECT_LE(one.rounds, 25);  // issue target (pairwise: 1,023 rounds + a second pass)
  const CheckVerdict four = run(c, make_cluster(1024, {3, 300, 600, 1000}, 0.3, 0, 1));
  EXPECT_LE(four.rounds, 80);
  EXPECT_EQ(with_status(four, NodeStatus::defective).size(), 4u);
  const CheckVerdict big = run(c, make_cluster(16384, {9000}, 0.3, 0, 1));
  EXPECT_LE(big.rounds, one.rounds + 5);  // 16x the nodes: 4 more halvings
}

TEST(Bisect, NoiseDoesNotBecomeAVerdict) {
  // 10% noise on a bar 25% below the healthy value: healthy groups fail now
  // and then; every such failure must be re-tested away.
  const Check c = bisect_check();
  int false_defective = 0, missed = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    ClusterModel m = make_cluster(256, {static_cast<int>(seed % 256)}, 0.5, 0.10, seed);
    const CheckVerdict v = run(c, m);
    const auto d = with_status(v, NodeStatus::defective);
    missed += d.count(m.names[seed % 256]) ? 0 : 1;
    false_defective += static_cast<int>(d.size()) - (d.count(m.names[seed % 256]) ? 1 : 0);
  }
  EXPECT_EQ(false_defective, 0);
  EXPECT_EQ(missed, 0);
}

TEST(Bisect, AOneOffFailureIsReportedAsNoise) {
  // A clean cluster whose first measurement is unlucky: noise so large that
  // some group fails once; the check must still pass with a noise finding.
  const Check c = bisect_check();
  int noise_findings = 0, rejected = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const CheckVerdict v = run(c, make_cluster(64, {}, 1, 0.15, seed));
    rejected += v.pass ? 0 : 1;
    for (const std::string& f : v.findings) noise_findings += f.rfind("noise, not a verdict", 0) == 0 ? 1 : 0;
  }
  EXPECT_EQ(rejected, 0);
  EXPECT_GT(noise_findings, 0);  // the noise was there, and was re-tested away
}

TEST(Bisect, ALinkIsNamedWithBothEnds) {
  ClusterModel m = make_cluster(16, {}, 1, 0, 1);
  m.link_factor[{4, 5}] = 0.3;
  const CheckVerdict v = run(bisect_check(), m);
  EXPECT_TRUE(with_status(v, NodeStatus::defective).empty());
  EXPECT_FALSE(v.pass);
  bool named = false;
  for (const std::string& f : v.findings) named = named || f.rfind("link node0005 - node0006", 0) == 0;
  EXPECT_TRUE(named) << ::testing::PrintToString(v.findings);
}

TEST(Bisect, AFailingSwitchIsNamedAsTheSwitch) {
  ClusterModel m = make_cluster(64, {}, 1, 0, 1);
  for (int i = 0; i < 64; ++i) m.switch_of.push_back(i < 8 ? "leaf1" : i < 16 ? "leaf2" : "leaf3");
  m.switch_factor["leaf2"] = 0.4;
  const CheckVerdict v = run(bisect_check(), m);
  EXPECT_EQ(with_status(v, NodeStatus::defective).size(), 8u);
  ASSERT_FALSE(v.findings.empty());
  EXPECT_EQ(v.findings[0].rfind("switch leaf2: all its 8 nodes are defective", 0), 0u) << v.findings[0];
}

TEST(Pairwise, AMarginalPairIsReTestedBeforeItsLinkIsNamed) {
  // Pairwise under noise: a pair that fails once while both nodes pass with
  // references is run again; passing then, it is noise and the check passes.
  const Check c = bisect_check(GroupPattern::pairwise);
  int rejected = 0, retests = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const CheckVerdict v = run(c, make_cluster(8, {}, 1, 0.12, seed));
    rejected += v.pass ? 0 : 1;
    for (const GroupVerdict& g : v.second) retests += g.run.role == GroupRole::pair_retest ? 1 : 0;
  }
  EXPECT_EQ(rejected, 0);
  EXPECT_GT(retests, 0);
  // A real link problem still fails twice and is named.
  ClusterModel bad = make_cluster(6, {}, 1, 0, 1);
  bad.link_factor[{1, 2}] = 0.3;
  const CheckVerdict v = run(c, bad);
  EXPECT_FALSE(v.pass);
  bool named = false;
  for (const std::string& f : v.findings) named = named || f.find("and again when re-tested") != std::string::npos;
  EXPECT_TRUE(named) << ::testing::PrintToString(v.findings);
}

TEST(Population, AGateRelativeToThisRunsGroupsFindsASlowNodeWithoutAFloor) {
  // No absolute floor: pairs are judged against the median (and MAD) of this
  // check's pairs. A node at 60% of the others is named; a clean cluster
  // with 5% noise passes.
  Check c = bisect_check(GroupPattern::pairwise);
  Gate g;
  g.at_bytes = 1 << 20;
  g.population = true;
  g.max_drop = 0.2;
  c.gates = {g};
  const CheckVerdict bad = run(c, make_cluster(16, {5}, 0.6, 0.03, 1));
  EXPECT_EQ(with_status(bad, NodeStatus::defective), (std::set<std::string>{"node0006"}));
  for (std::uint64_t seed = 1; seed <= 10; ++seed)
    EXPECT_TRUE(run(c, make_cluster(16, {}, 1, 0.05, seed)).pass) << seed;
  // Fewer than 3 groups of a size: not judged, said in the note.
  Population none;
  GroupRun one;
  one.nodes = {0, 1};
  one.ranks = 2;
  one.repeats.push_back({{MeasuredPoint{1 << 20, 1 << 20, 10, 10, 1, 0, false, 0, ""}}, "", {}});
  const auto v = judge_round(c, {one}, none, {});
  EXPECT_TRUE(v[0].pass);
  EXPECT_NE(v[0].gates[0].note.find("fewer than 3 groups of 2 nodes"), std::string::npos);
}

#if CCBENCH_HAVE_YAML
TEST(Bisect, TheSpecNamesSwitches) {
  const std::string head = "switches:\n  leaf1: [a, b]\n  leaf2: [c]\n";
  const std::string checks =
      "checks:\n  - {name: s, collective: all_reduce, sizes: [8], pattern: bisect, gates: [{metric: time, at: 8, max: "
      "1}]}\n";
  const AcceptSpec spec = parse_spec(head + checks, "s.yaml");
  EXPECT_EQ(spec.switch_of.at("b"), "leaf1");
  EXPECT_EQ(spec.switch_of.at("c"), "leaf2");
  const AcceptSpec pop = parse_spec(
      "checks:\n  - {name: p, collective: all_reduce, sizes: [1M], pattern: pairwise, "
      "gates: [{metric: busbw, at: 1M, population: 0.2}]}\n",
      "p.yaml");
  EXPECT_TRUE(pop.checks[0].gates[0].population);
  EXPECT_DOUBLE_EQ(pop.checks[0].gates[0].max_drop, 0.2);
  try {
    parse_spec("switches:\n  leaf1: [a, b]\n  leaf2: [b]\n" + checks, "s.yaml");
    FAIL() << "a host under two switches was accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "s.yaml:3: switches.leaf2[0]: host 'b' is already under switch leaf1");
  }
}

std::string cluster_error(const std::string& text) {
  try {
    parse_cluster(text, "c.yaml");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Simulate, ClusterFileAndItsErrors) {
  const ClusterModel m = parse_cluster(
      "nodes: 1024\ndefective: {nodes: [node0017, node0342], factor: 0.3}\nnoise_cv: 0.05\nseed: 7\n"
      "nodes_per_switch: 32\ndefective_switches: {switches: [switch05], factor: 0.5}\n"
      "defective_links: {links: [[node0001, node0002]], factor: 0.2}\ntest_time_s: {fixed: 20, per_doubling: 2}\n",
      "c.yaml");
  EXPECT_EQ(m.nodes(), 1024);
  EXPECT_EQ(m.names[16], "node0017");
  EXPECT_DOUBLE_EQ(m.node_factor[16], 0.3);
  EXPECT_EQ(m.seed, 7u);
  EXPECT_EQ(m.switch_of[32 * 4], "switch05");
  EXPECT_DOUBLE_EQ(m.group_factor({0, 1}), 0.2);
  EXPECT_DOUBLE_EQ(m.test_seconds(1024), 40.0);
  EXPECT_EQ(cluster_error("nodes: 8\ncolour: red\n"),
            "c.yaml:2: colour: unknown key (allowed: defective, defective_links, defective_switches, healthy_margin, "
            "nodes, nodes_per_switch, noise_cv, seed, test_time_s)");
  EXPECT_EQ(cluster_error("nodes: 8\ndefective: {nodes: [node0099], factor: 0.3}\n"),
            "c.yaml:2: defective.nodes[0]: 'node0099' is not a node of this cluster (node0001 ... node0008)");
  EXPECT_NE(cluster_error("nodes: 8\ndefective: {nodes: [node0001], factor: 1.5}\n")
                .find("c.yaml:2: defective.factor: 1.5 is out of range"),
            std::string::npos);
  EXPECT_NE(cluster_error("nodes: 8\ndefective: {nodes: [node0001], factor: 0}\n")
                .find("defective.factor: 0 is out of range"),
            std::string::npos);
  EXPECT_NE(cluster_error("nodes: 8\nnoise_cv: -0.1\n").find("c.yaml:2: noise_cv: -0.1 is out of range"),
            std::string::npos);
  EXPECT_NE(cluster_error("nodes: 1\n").find("c.yaml:1: nodes: 1 is out of range"), std::string::npos);
  EXPECT_NE(cluster_error("noise_cv: 0.1\n").find("nodes: missing"), std::string::npos);
}
#endif

}  // namespace
}  // namespace ccb
