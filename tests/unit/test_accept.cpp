// Acceptance logic without MPI: spec parsing and its errors, schedules,
// gate verdicts (k of n), node verdicts and the second pass, baselines.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "common/errors.hpp"
#include "analysis/accept/accept_report.hpp"
#include "analysis/accept/baseline.hpp"
#include "analysis/accept/reference_spec.hpp"
#include "analysis/compare/reference.hpp"
#include "analysis/accept/schedule.hpp"
#include "analysis/accept/spec.hpp"
#include "analysis/accept/verdict.hpp"
#include "analysis/report/render.hpp"

namespace ccb {
namespace {

#if CCBENCH_HAVE_YAML
const char* kSpec = R"(name: t
checks:
  - name: pairs
    collective: all_reduce
    sizes: [8, 1M]
    repeats: 3
    pass: 2
    pattern: pairwise
    gates:
      - {metric: busbw, at: 1M, min: 10, tolerance: 0.1}
      - {metric: time, at: 8, max: 50}
)";

std::string spec_error(const std::string& text) {
  try {
    parse_spec(text, "s.yaml");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(AcceptSpec, ParsesAChecksGatesAndDefaults) {
  const AcceptSpec s = parse_spec(kSpec, "dir/s.yaml");
  ASSERT_EQ(s.checks.size(), 1u);
  const Check& c = s.checks[0];
  EXPECT_EQ(c.name, "pairs");
  EXPECT_EQ(c.pattern, GroupPattern::pairwise);
  EXPECT_EQ(c.sizes, (std::vector<std::size_t>{8, 1 << 20}));
  EXPECT_EQ(c.repeats, 3);
  EXPECT_EQ(c.pass_repeats, 2);
  EXPECT_EQ(c.timeout_s, 300);  // the spec's default watchdog
  ASSERT_EQ(c.gates.size(), 2u);
  EXPECT_DOUBLE_EQ(c.gates[0].bar(), 9.0);  // 10 x (1 - 0.1)
  EXPECT_TRUE(c.gates[0].passes(9.0));
  EXPECT_FALSE(c.gates[0].passes(8.99));
  EXPECT_TRUE(c.gates[1].passes(50));  // a ceiling
  EXPECT_FALSE(c.gates[1].passes(50.1));
  EXPECT_EQ(c.gates[0].line, 10);
  EXPECT_EQ(c.gates[0].describe(), "busbw >= 9 GB/s (10 - 10%) at 1 MiB");
}

TEST(AcceptSpec, RelativeGateResolvesTheBaselineNextToTheSpec) {
  std::string t = kSpec;
  t += "      - {metric: busbw, at: 1M, baseline: base.json, max_drop: 0.05}\n";
  const AcceptSpec s = parse_spec(t, "dir/s.yaml");
  const Gate& g = s.checks[0].gates[2];
  EXPECT_EQ(g.baseline, "dir/base.json");
  EXPECT_DOUBLE_EQ(g.bar(100), 95);
  EXPECT_FALSE(g.passes(94.9, 100));
}

TEST(AcceptSpec, HistoryGateReadsTheGroupsLastRuns) {
  std::string t = kSpec;
  t += "      - {metric: busbw, at: 1M, baseline: history, max_drop: 0.2}\n";
  t += "      - {metric: time, at: 8, baseline: history, max_drop: 0.5, runs: 8}\n";
  t += "      - {metric: time, at: 8, baseline: ./history, max_drop: 0.5}\n";
  const AcceptSpec s = parse_spec(t, "dir/s.yaml");
  const Gate& g = s.checks[0].gates[2];
  EXPECT_TRUE(g.history && g.relative() && g.baseline.empty());
  EXPECT_EQ(g.history_runs, 5);
  EXPECT_DOUBLE_EQ(g.bar(100), 80);
  EXPECT_EQ(g.describe(), "busbw >= 0.8 x the median of this group's last 5 runs in the history (- 20%) at 1 MiB");
  EXPECT_EQ(s.checks[0].gates[3].history_runs, 8);
  EXPECT_DOUBLE_EQ(s.checks[0].gates[3].bar(10), 15);
  EXPECT_FALSE(s.checks[0].gates[4].history);  // a file named history
  EXPECT_EQ(s.checks[0].gates[4].baseline, "dir/history");
  const auto error = [](const std::string& gate) { return spec_error(std::string(kSpec) + "      - " + gate + "\n"); };
  EXPECT_EQ(error("{metric: busbw, at: 1M, baseline: history, max_drop: 0.2, runs: 2}"),
            "s.yaml:12: checks[0].gates[2].runs: 2 is out of range [3, 1000]");
  EXPECT_EQ(error("{metric: busbw, at: 1M, min: 10, runs: 4}"),
            "s.yaml:12: checks[0].gates[2].runs: needs baseline: history (the runs it reads)");
  EXPECT_EQ(error("{metric: busbw, at: 1M, max_drop: 0.1}"),
            "s.yaml:12: checks[0].gates[2].max_drop: needs baseline: FILE (or baseline: history)");
}

// Each error names the file, the line and the key.
TEST(AcceptSpec, ErrorsNameFileLineAndKey) {
  const auto with = [](const std::string& from, const std::string& to) {
    std::string t = kSpec;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  EXPECT_EQ(spec_error(with("pattern: pairwise", "pattern: mesh")),
            "s.yaml:8: checks[0].pattern: 'mesh' is unknown (allowed: all, per-node, pairwise, ring, bisect)");
  EXPECT_EQ(spec_error(with("collective: all_reduce", "collective: allreduce")),
            "s.yaml:4: checks[0].collective: 'allreduce' is not a collective (ccbench list)");
  EXPECT_EQ(spec_error(with("at: 1M, min", "at: 2M, min")),
            "s.yaml:10: checks[0].gates[0].at: 2097152 B is not one of the check's sizes");
  EXPECT_EQ(spec_error(with("min: 10, tolerance: 0.1", "min: -1")),
            "s.yaml:10: checks[0].gates[0].min: -1 is out of range [0, 1000000000]");
  EXPECT_EQ(spec_error(with("pass: 2", "pass: 4")), "s.yaml:7: checks[0].pass: 4 of 3 repeats cannot pass");
  EXPECT_EQ(
      spec_error(with("sizes: [8, 1M]", "sizes: [8, 1X]")),
      "s.yaml:5: checks[0].sizes[1]: '1X': not a size (bytes with an optional binary suffix: 8, 64K, 1M or 1MiB, 2G)");
  EXPECT_EQ(spec_error(with("sizes: [8, 1M]", "sizes: [8, 1MB]")),
            "s.yaml:5: checks[0].sizes[1]: '1MB': sizes are binary (K = 1024): write 1M or 1MiB; decimal KB, MB, GB "
            "are not taken");
  EXPECT_EQ(spec_error(with("collective: all_reduce", "collective: all_reduce\n    io: {dir: /tmp}")),
            "s.yaml:4: checks[0].collective: does not apply to an io check");
  EXPECT_EQ(spec_error(with("collective: all_reduce", "io: {pattern: seq_read}")),
            "s.yaml:4: checks[0].io.dir: missing");
  EXPECT_EQ(spec_error(with("collective: all_reduce", "io: {dir: /tmp, qd: 0}")),
            "s.yaml:4: checks[0].io.qd: 0 is out of range [1, 4096]");
  EXPECT_EQ(spec_error(with("max: 50", "min: 50")),
            "s.yaml:11: checks[0].gates[1].min: a floor applies to busbw or algbw; time takes max");
  EXPECT_EQ(
      spec_error(with("    repeats: 3\n", "    repeats: 3\n    colour: red\n")),
      "s.yaml:7: checks[0].colour: unknown key (allowed: backend, bitwise, collective, dtype, gates, gpus_per_process, "
      "io, iterations, memory, name, op, pass, path, pattern, repeats, second_pass, sizes, step_timeout_s, "
      "stragglers, timeout_s, warmup)");
  EXPECT_EQ(spec_error(with("    pass: 2\n", "    pass: 2\n    pass: 1\n")), "s.yaml:8: checks[0].pass: given twice");
  EXPECT_EQ(spec_error("name: x\n"), "s.yaml:1: checks: missing");
  EXPECT_EQ(spec_error("checks: [\n"), "s.yaml:2: not valid YAML (end of sequence flow not found)");
  EXPECT_EQ(spec_error(with("{metric: time, at: 8, max: 50}", "{metric: time, at: 8}")),
            "s.yaml:11: checks[0].gates[1]: give exactly one of min (bandwidth floor), max (time ceiling), baseline, "
            "population");
  EXPECT_EQ(spec_error(with("collective: all_reduce", "collective: all_gather\n    op: max")),
            "s.yaml:5: checks[0].op: all_gather does not reduce");
}

// The example specs shipped under examples/acceptance parse.
TEST(AcceptSpec, ExampleSpecsParse) {
  for (const char* f : {"h100-h200-8gpu-node.yaml", "ib-multinode.yaml", "cloud-a3-instance.yaml"}) {
    const AcceptSpec s = load_spec(std::string(CCBENCH_FIXTURES) + "/../../examples/acceptance/" + f);
    EXPECT_FALSE(s.checks.empty()) << f;
  }
  // NVLink's floor as a share of the limit: one gate for H100, H200 and B200 (docs/expect.md).
  const AcceptSpec h = load_spec(std::string(CCBENCH_FIXTURES) + "/../../examples/acceptance/h100-h200-8gpu-node.yaml");
  EXPECT_EQ(h.checks.back().gates.back().share_of, "limit");
}

TEST(AcceptSpec, OnePathPerBackendAndUniqueNames) {
  std::string two = kSpec;
  two += "  - name: pairs\n    collective: all_gather\n    sizes: [8]\n    gates: [{metric: time, at: 8, max: 1}]\n";
  EXPECT_EQ(spec_error(two), "s.yaml:12: checks[1].name: 'pairs' is used twice");
  std::string paths = kSpec;
  paths +=
      "  - name: tcp\n    collective: all_gather\n    path: tcp\n    sizes: [8]\n    gates: [{metric: time, at: 8, "
      "max: 1}]\n";
  EXPECT_NE(spec_error(paths).find("s.yaml:14: checks[1].path: 'tcp' differs from an earlier mpi check's 'auto'"),
            std::string::npos);
}
#endif

TEST(AcceptSchedule, PairwiseCoversEveryPairOnceInRoundsOfDisjointPairs) {
  for (int n = 2; n <= 9; ++n) {
    const auto rounds = schedule(GroupPattern::pairwise, n);
    EXPECT_EQ(rounds.size(), static_cast<std::size_t>(n % 2 == 0 ? n - 1 : n)) << n;
    std::set<std::pair<int, int>> seen;
    for (const Round& r : rounds) {
      std::set<int> busy;
      for (const NodeGroup& g : r) {
        ASSERT_EQ(g.size(), 2u);
        EXPECT_TRUE(busy.insert(g[0]).second && busy.insert(g[1]).second) << "a node twice in one round, n=" << n;
        EXPECT_TRUE(seen.insert({g[0], g[1]}).second);
      }
    }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(n * (n - 1) / 2)) << n;
  }
}

TEST(AcceptSchedule, RingAllAndPerNode) {
  for (int n = 3; n <= 8; ++n) {
    const auto rounds = schedule(GroupPattern::ring, n);
    EXPECT_EQ(rounds.size(), n % 2 == 0 ? 2u : 3u);
    std::size_t pairs = 0;
    for (const Round& r : rounds) {
      std::set<int> busy;
      for (const NodeGroup& g : r) {
        EXPECT_TRUE(busy.insert(g[0]).second && busy.insert(g[1]).second);
        EXPECT_TRUE(g[1] == g[0] + 1 || (g[0] == 0 && g[1] == n - 1));
        ++pairs;
      }
    }
    EXPECT_EQ(pairs, static_cast<std::size_t>(n));
  }
  EXPECT_EQ(schedule(GroupPattern::ring, 2).size(), 1u);
  EXPECT_TRUE(schedule(GroupPattern::pairwise, 1).empty());
  EXPECT_EQ(schedule(GroupPattern::all, 3), (std::vector<Round>{{{0, 1, 2}}}));
  EXPECT_EQ(schedule(GroupPattern::per_node, 3), (std::vector<Round>{{{0}, {1}, {2}}}));
}

TEST(AcceptSchedule, SecondPassSpreadsSuspectsOverReferences) {
  const auto rounds = second_pass_rounds({1, 3, 5}, {0, 2});
  ASSERT_EQ(rounds.size(), 2u);
  EXPECT_EQ(rounds[0], (Round{{0, 1}, {2, 3}}));
  EXPECT_EQ(rounds[1], (Round{{0, 5}}));
  EXPECT_TRUE(second_pass_rounds({1}, {}).empty());
  EXPECT_EQ(greedy_cover({{0, 2}, {1, 2}, {2, 3}}), (std::vector<int>{2}));
  EXPECT_EQ(greedy_cover({{0, 1}, {2, 3}}), (std::vector<int>{0, 2}));
}

Check pair_check() {
  Check c;
  c.name = "pairs";
  c.collective = find_collective("all_reduce");
  c.sizes = {1 << 20};
  c.repeats = 3;
  c.pass_repeats = 2;
  c.pattern = GroupPattern::pairwise;
  Gate g;
  g.at_bytes = 1 << 20;
  g.min = 10;
  c.gates = {g};
  return c;
}

GroupRun run_of(NodeGroup nodes, std::vector<double> busbw, int pass = 1) {
  GroupRun r;
  r.nodes = std::move(nodes);
  r.pass = pass;
  r.ranks = 2;
  for (double b : busbw) {
    RepeatResult rep;
    MeasuredPoint p;
    p.requested_bytes = p.bytes = 1 << 20;
    p.busbw_gbps = p.algbw_gbps = b;
    p.time_us = 100;
    rep.points.push_back(p);
    r.repeats.push_back(rep);
  }
  return r;
}

TEST(AcceptVerdict, KOfNRepeats) {
  const Check c = pair_check();
  EXPECT_TRUE(judge_group(c, run_of({0, 1}, {12, 9, 11}), {}).pass);      // 2 of 3
  const GroupVerdict v = judge_group(c, run_of({0, 1}, {12, 9, 8}), {});  // 1 of 3
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.gates[0].passed, 1);
  EXPECT_EQ(v.reason, "busbw 9 GB/s (median) against a bar of 10 at 1 MiB: 1 of 3 repeats passed, 2 needed");
  EXPECT_DOUBLE_EQ(v.headline, 9);
}

// A share gate judges against the limit its run resolved, and names the
// node's share; with no limit it is not judged and says why (never a pass).
TEST(AcceptVerdict, ShareOfTheLimitNamesTheShare) {
  Check c = pair_check();
  c.gates.resize(1);
  c.gates[0] = Gate{};
  c.gates[0].at_bytes = 1 << 20;
  c.gates[0].share_of = "limit";
  c.gates[0].max_drop = 0.5;  // 50% of the limit
  GroupRun slow = run_of({0, 1}, {3, 3, 3});
  for (RepeatResult& r : slow.repeats)
    r.figures = std::make_shared<const ResolvedFigures>(ResolvedFigures{Ceiling{10, "the node's NICs: 10 GB/s"}, {}});
  const GroupVerdict v = judge_group(c, slow, {});
  EXPECT_FALSE(v.pass);
  EXPECT_DOUBLE_EQ(v.gates[0].bar, 5);
  EXPECT_NE(v.reason.find("= 30% of the limit, against a bar of 5 (50% of it)"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("limit 10 GB/s: the node's NICs"), std::string::npos) << v.reason;
  GroupRun fast = run_of({0, 1}, {8, 8, 8});
  for (RepeatResult& r : fast.repeats)
    r.figures = std::make_shared<const ResolvedFigures>(ResolvedFigures{Ceiling{10, "x"}, {}});
  EXPECT_TRUE(judge_group(c, fast, {}).pass);
  GroupRun unknown = run_of({0, 1}, {8, 8, 8});
  for (RepeatResult& r : unknown.repeats)
    r.figures = std::make_shared<const ResolvedFigures>(
        ResolvedFigures{Ceiling{kNaN, "no limit: the run names no NIC: give --link-rate"}, {}});
  const GroupVerdict u = judge_group(c, unknown, {});
  EXPECT_FALSE(u.pass);
  EXPECT_EQ(u.reason, "limit gate not judged: no limit: the run names no NIC: give --link-rate");
  EXPECT_EQ(judge_group(c, run_of({0, 1}, {8}), {}).reason, "limit gate not judged: no repeat's record resolved one");
}

// Issue 73 item 8: a per-node group of one rank has no all_reduce busbw (0 by
// nccl-tests' factor); the gate is not judged, and the node is not DEFECTIVE.
TEST(AcceptVerdict, ABusbwGateOnOneRankIsNotJudged) {
  const Check c = pair_check();
  GroupRun r = run_of({0}, {0, 0, 0});
  r.ranks = 1;
  for (auto& rep : r.repeats) rep.points[0].algbw_gbps = 40;
  const GroupVerdict v = judge_group(c, r, {});
  EXPECT_TRUE(v.pass) << v.reason;
  EXPECT_NE(v.gates[0].note.find("busbw gate not judged: all_reduce's busbw is 0 by definition at 1 rank"),
            std::string::npos)
      << v.gates[0].note;
  EXPECT_TRUE(std::isnan(v.margin));  // never -100%
  r.ranks = 2;                        // the same zeros at 2 ranks are a failure
  EXPECT_FALSE(judge_group(c, r, {}).pass);
}

TEST(AcceptVerdict, AGateSizeNoRepeatReportedSaysSoNotNan) {
  const Check c = pair_check();
  GroupRun r = run_of({0, 1}, {12, 12, 12});
  for (auto& rep : r.repeats) rep.points[0].requested_bytes = 8;  // the sweep measured another size
  const GroupVerdict v = judge_group(c, r, {});
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.reason, "busbw not measured at 1 MiB (no repeat reported that size): 0 of 3 repeats passed, 2 needed");
}

TEST(AcceptVerdict, WrongDataAndRunErrorsFail) {
  const Check c = pair_check();
  GroupRun r = run_of({0, 1}, {12, 12, 12});
  r.repeats[1].points[0].wrong = 7;
  const GroupVerdict v = judge_group(c, r, {});
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.reason, "wrong data: 7 elements failed verification");
  GroupRun e = run_of({0, 1}, {12, 12, 12});
  for (auto& rep : e.repeats) rep.error = "exit 2";
  EXPECT_EQ(judge_group(c, e, {}).reason, "run failed: exit 2");
}

TEST(AcceptVerdict, RelativeGateWithoutABaselineEntryFails) {
  Check c = pair_check();
  c.gates[0] = Gate{};
  c.gates[0].at_bytes = 1 << 20;
  c.gates[0].baseline = "b.json";
  c.gates[0].max_drop = 0.05;
  const auto none = [](const Check&, const Gate&, int, const NodeGroup&) { return std::optional<double>{}; };
  const GroupVerdict v = judge_group(c, run_of({0, 1}, {12, 12, 12}), none);
  EXPECT_FALSE(v.pass);
  EXPECT_NE(v.reason.find("b.json: no baseline entry for all_reduce float sum ranks 2 nodes 2 at 1048576 B"),
            std::string::npos);
  const auto hundred = [](const Check&, const Gate&, int, const NodeGroup&) { return std::optional<double>{100}; };
  EXPECT_TRUE(judge_group(c, run_of({0, 1}, {96, 94, 95}), hundred).pass);
  EXPECT_FALSE(judge_group(c, run_of({0, 1}, {96, 94, 94}), hundred).pass);
}

// A history gate: the median of the group's last N past runs (newest by
// started_at, values that were not recorded skipped); fewer than 3: not
// judged, passed with a note.
TEST(AcceptVerdict, HistoryGateJudgesAgainstTheGroupsOwnPast) {
  Check c = pair_check();
  c.gates[0] = Gate{};
  c.gates[0].at_bytes = 1 << 20;
  c.gates[0].history = true;
  c.gates[0].history_runs = 3;
  c.gates[0].max_drop = 0.1;
  GateBaselines loaded;
  const auto lookup = [&](const Check& ch, const Gate& g, int ranks, const NodeGroup& group) {
    return baseline_median(loaded, ch, g, ranks, static_cast<int>(group.size()), "h1,h2");
  };
  const GroupVerdict first = judge_group(c, run_of({0, 1}, {1, 1, 1}), lookup);
  EXPECT_TRUE(first.pass);
  EXPECT_EQ(first.gates[0].note, "history gate not judged: fewer than 3 past runs of this group in the history");
  const double nan = std::nan("");
  std::vector<PastRun>& past = loaded.history.runs[PastKey{c.name, 0, 2, 2, "h1,h2"}];
  past = {{"2026-01-01", 40, 40, 1}, {"2026-01-02", 100, 100, 1}, {"2026-01-03", nan, nan, 1}};
  EXPECT_FALSE(lookup(c, c.gates[0], 2, {0, 1}));  // two values recorded
  past.push_back({"2026-01-04", 20, 20, 1});
  past.push_back({"2026-01-05", 200, 200, 1});
  EXPECT_DOUBLE_EQ(*lookup(c, c.gates[0], 2, {0, 1}), 100);  // median of 100, 20, 200 (40 is older)
  EXPECT_FALSE(lookup(c, c.gates[0], 4, {0, 1, 2, 3}));      // another group: no past
  EXPECT_TRUE(judge_group(c, run_of({0, 1}, {90, 90, 95}), lookup).pass);
  const GroupVerdict slow = judge_group(c, run_of({0, 1}, {89, 89, 89}), lookup);
  EXPECT_FALSE(slow.pass);
  EXPECT_NE(slow.reason.find("against a bar of 90 at 1 MiB"), std::string::npos) << slow.reason;
  c.gates[0].metric = Metric::time;  // time: lower is better, the past's time_us
  past.back().time_us = 7;
  EXPECT_DOUBLE_EQ(*lookup(c, c.gates[0], 2, {0, 1}), 1);
}

// Four nodes, node 2 slow: every pair with it fails; the cover names it, the
// others are presumed good, the second pass confirms it.
CheckVerdict four_nodes_one_slow(double second_pass_busbw) {
  static const Check c = pair_check();
  CheckVerdict v;
  v.check = &c;
  for (const Round& r : schedule(GroupPattern::pairwise, 4))
    for (const NodeGroup& g : r) {
      const bool slow = g[0] == 2 || g[1] == 2;
      v.first.push_back(
          judge_group(c, run_of(g, slow ? std::vector<double>{3, 3, 3} : std::vector<double>{12, 12, 12}), {}));
    }
  v.suspects = find_suspects(v.first, 4);
  const auto rounds = second_pass_rounds(v.suspects.suspects, v.suspects.references);
  for (const Round& r : rounds)
    for (const NodeGroup& g : r)
      v.second.push_back(judge_group(c, run_of(g, {second_pass_busbw, second_pass_busbw, second_pass_busbw}, 2), {}));
  judge_nodes(v, {"h1", "h2", "h3", "h4"});
  return v;
}

TEST(AcceptVerdict, PairwiseNamesTheSlowNode) {
  const CheckVerdict v = four_nodes_one_slow(3);
  EXPECT_EQ(v.suspects.suspects, (std::vector<int>{2}));
  EXPECT_EQ(v.suspects.references, (std::vector<int>{0, 1, 3}));
  EXPECT_TRUE(v.suspects.presumed);
  ASSERT_EQ(v.second.size(), 1u);
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.nodes[2].status, NodeStatus::defective);
  for (int i : {0, 1, 3}) EXPECT_EQ(v.nodes[static_cast<std::size_t>(i)].status, NodeStatus::presumed_good);
  ASSERT_EQ(v.findings.size(), 1u);
  EXPECT_EQ(v.findings[0].rfind("h3 is defective: failed 3 of 3 pairs, and again with reference h1", 0), 0u);
}

