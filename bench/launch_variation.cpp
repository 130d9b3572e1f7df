// Merges the JSON Lines of several launches of one sweep and separates
// launch-to-launch variation from within-launch variation, per point:
//   within  = median over launches of each launch's relative half-width of the
//             median's 95% interval (how precise one launch is);
//   between = (max - min) / median of the launches' per-iteration medians, and
//             their coefficient of variation (how much launches disagree).
// When `between` is well above `within`, one launch's interval understates
// the real uncertainty: repeat launches (scripts/validate/repeat-launches.sh).
//   launch_variation run1.jsonl run2.jsonl ...
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace {
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: launch_variation LAUNCH1.jsonl LAUNCH2.jsonl ...\n");
    return 2;
  }
  using Key = std::tuple<std::string, std::string, std::string, long, std::string>;
  struct Cell {
    std::vector<double> p50, half_width;
  };
  std::map<Key, Cell> cells;
  for (int f = 1; f < argc; ++f) {
    std::ifstream in(argv[f]);
    if (!in) {
      std::fprintf(stderr, "launch_variation: %s: cannot read\n", argv[f]);
      return 2;
    }
    std::string line;
    for (long lineno = 1; std::getline(in, line); ++lineno) {
      const auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded()) {
        std::fprintf(stderr, "launch_variation: %s:%ld: not JSON\n", argv[f], lineno);
        return 2;
      }
      if (j.value("type", "") != "point") continue;
      for (const char* placement : {"out_of_place", "in_place"}) {
        const auto& p = j[placement];
        if (!p.is_object() || !p["per_iteration"].is_object()) continue;
        const auto& s = p["per_iteration"];
        Cell& c = cells[{j["collective"], j["dtype"], j["op"].is_string() ? j["op"].get<std::string>() : "",
                         j["bytes"].get<long>(), placement}];
        const double p50 = s["p50_us"];
        c.p50.push_back(p50);
        if (s["ci95_median_us"].is_array() && p50 > 0)
          c.half_width.push_back(
              std::max(p50 - s["ci95_median_us"][0].get<double>(), s["ci95_median_us"][1].get<double>() - p50) / p50);
      }
    }
  }
  std::printf("%-12s %-8s %-5s %10s %-12s %8s %10s %10s %10s %8s\n", "collective", "dtype", "op", "bytes", "placement",
              "launches", "p50_us", "within", "between", "cv");
  std::vector<double> all_within, all_between;
  for (const auto& [k, c] : cells) {
    const double mid = median(c.p50);
    double mean = 0, sq = 0;
    for (double x : c.p50) mean += x / static_cast<double>(c.p50.size());
    for (double x : c.p50) sq += (x - mean) * (x - mean);
    const double cv = c.p50.size() > 1 ? std::sqrt(sq / static_cast<double>(c.p50.size() - 1)) / mean : 0;
    const double between =
        mid > 0 ? (*std::max_element(c.p50.begin(), c.p50.end()) - *std::min_element(c.p50.begin(), c.p50.end())) / mid
                : 0;
    const double within = median(c.half_width);
    all_within.push_back(within);
    all_between.push_back(between);
    std::printf("%-12s %-8s %-5s %10ld %-12s %8zu %10.3f %9.2f%% %9.2f%% %7.2f%%\n", std::get<0>(k).c_str(),
                std::get<1>(k).c_str(), std::get<2>(k).empty() ? "-" : std::get<2>(k).c_str(), std::get<3>(k),
                std::get<4>(k).c_str(), c.p50.size(), mid, within * 100, between * 100, cv * 100);
  }
  std::printf("median over points: within-launch +-%.2f%%, launch-to-launch range %.2f%%\n", median(all_within) * 100,
              median(all_between) * 100);
  return 0;
}
