#include "analysis/history/series_generator.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace ccb {
namespace {

// splitmix64: a small, fully specified generator.
struct Rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double gaussian() {                                                         // Box-Muller
    const double u = 1 - uniform(), v = uniform();
    return std::sqrt(-2 * std::log(u)) * std::cos(2 * std::numbers::pi * v);
  }
};

}  // namespace

GeneratedSeries generate_series(std::uint64_t seed, const SeriesShape& s) {
  Rng rng{seed};
  GeneratedSeries g;
  const std::size_t want = static_cast<std::size_t>(rng.uniform() * static_cast<double>(s.max_steps + 1));
  // Steps at least min_gap apart and from the ends: tried a bounded number of times.
  for (int tries = 0; g.steps.size() < want && tries < 1000; ++tries) {
    if (s.length < 2 * s.min_gap) break;
    const std::size_t at =
        s.min_gap + static_cast<std::size_t>(rng.uniform() * static_cast<double>(s.length - 2 * s.min_gap + 1));
    bool clear = true;
    for (std::size_t x : g.steps) clear = clear && (at > x ? at - x : x - at) >= s.min_gap;
    if (clear) g.steps.push_back(at);
  }
  std::sort(g.steps.begin(), g.steps.end());
  double level = 100;
  std::size_t next = 0;
  for (std::size_t i = 0; i < s.length; ++i) {
    if (next < g.steps.size() && g.steps[next] == i) {
      const double size = s.min_step + (s.max_step - s.min_step) * rng.uniform();
      level *= rng.uniform() < 0.5 ? 1 - size : 1 + size;
      ++next;
    }
    g.values.push_back(level * (1 + s.noise * rng.gaussian()));
  }
  return g;
}

double DetectionScore::precision() const {
  const std::size_t found = true_positive + false_positive;
  return found == 0 ? 1 : static_cast<double>(true_positive) / static_cast<double>(found);
}

double DetectionScore::recall() const {
  const std::size_t truth = true_positive + false_negative;
  return truth == 0 ? 1 : static_cast<double>(true_positive) / static_cast<double>(truth);
}

void score_detection(const std::vector<std::size_t>& truth, const std::vector<ChangePoint>& found,
                     std::size_t tolerance, DetectionScore& score) {
  std::vector<bool> matched(truth.size(), false);
  for (const ChangePoint& c : found) {
    bool hit = false;
    for (std::size_t k = 0; k < truth.size() && !hit; ++k) {
      const std::size_t d = c.index > truth[k] ? c.index - truth[k] : truth[k] - c.index;
      if (!matched[k] && d <= tolerance) matched[k] = hit = true;
    }
    ++(hit ? score.true_positive : score.false_positive);
  }
  for (bool m : matched) score.false_negative += m ? 0 : 1;
}

}  // namespace ccb
