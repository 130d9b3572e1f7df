// Fitting the scale model (ccbench model fit) on many points, next to its
// baseline in the same run: aligning the same points into series the way
// ccbench compare does (build_series: grouping and sorting by key and size).
// Usage: bench_model [POINTS] [REPEATS]   (default 10000 points, 5 repeats)
// Points: 8 rank counts x POINTS/16 sizes x 2 placements of one all_reduce
// series, ring times with 5% multiplicative noise.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>

#include "analysis/compare/series.hpp"
#include "analysis/model/comm_model.hpp"

using namespace ccb;

namespace {

ResultSet points(std::size_t n) {
  ResultSet set;
  set.label = "bench";
  set.files.push_back("bench.jsonl");
  set.formats.push_back("ccbench JSON Lines");
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0, 0.05);
  const std::size_t sizes = std::max<std::size_t>(1, n / 16);
  for (int ranks : {2, 3, 4, 6, 8, 12, 16, 24})
    for (std::size_t i = 0; i < sizes; ++i)
      for (int in_place : {0, 1}) {
        ImportedPoint p;
        p.collective = "all_reduce", p.dtype = "float", p.op = "sum", p.path = "auto", p.memory = "host";
        p.ranks = ranks, p.nodes = ranks, p.in_place = in_place;
        p.bytes =
            static_cast<std::uint64_t>(std::exp2(10 + 20.0 * static_cast<double>(i) / static_cast<double>(sizes)));
        const double s = static_cast<double>(p.bytes);
        p.time_us = 2.0 * (ranks - 1) * (20 + s / ranks / 1000) * std::exp(noise(rng));
        set.points.push_back(p);
      }
  return set;
}

template <class F>
double best_seconds(int repeats, F&& f) {
  double best = INFINITY;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10000;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  const std::vector<ResultSet> runs{points(n)};
  std::size_t series = 0;
  const double fit_s = best_seconds(repeats, [&] { series += fit_model(runs).series.size(); });
  std::size_t aligned = 0;
  const double align_s = best_seconds(repeats, [&] { aligned += build_series(runs[0], kKeyAll).series.size(); });
  fmt::print("model fit of {} points ({} series): {:.3f} s (best of {}; target < 1 s)\n", runs[0].points.size(),
             series / static_cast<std::size_t>(repeats), fit_s, repeats);
  fmt::print("baseline, compare's alignment of the same points: {:.4f} s; fit / alignment = {:.1f}x\n", align_s,
             fit_s / align_s);
  return fit_s < 1 ? 0 : 1;
}
