// Finding bad nodes: pattern bisect vs pairwise, through the real schedule and
// verdict code (CheckRounds via simulate_check) on simulated clusters.
// For n nodes, k defective (bandwidth factor 0.5), noise 0-10% (coefficient of
// variation of every measurement), S seeds each: rounds, simulated cluster
// time (30 s per round), false defective verdicts per healthy node, missed
// defective nodes. Pairwise runs up to --pairwise-max nodes (it needs n - 1
// rounds of n/2 pairs each; beyond that its rounds are n - 1 plus its second
// pass, printed as such).
// Usage: bench_bisect [--seeds S] [--pairwise-max N] [--csv FILE]
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bench/simulated_check.hpp"
#include "analysis/accept/simulate.hpp"

using namespace ccb;

namespace {

struct Totals {
  double rounds = 0, max_rounds = 0, wall_s = 0;
  long false_defective = 0, healthy = 0, missed = 0, defective = 0, runs = 0;
};

Totals measure(GroupPattern p, int n, int k, double noise, int seeds) {
  const Check c = simulated_check(p);
  Totals t;
  for (int s = 1; s <= seeds; ++s) {
    std::mt19937_64 pick(static_cast<std::uint64_t>(s) * 1000003u + static_cast<std::uint64_t>(n * 31 + k));
    std::set<int> bad;
    while (static_cast<int>(bad.size()) < k) bad.insert(static_cast<int>(pick() % static_cast<std::uint64_t>(n)));
    const ClusterModel m =
        make_cluster(n, std::vector<int>(bad.begin(), bad.end()), 0.5, noise, static_cast<std::uint64_t>(s));
    std::mt19937_64 rng(m.seed);
    const CheckVerdict v = simulate_check(c, m, rng);
    t.rounds += v.rounds;
    t.max_rounds = std::max(t.max_rounds, static_cast<double>(v.rounds));
    t.wall_s += v.wall_s;
    for (std::size_t i = 0; i < v.nodes.size(); ++i) {
      const bool is_bad = bad.count(static_cast<int>(i)) > 0;
      const bool named = v.nodes[i].status == NodeStatus::defective;
      if (is_bad) ++t.defective, t.missed += named ? 0 : 1;
      else ++t.healthy, t.false_defective += named ? 1 : 0;
    }
    ++t.runs;
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  int seeds = 100, pairwise_max = 128;
  std::string csv_path;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--seeds")) seeds = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--pairwise-max")) pairwise_max = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--csv")) csv_path = argv[i + 1];
  }
  std::FILE* csv = csv_path.empty() ? nullptr : std::fopen(csv_path.c_str(), "w");
  if (csv)
    std::fprintf(
        csv,
        "pattern,nodes,defective,noise_cv,seeds,rounds_mean,rounds_max,sim_hours_mean,false_defective_rate,missed\n");
  fmt::print(
      "| pattern | n | k | noise | rounds (mean / max) | cluster time (h, mean) | false defective per healthy node | "
      "missed defective |\n");
  fmt::print("|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int n : {8, 32, 128, 512, 1024, 4096, 16384})
    for (int k : {0, 1, 2, 4, 8})
      for (double noise : {0.0, 0.05, 0.10}) {
        if (k >= n) continue;
        for (GroupPattern p : {GroupPattern::pairwise, GroupPattern::bisect}) {
          if (p == GroupPattern::pairwise && n > pairwise_max) continue;
          const int s = p == GroupPattern::pairwise ? std::max(1, seeds / 5) : seeds;
          const Totals t = measure(p, n, k, noise, s);
          const double rate = t.healthy ? static_cast<double>(t.false_defective) / static_cast<double>(t.healthy) : 0;
          fmt::print("| {} | {} | {} | {:.0f}% | {:.1f} / {:.0f} | {:.2f} | {:.2e} | {} of {} |\n", name(p), n, k,
                     noise * 100, t.rounds / static_cast<double>(t.runs), t.max_rounds,
                     t.wall_s / static_cast<double>(t.runs) / 3600, rate, t.missed, t.defective);
          if (csv)
            std::fprintf(csv, "%s,%d,%d,%g,%d,%g,%g,%g,%g,%ld\n", std::string(name(p)).c_str(), n, k, noise, s,
                         t.rounds / static_cast<double>(t.runs), t.max_rounds,
                         t.wall_s / static_cast<double>(t.runs) / 3600, rate, t.missed);
        }
        std::fflush(stdout);
      }
  if (csv) std::fclose(csv);
  return 0;
}