TEST(AcceptVerdict, ASuspectThatPassesWithAReferenceIsCleared) {
  const CheckVerdict v = four_nodes_one_slow(12);
  EXPECT_EQ(v.nodes[2].status, NodeStatus::cleared);
  EXPECT_FALSE(v.pass);  // its first-pass pairs still failed
  ASSERT_EQ(v.findings.size(), 3u);
  EXPECT_NE(v.findings[0].find("not isolated to a node"), std::string::npos);
}

TEST(AcceptVerdict, ALinkProblemIsReportedAsThePair) {
  static const Check c = pair_check();
  CheckVerdict v;
  v.check = &c;
  for (const Round& r : schedule(GroupPattern::pairwise, 4))
    for (const NodeGroup& g : r)
      v.first.push_back(judge_group(
          c, run_of(g, g == NodeGroup{0, 1} ? std::vector<double>{3, 3, 3} : std::vector<double>{12, 12, 12}), {}));
  v.suspects = find_suspects(v.first, 4);
  EXPECT_EQ(v.suspects.suspects, (std::vector<int>{0, 1}));
  EXPECT_EQ(v.suspects.references, (std::vector<int>{2, 3}));
  EXPECT_FALSE(v.suspects.presumed);
  for (const Round& r : second_pass_rounds(v.suspects.suspects, v.suspects.references))
    for (const NodeGroup& g : r) v.second.push_back(judge_group(c, run_of(g, {12, 12, 12}, 2), {}));
  judge_nodes(v, {"a", "b", "c", "d"});
  EXPECT_EQ(v.nodes[0].status, NodeStatus::cleared);
  EXPECT_EQ(v.nodes[1].status, NodeStatus::cleared);
  ASSERT_EQ(v.findings.size(), 1u);
  EXPECT_NE(v.findings[0].find("pair a + b fails"), std::string::npos);
  EXPECT_NE(v.findings[0].find("suspect the link or path between them"), std::string::npos);
}

