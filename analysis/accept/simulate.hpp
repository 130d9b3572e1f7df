// `ccbench accept SPEC --simulate CLUSTER.yaml`: the real schedule and verdict
// code (CheckRounds, judge_group, judge_nodes) run against a model of a cluster
// instead of MPI. The model and its file format: docs/acceptance.md.
#pragma once
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "analysis/accept/check_rounds.hpp"
#include "analysis/accept/spec.hpp"

namespace ccb {

struct ClusterModel {
  std::string file;
  std::vector<std::string> names;                     // node0001, ...
  std::vector<double> node_factor;                    // 1 healthy; 0.3: 30% of healthy bandwidth
  std::map<std::pair<int, int>, double> link_factor;  // (a < b)
  std::vector<std::string> switch_of;                 // empty: no switches
  std::map<std::string, double> switch_factor;
  double noise_cv = 0;           // coefficient of variation of every measurement
  double healthy_margin = 0.25;  // a healthy group measures its gate's bar x (1 + margin)
  double test_fixed_s = 30,
         test_per_doubling_s = 0;  // time of one repeat of a group of g nodes: fixed + per_doubling x log2(g)
  std::uint64_t seed = 1;

  int nodes() const { return static_cast<int>(names.size()); }
  // One node's factor: its own, or its switch's when that is lower.
  double node_alone_factor(int n) const;
  // The slowest member, link and switch of a group: what a collective over it sees.
  double group_factor(const NodeGroup& g) const;
  double test_seconds(std::size_t group_nodes) const;
};

// Throws UsageError "FILE:LINE: KEY: what".
ClusterModel parse_cluster(const std::string& text, const std::string& file);
ClusterModel load_cluster(const std::string& path);

// A model built in code (bench/bench_bisect): n nodes, `bad` defective at `factor`.
ClusterModel make_cluster(int nodes, const std::vector<int>& bad, double factor, double noise_cv, std::uint64_t seed);

// What a simulated check takes from its spec, as a real run does: the
// switches the spec lists (one label per node, "unlisted" for a node it does
// not list; empty: the model's nodes_per_switch stands in for them) and the
// medians of the gates' baseline files (null: none loaded, so a baseline gate
// finds no entry).
struct SimulatedSpec {
  std::vector<std::string> switch_of;
  BaselineLookup baseline;
};

// Measurements of one group as the model gives them: for each repeat and
// size, busbw/algbw/time from the healthy value (the absolute gates' bars,
// or a baseline gate's median, x (1 + healthy_margin)) times the group's
// factor times (1 + noise_cv x N(0, 1)).
GroupRun simulate_group(const Check& c, const ClusterModel& m, const NodeGroup& g, std::mt19937_64& rng,
                        const BaselineLookup& baseline = {});

// One check through CheckRounds and judge_round against the model, as a real
// run judges it; wall_s is simulated. Each group also goes to `sink` (the
// detail file) as it is judged.
CheckVerdict simulate_check(const Check& c, const ClusterModel& m, std::mt19937_64& rng, const SimulatedSpec& spec = {},
                            const CheckRounds::GroupSink& sink = {});

}  // namespace ccb
