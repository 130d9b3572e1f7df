#include "analysis/accept/simulate.hpp"

#include <fmt/format.h>

#include <unordered_map>

#include <algorithm>
#include <numeric>
#include <cmath>
#include <set>

#include "common/errors.hpp"
#include "results/yaml_fields.hpp"

namespace ccb {
namespace {

constexpr double kDefaultBusbw = 100;  // GB/s, at sizes no bandwidth gate judges

struct Healthy {
  double busbw_gbps = kDefaultBusbw, time_us = 0;
};

// A group of `ranks` nodes, one rank each, for a baseline file's entry (it
// keys by counts; which nodes does not matter).
NodeGroup first_nodes(int ranks) {
  NodeGroup g(static_cast<std::size_t>(std::max(ranks, 0)));
  std::iota(g.begin(), g.end(), 0);
  return g;
}

// What a healthy group of `ranks` measures at `bytes`: each absolute gate's
// bar, or a baseline gate's median, x (1 + margin) (a time: divided by it).
Healthy healthy(const Check& c, const ClusterModel& m, std::size_t bytes, int ranks, const BaselineLookup& baseline) {
  Healthy h;
  const double factor = ranks > 1 && c.collective ? bus_factor(*c.collective, ranks) : 1.0;
  bool time_gate = false;
  for (const Gate& g : c.gates) {
    if (g.at_bytes != bytes || g.population || g.history) continue;
    double bar = g.bar();
    if (!g.baseline.empty()) {
      const std::optional<double> base = baseline ? baseline(c, g, ranks, first_nodes(ranks)) : std::nullopt;
      if (!base) continue;  // no entry: the gate fails the group, as in a real run
      bar = *base;
    }
    if (g.metric == Metric::busbw) h.busbw_gbps = bar * (1 + m.healthy_margin);
    if (g.metric == Metric::algbw) h.busbw_gbps = bar * (1 + m.healthy_margin) * factor;
    if (g.metric == Metric::time) h.time_us = bar / (1 + m.healthy_margin), time_gate = true;
  }
  if (!time_gate) h.time_us = static_cast<double>(bytes) / (h.busbw_gbps / factor * 1e3);
  return h;
}

// The probability that the model's noise alone fails one measurement of a
// healthy group at gate g: the factor e = max(0.01, 1 + cv x N(0, 1)) falls
// below bar / healthy (bandwidth; time: healthy / bar). NaN: not known
// (population gates, no baseline entry).
double healthy_miss_probability(const Check& c, const ClusterModel& m, const Gate& g, int ranks,
                                const BaselineLookup& baseline) {
  if (g.population || g.history) return std::nan("");
  const std::optional<double> base = g.baseline.empty() ? std::optional<double>(0)
                                     : baseline         ? baseline(c, g, ranks, first_nodes(ranks))
                                                        : std::nullopt;
  if (!base) return std::nan("");
  const Healthy h = healthy(c, m, g.at_bytes, ranks, baseline);
  const double factor = ranks > 1 && c.collective ? bus_factor(*c.collective, ranks) : 1.0;
  const double value = g.metric == Metric::busbw   ? h.busbw_gbps
                       : g.metric == Metric::algbw ? h.busbw_gbps / factor
                                                   : h.time_us;
  const double bar = g.bar(*base);
  const double need = higher_is_better(g.metric) ? bar / value : value / bar;  // e must reach this
  if (m.noise_cv == 0) return need > 1 ? 1 : 0;
  return 0.5 * std::erfc(-((need - 1) / m.noise_cv) / std::sqrt(2.0));
}

// What a simulation can say that a real run cannot: how often its noise
// fails a healthy group, and which named nodes the model made defective.
void add_simulation_findings(const Check& c, const ClusterModel& m, const BaselineLookup& baseline, CheckVerdict& v) {
  double worst = 0;
  const Gate* at = nullptr;
  for (const Gate& g : c.gates) {
    const double p = healthy_miss_probability(c, m, g, 2, baseline);
    if (p > worst) worst = p, at = &g;
  }
  std::vector<std::string> said;  // first in the check's findings: they qualify the rest
  if (at && worst >= 0.01)
    said.push_back(fmt::format(
        "simulation: the model's noise (noise_cv {:g}, healthy_margin {:g}) fails {:.0f}% of a healthy group's "
        "measurements at {}: expect healthy nodes and links named (more repeats or a wider margin tell them apart)",
        m.noise_cv, m.healthy_margin, worst * 100, at->describe()));
  const double threshold = 1 / (1 + m.healthy_margin);  // a factor below it misses the bar without noise
  std::vector<std::string> false_named;
  int made = 0, found = 0;
  for (std::size_t n = 0; n < m.names.size(); ++n) {
    const bool bad = m.node_alone_factor(static_cast<int>(n)) < threshold;
    const bool named = v.nodes.size() > n && v.nodes[n].status == NodeStatus::defective;
    made += bad;
    found += bad && named;
    if (named && !bad) false_named.push_back(m.names[n]);
  }
  int false_links = 0;
  for (const auto& [a, b] : v.links) {
    const auto it = m.link_factor.find({std::min(a, b), std::max(a, b)});
    false_links += it == m.link_factor.end() || it->second >= threshold;
  }
  if (made > 0 || !false_named.empty() || false_links > 0) {
    std::string text =
        made > 0 ? fmt::format("simulation against the model: {} of the {} nodes it makes defective named", found, made)
                 : std::string("simulation against the model: it makes no node defective");
    if (!false_named.empty())
      text += fmt::format("; {} healthy node{} named defective ({})", false_named.size(),
                          false_named.size() == 1 ? "" : "s", name_list(false_named));
    if (false_links > 0) text += fmt::format("; {} healthy link{} blamed", false_links, false_links == 1 ? "" : "s");
    // A verdict the model contradicts comes first; one it confirms, last.
    if (found < made || !false_named.empty() || false_links > 0) said.push_back(text);
    else v.findings.push_back(text);
  }
  v.findings.insert(v.findings.begin(), said.begin(), said.end());
}

}  // namespace

double ClusterModel::node_alone_factor(int n) const {
  double f = node_factor[static_cast<std::size_t>(n)];
  if (!switch_of.empty()) {
    const auto it = switch_factor.find(switch_of[static_cast<std::size_t>(n)]);
    if (it != switch_factor.end()) f = std::min(f, it->second);
  }
  return f;
}

double ClusterModel::group_factor(const NodeGroup& g) const {
  double f = 1;
  for (int n : g) f = std::min(f, node_alone_factor(n));
  // The group's links: each defective link whose two ends are both in it
  // (O(links + g log g), not every pair of a 131,072-node group).
  if (!link_factor.empty()) {
    NodeGroup sorted = g;
    std::sort(sorted.begin(), sorted.end());
    const auto in = [&](int n) { return std::binary_search(sorted.begin(), sorted.end(), n); };
    for (const auto& [link, factor] : link_factor)
      if (factor < f && in(link.first) && in(link.second)) f = factor;
  }
  return f;
}

double ClusterModel::test_seconds(std::size_t group_nodes) const {
  return test_fixed_s + test_per_doubling_s * std::log2(static_cast<double>(std::max<std::size_t>(1, group_nodes)));
}

ClusterModel make_cluster(int nodes, const std::vector<int>& bad, double factor, double noise_cv, std::uint64_t seed) {
  ClusterModel m;
  m.file = "(built in)";
  const int width = std::max(4, static_cast<int>(std::to_string(nodes).size()));
  for (int i = 1; i <= nodes; ++i) m.names.push_back(fmt::format("node{:0{}}", i, width));
  m.node_factor.assign(static_cast<std::size_t>(nodes), 1.0);
  for (int b : bad) m.node_factor[static_cast<std::size_t>(b)] = factor;
  m.noise_cv = noise_cv;
  m.seed = seed;
  return m;
}

#if CCBENCH_HAVE_YAML
namespace {

// defective:, defective_links:, defective_switches: into the model (after
// nodes_per_switch: has named the switches).
void read_defects(const std::string& file, const YAML::Node& root, ClusterModel& m) {
  using yamlf::fail;
  std::unordered_map<std::string, int> index_of;  // one lookup per name: 75,000 defective names took minutes linearly
  index_of.reserve(m.names.size());
  for (std::size_t i = 0; i < m.names.size(); ++i) index_of.emplace(m.names[i], static_cast<int>(i));
  const auto node_index = [&](const YAML::Node& v, const std::string& key) {
    if (!v.IsScalar()) fail(file, v, key, "expected a node name (node0001 ...)");
    const auto it = index_of.find(v.Scalar());
    if (it == index_of.end())
      fail(file, v, key,
           fmt::format("'{}' is not a node of this cluster ({} ... {})", v.Scalar(), m.names.front(), m.names.back()));
    return it->second;
  };
  const auto factor_of = [&](const YAML::Node& map, const std::string& where) {
    const double f = yamlf::number(file, map, where, "factor", 1e-9, 1, true);
    return f;
  };
  if (const YAML::Node d = root["defective"]) {
    yamlf::check_keys(file, d, "defective", {"nodes", "factor"});
    const double f = factor_of(d, "defective");
    const YAML::Node list = d["nodes"];
    if (!list || !list.IsSequence()) fail(file, list ? list : d, "defective.nodes", "expected a list of node names");
    for (std::size_t i = 0; i < list.size(); ++i)
      m.node_factor[static_cast<std::size_t>(node_index(list[i], fmt::format("defective.nodes[{}]", i)))] = f;
  }
  if (const YAML::Node d = root["defective_links"]) {
    yamlf::check_keys(file, d, "defective_links", {"links", "factor"});
    const double f = factor_of(d, "defective_links");
    const YAML::Node list = d["links"];
    if (!list || !list.IsSequence())
      fail(file, list ? list : d, "defective_links.links", "expected a list of [node, node] pairs");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string key = fmt::format("defective_links.links[{}]", i);
      if (!list[i].IsSequence() || list[i].size() != 2) fail(file, list[i], key, "expected a pair [node, node]");
      const int a = node_index(list[i][0], key + "[0]"), b = node_index(list[i][1], key + "[1]");
      if (a == b) fail(file, list[i], key, "a link joins two different nodes");
      m.link_factor[{std::min(a, b), std::max(a, b)}] = f;
    }
  }
  if (const YAML::Node d = root["defective_switches"]) {
    yamlf::check_keys(file, d, "defective_switches", {"switches", "factor"});
    if (m.switch_of.empty())
      fail(file, d, "defective_switches", "needs nodes_per_switch (the switches' names come from it)");
    const double f = factor_of(d, "defective_switches");
    const YAML::Node list = d["switches"];
    if (!list || !list.IsSequence())
      fail(file, list ? list : d, "defective_switches.switches", "expected a list of switch names");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string key = fmt::format("defective_switches.switches[{}]", i);
      if (!list[i].IsScalar() ||
          std::find(m.switch_of.begin(), m.switch_of.end(), list[i].Scalar()) == m.switch_of.end())
        fail(file, list[i], key,
             fmt::format("not a switch of this cluster ({} ... {})", m.switch_of.front(), m.switch_of.back()));
      m.switch_factor[list[i].Scalar()] = f;
    }
  }
}

}  // namespace