// A failure measured under noise (an oversubscribed run, a flagged point)
// names no defect: the node stays a suspect and the check fails; a quiet
// re-test that fails too names it.
TEST(AcceptVerdict, NoiseNamesNoDefect) {
  Check c = pair_check();
  c.pattern = GroupPattern::per_node;
  const auto noisy = [](GroupRun r) {
    for (RepeatResult& rep : r.repeats)
      for (MeasuredPoint& p : rep.points) p.noisy = true;
    return r;
  };
  const GroupVerdict bad = judge_group(c, noisy(run_of({1}, {2, 2, 2})), {});  // 5x short of the bar of 10
  EXPECT_TRUE(bad.noisy);
  EXPECT_FALSE(judge_group(c, noisy(run_of({1}, {0.001, 0.001, 0.001})), {}).noisy);  // 10,000x: not noise
  EXPECT_FALSE(judge_group(c, noisy(run_of({1}, {12, 12, 12})), {}).noisy);           // noise on a pass is no failure
  CheckVerdict v;
  v.check = &c;
  v.first = {judge_group(c, run_of({0}, {12, 12, 12}), {}), bad};
  GroupRun again = noisy(run_of({1}, {2, 2, 2}, 2));
  again.role = GroupRole::retest;
  v.second = {judge_group(c, again, {})};
  judge_nodes(v, {"a", "b"});
  EXPECT_EQ(v.nodes[1].status, NodeStatus::suspect);
  EXPECT_FALSE(v.pass);
  ASSERT_EQ(v.findings.size(), 1u);
  EXPECT_NE(v.findings[0].find("b is a suspect"), std::string::npos) << v.findings[0];
  EXPECT_NE(v.findings[0].find(kNoisyFailure), std::string::npos);
  GroupRun quiet = run_of({1}, {1, 1, 1}, 2);
  quiet.role = GroupRole::retest;
  v.second = {judge_group(c, quiet, {})};
  v.findings.clear();
  judge_nodes(v, {"a", "b"});
  EXPECT_EQ(v.nodes[1].status, NodeStatus::defective);
}

