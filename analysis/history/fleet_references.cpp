#include "analysis/history/fleet_references.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <tuple>

#include "analysis/compare/expectation.hpp"
#include "results/stats.hpp"

namespace ccb {

std::vector<PublishedFigure> fleet_figures(const std::vector<FleetSeries>& series, const std::string& system) {
  struct Pool {
    std::vector<double> medians;  // one per host set
    std::size_t runs = 0;
    std::string first, last;  // started_at of the oldest and newest run
  };
  using Key = std::tuple<std::string, std::string, int, int, std::uint64_t>;  // family, collective, ranks, nodes, bytes
  std::map<Key, Pool> pools;
  for (const FleetSeries& s : series) {
    const SeriesKey& k = s.key;
    const std::string family = gpu_family(k.gpu);
    if (family.empty() || k.memory == "host" || k.in_place == 1 || k.ranks < 2 || k.nodes < 1) continue;
    std::vector<double> bw;
    Pool& pool = pools[{family, k.collective, k.ranks, k.nodes, k.bytes}];
    for (const StoredPoint& p : s.points) {
      if (!std::isfinite(p.busbw_gbps) || !(p.busbw_gbps > 0) || p.wrong != 0 || !p.noise.empty()) continue;
      bw.push_back(p.busbw_gbps);
      if (pool.first.empty() || p.started_at < pool.first) pool.first = p.started_at;
      if (p.started_at > pool.last) pool.last = p.started_at;
    }
    if (bw.empty()) continue;
    pool.runs += bw.size();
    pool.medians.push_back(median_of(std::move(bw)));
  }
  std::vector<PublishedFigure> out;
  for (auto& [key, pool] : pools) {
    if (pool.runs < kFleetMinRuns) continue;
    const auto& [family, collective, ranks, nodes, bytes] = key;
    PublishedFigure f;
    f.id = fmt::format("fleet-{}-{}-{}r-{}n-{}", family, collective, ranks, nodes, bytes);
    std::transform(f.id.begin(), f.id.end(), f.id.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    f.system = system.empty() ? fmt::format("this fleet's {} nodes", family) : system;
    f.collective = collective;
    f.gpu = family;
    f.ranks = ranks, f.nodes = nodes, f.bytes = bytes;
    const std::size_t sets = pool.medians.size();
    f.busbw_gbps = median_of(std::move(pool.medians));
    f.source = fmt::format(
        "fleet median: the median over {} host set{} of each one's median, {} clean runs, {} to {} "
        "(ccbench history references)",
        sets, sets == 1 ? "" : "s", pool.runs, pool.first.substr(0, 10), pool.last.substr(0, 10));
    f.date = pool.last.substr(0, 10);
    out.push_back(std::move(f));
  }
  return out;  // the map's order: family, collective, ranks, nodes, size
}

}  // namespace ccb