ClusterModel parse_cluster(const std::string& text, const std::string& file) {
  using yamlf::fail;
  using yamlf::key_path;
  const YAML::Node root = yamlf::parse_text(text, file);
  if (!root.IsMap()) fail(file, root, "(top level)", "expected a mapping (nodes: N, defective: ..., noise_cv: ...)");
  yamlf::check_keys(file, root, "",
                    {"nodes", "defective", "defective_links", "defective_switches", "nodes_per_switch", "noise_cv",
                     "healthy_margin", "test_time_s", "seed"});
  if (!root["nodes"]) fail(file, root, "nodes", "missing (how many nodes the cluster has)");
  const int n = static_cast<int>(yamlf::number(file, root, "", "nodes", 2, 1 << 17, true, true));
  const double seed = yamlf::number(file, root, "", "seed", 0, 9007199254740991.0, false, true);
  ClusterModel m = make_cluster(n, {}, 1, 0, std::isnan(seed) ? 1 : static_cast<std::uint64_t>(seed));
  m.file = file;
  const double cv = yamlf::number(file, root, "", "noise_cv", 0, 1, false);
  m.noise_cv = std::isnan(cv) ? 0 : cv;
  const double margin = yamlf::number(file, root, "", "healthy_margin", 0, 10, false);
  if (!std::isnan(margin)) m.healthy_margin = margin;
  if (const YAML::Node t = root["test_time_s"]) {
    yamlf::check_keys(file, t, "test_time_s", {"fixed", "per_doubling"});
    const double fixed = yamlf::number(file, t, "test_time_s", "fixed", 0, 86400, false);
    const double per = yamlf::number(file, t, "test_time_s", "per_doubling", 0, 86400, false);
    if (!std::isnan(fixed)) m.test_fixed_s = fixed;
    if (!std::isnan(per)) m.test_per_doubling_s = per;
  }
  if (const YAML::Node nps = root["nodes_per_switch"]) {
    const int per = static_cast<int>(yamlf::number(file, root, "", "nodes_per_switch", 1, n, true, true));
    const int width = std::max(2, static_cast<int>(std::to_string((n + per - 1) / per).size()));
    for (int i = 0; i < n; ++i) m.switch_of.push_back(fmt::format("switch{:0{}}", i / per + 1, width));
  }
  read_defects(file, root, m);
  return m;
}
#else
ClusterModel parse_cluster(const std::string&, const std::string& file) {
  throw UsageError(fmt::format("{}: cluster models need yaml-cpp; this ccbench was built without it", file));
}
#endif