TEST(AcceptVerdict, PerNodeAndAll) {
  Check c = pair_check();
  c.pattern = GroupPattern::per_node;
  CheckVerdict v;
  v.check = &c;
  v.first = {judge_group(c, run_of({0}, {12, 12, 12}), {}), judge_group(c, run_of({1}, {1, 1, 1}), {})};
  judge_nodes(v, {"a", "b"});
  EXPECT_EQ(v.nodes[0].status, NodeStatus::pass);
  EXPECT_EQ(v.nodes[1].status, NodeStatus::defective);
  EXPECT_FALSE(v.pass);
  c.pattern = GroupPattern::all;
  CheckVerdict all;
  all.check = &c;
  all.first = {judge_group(c, run_of({0, 1}, {1, 1, 1}), {})};
  judge_nodes(all, {"a", "b"});
  EXPECT_EQ(all.nodes[0].status, NodeStatus::group_failed);
  EXPECT_NE(all.findings[0].find("one group cannot name a node"), std::string::npos);
  EXPECT_NE(all.findings[0].find("pattern pairwise"), std::string::npos);  // 2 nodes: pairwise is fastest
}

// A skew gate on the group of all nodes names the late host, only when the
// repeats that missed it agree on it.
TEST(AcceptVerdict, ASkewGateNamesTheLateHostOfTheGroupOfAll) {
  Check c = pair_check();
  c.pattern = GroupPattern::all;
  Gate skew;
  skew.metric = Metric::skew;
  skew.at_bytes = 1 << 20;
  skew.max = 1000;
  c.gates.push_back(skew);
  EXPECT_TRUE(c.times_stragglers());
  const auto late = [&](std::vector<std::pair<double, std::string>> skews) {
    GroupRun r = run_of({0, 1, 2}, {12, 12, 12});
    for (std::size_t i = 0; i < skews.size(); ++i)
      r.repeats[i].points[0].skew_us = skews[i].first, r.repeats[i].points[0].straggler_host = skews[i].second;
    CheckVerdict v;
    v.check = &c;
    v.first = {judge_group(c, r, {})};
    judge_nodes(v, {"a", "b", "c"});
    return v;
  };
  const CheckVerdict v = late({{3000, "b"}, {3100, "b"}, {20, ""}});
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.first[0].straggler_host, "b");
  EXPECT_EQ(v.nodes[1].status, NodeStatus::defective);
  EXPECT_EQ(v.nodes[0].status, NodeStatus::pass);
  EXPECT_EQ(v.nodes[2].status, NodeStatus::pass);
  EXPECT_NE(v.findings[0].find("b is defective: its rank arrived last"), std::string::npos) << v.findings[0];
  EXPECT_NE(v.first[0].reason.find("skew 3000 us (median)"), std::string::npos) << v.first[0].reason;
  // Two hosts late in two repeats: no single host; a passing skew: nothing.
  const CheckVerdict split = late({{3000, "b"}, {3100, "c"}, {20, ""}});
  EXPECT_EQ(split.first[0].straggler_host, "");
  EXPECT_EQ(split.nodes[1].status, NodeStatus::group_failed);
  EXPECT_TRUE(late({{30, ""}, {3100, "c"}, {20, ""}}).pass);
  // A failing bandwidth gate as well: the late host does not explain it,
  // and is given as a lead for the search, not a verdict.
  GroupRun slow = run_of({0, 1, 2}, {1, 1, 1});
  for (RepeatResult& rep : slow.repeats) rep.points[0].skew_us = 5000, rep.points[0].straggler_host = "b";
  EXPECT_EQ(judge_group(c, slow, {}).straggler_host, "");
  EXPECT_EQ(judge_group(c, slow, {}).late_host, "b");
}