ClusterModel load_cluster(const std::string& path) { return parse_cluster(yamlf::read_text(path), path); }

GroupRun simulate_group(const Check& c, const ClusterModel& m, const NodeGroup& g, std::mt19937_64& rng,
                        const BaselineLookup& baseline) {
  GroupRun run;
  run.nodes = g;
  run.ranks = static_cast<int>(g.size());
  const double f = m.group_factor(g);
  std::normal_distribution<double> normal(0, 1);
  const double factor = run.ranks > 1 && c.collective ? bus_factor(*c.collective, run.ranks) : 1.0;
  std::vector<Healthy> per_size;  // the same for every repeat: looked up once
  for (std::size_t bytes : c.sizes) per_size.push_back(healthy(c, m, bytes, run.ranks, baseline));
  for (int k = 0; k < c.repeats; ++k) {
    RepeatResult r;
    for (std::size_t i = 0; i < c.sizes.size(); ++i) {
      const std::size_t bytes = c.sizes[i];
      const Healthy& h = per_size[i];
      const double e = std::max(0.01, 1 + m.noise_cv * normal(rng)) * f;
      MeasuredPoint p;
      p.requested_bytes = p.bytes = bytes;
      p.busbw_gbps = h.busbw_gbps * e;
      p.algbw_gbps = p.busbw_gbps / factor;
      p.time_us = h.time_us / e;
      r.points.push_back(p);
    }
    run.repeats.push_back(r);
  }
  return run;
}