// Without a skew gate, a failing group of all nodes whose missing repeats
// named the same late host gives it as a lead; no node is named.
TEST(AcceptVerdict, ALateHostIsALeadWhenABandwidthGateFails) {
  Check c = pair_check();
  c.pattern = GroupPattern::all;
  const auto judged = [&](const std::vector<std::string>& late, std::vector<double> busbw) {
    GroupRun r = run_of({0, 1, 2}, std::move(busbw));
    for (std::size_t i = 0; i < late.size(); ++i) r.repeats[i].points[0].straggler_host = late[i];
    CheckVerdict v;
    v.check = &c;
    v.first = {judge_group(c, r, {})};
    judge_nodes(v, {"a", "b", "c"});
    return v;
  };
  const CheckVerdict v = judged({"c", "c", "c"}, {1, 1, 1});
  EXPECT_EQ(v.first[0].late_host, "c");
  EXPECT_EQ(v.first[0].straggler_host, "");
  EXPECT_EQ(v.nodes[2].status, NodeStatus::group_failed);
  EXPECT_NE(v.findings[0].find("a lead: c's rank arrived last in every repeat that missed"), std::string::npos)
      << v.findings[0];
  // A repeat that missed without naming anyone, or two hosts: no lead.
  EXPECT_EQ(judged({"c", "", "c"}, {1, 1, 1}).findings[0].find("a lead"), std::string::npos);
  EXPECT_EQ(judged({"c", "b", "c"}, {1, 1, 1}).first[0].late_host, "");
  // Only the missing repeats count; a passing group keeps its late hosts for the table.
  EXPECT_EQ(judged({"c", "b", "c"}, {1, 12, 1}).first[0].late_host, "c");
  const CheckVerdict ok = judged({"b", "", ""}, {12, 12, 12});
  EXPECT_TRUE(ok.pass);
  EXPECT_EQ(ok.first[0].late_host, "");
  EXPECT_EQ(ok.first[0].late_hosts, std::vector<std::string>{"b"});
}