CheckVerdict simulate_check(const Check& c, const ClusterModel& m, std::mt19937_64& rng, const SimulatedSpec& spec,
                            const CheckRounds::GroupSink& sink) {
  if (c.has_skew_gate())
    throw UsageError(
        fmt::format("accept --simulate: check {}: skew gates are not simulated (the cluster model has no "
                    "late ranks): simulate a copy of the spec without them",
                    c.name));
  CheckRounds plan(c, m.nodes(), spec.switch_of.empty() ? m.switch_of : spec.switch_of);
  plan.set_sink(sink);
  double wall = 0;
  Population population;
  while (const auto round = plan.next()) {
    std::vector<GroupRun> runs;
    double longest = 0;
    for (const NodeGroup& g : round->groups) {
      GroupRun run = simulate_group(c, m, g, rng, spec.baseline);
      run.pass = round->pass;
      run.round = round->round;
      runs.push_back(std::move(run));
      longest = std::max(longest, m.test_seconds(g.size()) * c.repeats);
    }
    wall += longest;
    plan.record(judge_round(c, runs, population, spec.baseline));
  }
  CheckVerdict v = plan.finish(m.names);
  v.wall_s = wall;
  add_simulation_findings(c, m, spec.baseline, v);
  return v;
}

}  // namespace ccb