#if CCBENCH_HAVE_YAML
// Floors from the catalogue (ccbench expect --spec-out): a check per figure of
// the GPU the job can run, each a share-of-reference gate accept parses; the
// other figures left out with why; another GPU's never borrowed.
TEST(ReferenceSpec, FloorsFromTheCatalogueParseAsASpec) {
  const ReferenceSpec h100 = reference_spec(published_figures(), {"H100", 4, 8, 0.9});
  const AcceptSpec spec = parse_spec(h100.text, "floors.yaml");
  ASSERT_EQ(spec.checks.size(), 3u);
  EXPECT_EQ(h100.checks, 3);
  std::vector<std::string> patterns;
  for (const Check& c : spec.checks) {
    patterns.emplace_back(name(c.pattern));
    EXPECT_EQ(c.backend, BackendKind::nccl);
    ASSERT_EQ(c.gates.size(), 1u);
    EXPECT_EQ(c.gates[0].share_of, "reference");
    EXPECT_NEAR(c.gates[0].max_drop, 0.1, 1e-12);
    EXPECT_EQ(c.sizes, std::vector<std::size_t>{c.gates[0].at_bytes});
  }
  EXPECT_EQ(patterns, (std::vector<std::string>{"per-node", "pairwise", "all"}));  // 1, 2 and the job's 4 nodes
  EXPECT_NE(h100.text.find("aws-8x-p5: 8 nodes, the job has 4"), std::string::npos);
  for (const PublishedFigure& f : published_figures()) {  // no other GPU's figure, in a check or a comment
    if (f.gpu != "H100") {
      EXPECT_EQ(h100.text.find(f.id), std::string::npos) << f.id;
    }
  }
  // 4 GPUs per node: no H100 figure ran so; no GPU the catalogue knows: nothing to gate.
  const auto error = [](const ReferenceSpecRequest& r) {
    try {
      reference_spec(published_figures(), r);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error({"H100", 4, 4, 0.9}).find("no reference for H100 at 4 nodes of 4 GPUs"), std::string::npos);
  EXPECT_NE(error({"B200", 1, 8, 0.9}).find("no reference for B200"), std::string::npos);
  EXPECT_NE(error({"H100", 1, 8, 0}).find("--floor 0"), std::string::npos);
  // Catalogue text is the user's: a line break in a name or source stays in its comment.
  std::vector<PublishedFigure> own{published_figures().front()};
  own[0].id = "fleet\nchecks: []", own[0].system = "lab\nname: x", own[0].source = "file\r\n- name: y";
  const AcceptSpec hostile = parse_spec(reference_spec(own, {own[0].gpu, 1, 8, 0.8}).text, "own.yaml");
  ASSERT_EQ(hostile.checks.size(), 1u);
  EXPECT_EQ(hostile.checks[0].name, "reference-fleet-checks----");
  EXPECT_NEAR(hostile.checks[0].gates[0].max_drop, 0.2, 1e-12);
}

TEST(AcceptSpec, SkewGatesTakeACeilingOnly) {
  const std::string head = "checks:\n  - name: s\n    collective: all_reduce\n    sizes: [64K]\n    gates: [";
  EXPECT_NE(spec_error(head + "{metric: skew, at: 64K, min: 5}]\n").find("skew takes max"), std::string::npos);
  EXPECT_NE(spec_error(head + "{metric: skew, at: 64K, population: 0.1}]\n").find("a skew gate takes max"),
            std::string::npos);
  const AcceptSpec ok = parse_spec(head + "{metric: skew, at: 64K, max: 500}]\n", "s.yaml");
  EXPECT_TRUE(ok.checks[0].times_stragglers());
  EXPECT_EQ(ok.checks[0].gates[0].describe(), "skew <= 500 us at 64 KiB");
}

// Every collective check times its ranks unless told not to; a skew gate
// needs that timing.
TEST(AcceptSpec, StragglersAreTimedInEveryCollectiveCheck) {
  const std::string head = "checks:\n  - name: s\n    collective: all_reduce\n    sizes: [64K]\n";
  const std::string bw = "    gates: [{metric: busbw, at: 64K, min: 1}]\n";
  EXPECT_TRUE(parse_spec(head + bw, "s.yaml").checks[0].times_stragglers());
  EXPECT_FALSE(parse_spec(head + "    stragglers: false\n" + bw, "s.yaml").checks[0].times_stragglers());
  EXPECT_EQ(spec_error(head + "    stragglers: false\n    gates: [{metric: skew, at: 64K, max: 500}]\n"),
            "s.yaml:6: checks[0].gates: a skew gate reads the ranks' arrival, which stragglers: false turns off");
  EXPECT_EQ(spec_error(head + "    stragglers: maybe\n" + bw),
            "s.yaml:5: checks[0].stragglers: expected true or false");
  const std::string gpus =
      "checks:\n  - name: s\n    collective: all_reduce\n    backend: nccl\n    gpus_per_process: 2\n"
      "    sizes: [64K]\n";
  EXPECT_FALSE(parse_spec(gpus + bw, "s.yaml").checks[0].times_stragglers());
  EXPECT_NE(
      spec_error(gpus + "    gates: [{metric: skew, at: 64K, max: 500}]\n").find("a skew gate needs a rank per GPU"),
      std::string::npos);
  const std::string io =
      "checks:\n  - name: s\n    io: {dir: /tmp, pattern: read}\n    sizes: [1M]\n"
      "    stragglers: true\n    gates: [{metric: busbw, at: 1M, min: 1}]\n";
  EXPECT_NE(spec_error(io).find("stragglers: does not apply to an io check"), std::string::npos) << spec_error(io);
}

// Gates as a share of the path's limit or the published figure (docs/expect.md):
// one spec for several kinds of hardware; each error a user can make is refused.
TEST(AcceptSpec, ShareGatesOfTheLimitOrTheReference) {
  const std::string head = "link_rate: 400Mbit\nchecks:\n  - name: s\n    collective: all_reduce\n    sizes: [64K]\n";
  const AcceptSpec ok = parse_spec(head + "    gates: [{metric: busbw, at: 64K, min: 80% of limit}]\n", "s.yaml");
  const Gate& g = ok.checks[0].gates[0];
  EXPECT_EQ(g.share_of, "limit");
  EXPECT_TRUE(g.relative());
  EXPECT_DOUBLE_EQ(g.bar(0.05), 0.04);
  EXPECT_DOUBLE_EQ(ok.checks[0].link_rate_gbps, 0.05);
  EXPECT_EQ(g.describe(), "busbw >= 80% of the limit (the path's physical limit) at 64 KiB");
  EXPECT_EQ(parse_spec(head + "    gates: [{metric: busbw, at: 64K, min: 90 % of reference}]\n", "s.yaml")
                .checks[0]
                .gates[0]
                .share_of,
            "reference");
  EXPECT_NE(spec_error(head + "    gates: [{metric: time, at: 64K, min: 80% of limit}]\n").find("judges busbw"),
            std::string::npos);
  EXPECT_NE(spec_error(head + "    gates: [{metric: busbw, at: 64K, min: 0% of limit}]\n").find("from 1% to 200%"),
            std::string::npos);
  EXPECT_NE(spec_error(head + "    gates: [{metric: busbw, at: 64K, min: 80% of peak}]\n"), "(no error)");
  EXPECT_NE(spec_error(head + "    gates: [{metric: busbw, at: 64K, min: 80% of limit, baseline: b.yaml}]\n")
                .find("not both"),
            std::string::npos);
  EXPECT_NE(spec_error("link_rate: fast\n" + head.substr(head.find('\n') + 1) +
                       "    gates: [{metric: busbw, at: 64K, min: 1}]\n")
                .find("link_rate: not a rate"),
            std::string::npos);
}

#endif

TEST(AcceptReport, HeatmapMarksTheFailingPairs) {
  const CheckVerdict v = four_nodes_one_slow(3);
  AcceptSpec spec;
  spec.file = "s.yaml";
  AcceptOutcome o;
  o.spec = &spec;
  o.hosts = {"h1", "h2", "h3", "h4"};
  o.checks = {v};
  EXPECT_EQ(o.exit_code(), 1);
  const PairMatrix m(v, 4);
  EXPECT_DOUBLE_EQ(m.value(0, 2), 3);
  EXPECT_FALSE(m.passed(0, 2));
  EXPECT_DOUBLE_EQ(m.value(1, 3), 12);
  EXPECT_TRUE(m.passed(1, 3));
  EXPECT_TRUE(std::isnan(m.value(1, 1)));
  EXPECT_FALSE(m.ran(1, 1));
  const std::string html = render_html(build_accept_report(o), ChartImages{});
  EXPECT_NE(html.find("<td class=\"h0 worse\">3 FAIL</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"h10\">12</td>"), std::string::npos);
  EXPECT_NE(accept_to_json(o).find("\"status\": \"DEFECTIVE\""), std::string::npos);
  o.run_errors.push_back("x");
  EXPECT_EQ(o.exit_code(), 2);
}

// Issue 53 item 9: an ERROR verdict (the run had errors) names no node
// defective; the node stays a suspect, with what was measured and why.
TEST(AcceptReport, AnErrorVerdictNamesNoNodeDefective) {
  AcceptSpec spec;
  spec.file = "s.yaml";
  AcceptOutcome o;
  o.spec = &spec;
  o.hosts = {"h1", "h2", "h3", "h4"};
  o.checks = {four_nodes_one_slow(3)};
  withhold_blame_on_errors(o);  // no run errors: nothing changes
  EXPECT_EQ(o.checks[0].nodes[2].status, NodeStatus::defective);
  o.run_errors.push_back("pairs: every job step of pass 1 round 1 failed (cannot chdir)");
  withhold_blame_on_errors(o);
  withhold_blame_on_errors(o);  // twice: the same
  EXPECT_EQ(o.checks[0].nodes[2].status, NodeStatus::suspect);
  EXPECT_EQ(o.checks[0].nodes[2].reason.find("not named defective: the run had errors (pairs: every job step"), 0u);
  EXPECT_EQ(o.checks[0].nodes[2].reason.rfind("not named defective"), 0u);
  for (const std::string& f : o.checks[0].findings) EXPECT_EQ(f.find("is defective"), std::string::npos) << f;
  const std::string json = accept_to_json(o);
  EXPECT_EQ(json.find("DEFECTIVE"), std::string::npos);
  EXPECT_NE(json.find("\"verdict\": \"error\""), std::string::npos);
  EXPECT_EQ(render_markdown(build_accept_report(o)).find("DEFECTIVE"), std::string::npos);
}

TEST(AcceptBaseline, MedianWithOutliersRemoved) {
  const BaselineMetric m = summarize_runs({10, 10.2, 9.9, 10.1, 3});
  EXPECT_EQ(m.outliers, (std::vector<std::size_t>{4}));
  EXPECT_DOUBLE_EQ(m.median, 10.05);
  EXPECT_TRUE(summarize_runs({10, 3}).outliers.empty());          // two runs: nothing removed
  EXPECT_TRUE(summarize_runs({10, 10, 10.05}).outliers.empty());  // within 1% of the median
}

TEST(AcceptBaseline, BuildsFromRunsAndRoundTrips) {
  std::vector<ResultSet> runs(3);
  for (std::size_t r = 0; r < 3; ++r) {
    runs[r].label = "run" + std::to_string(r);
    for (double busbw : {10.0 + static_cast<double>(r), 20.0 + static_cast<double>(r)}) {  // two pairs of one run
      ImportedPoint p;
      p.collective = "all_reduce";
      p.dtype = "float";
      p.op = "sum";
      p.ranks = 2;
      p.nodes = 2;
      p.in_place = 0;
      p.bytes = 1 << 20;
      p.time_us = 100;
      p.busbw_gbps = p.algbw_gbps = busbw;
      runs[r].points.push_back(p);
    }
  }
  const Baseline b = build_baseline(runs);
  ASSERT_EQ(b.entries.size(), 1u);
  EXPECT_DOUBLE_EQ(b.entries[0].busbw_gbps.median, 16);  // per-run medians 15, 16, 17
  const std::string path = ::testing::TempDir() + "/baseline.json";
  std::ofstream(path) << baseline_to_json(b);
  const Baseline back = load_baseline(path);
  ASSERT_NE(back.find("all_reduce", "float", "sum", 2, 2, 1 << 20), nullptr);
  EXPECT_EQ(back.find("all_reduce", "float", "sum", 4, 2, 1 << 20), nullptr);
  std::ofstream(path) << "{\"entries\": []}";
  try {
    load_baseline(path);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("not a ccbench baseline"), std::string::npos);
  }
  // Numbers that do not fit their field, and indices past their lists, are a
  // malformed file naming the entry (a cast of 1e300 to int is undefined).
  const nlohmann::json good = nlohmann::json::parse(baseline_to_json(b));
  const auto rejects = [&](const nlohmann::json::json_pointer& field, const nlohmann::json& value,
                           const std::string& says) {
    nlohmann::json bad = good;
    bad[field] = value;
    std::ofstream(path) << bad.dump();
    try {
      load_baseline(path);
      ADD_FAILURE() << field << " = " << value << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  using ptr = nlohmann::json::json_pointer;
  rejects(ptr("/entries/0/ranks"), 1e300, "entries[0]: not a valid baseline file ([json.exception.out_of_range.406]");
  rejects(ptr("/entries/0/bytes"), -1, "-1 is not a whole number in range");
  rejects(ptr("/entries/0/nodes"), 2.5, "2.5 is not a whole number in range");
  rejects(ptr("/ccbench_baseline"), 1e300, "not a ccbench baseline");
  rejects(ptr("/entries/0/runs/0"), 7, "runs names run 7 of 3");
  rejects(ptr("/entries/0/time_us/outliers"), nlohmann::json::array({3}), "outlier 3 of 3 values");
}

}  // namespace
}  // namespace ccb
