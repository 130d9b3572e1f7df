// Series with known step changes and noise, from a seed: the ground truth
// that history's change-point detection is scored against (unit tests,
// bench/history_bench.cpp's precision and recall, docs/history.md).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "analysis/history/change_points.hpp"

namespace ccb {

struct GeneratedSeries {
  std::vector<double> values;
  std::vector<std::size_t> steps;  // index of the first run after each step
};

struct SeriesShape {
  std::size_t length = 60;
  std::size_t max_steps = 3;                // 0 to this many, drawn uniformly
  std::size_t min_gap = 10;                 // runs between steps and from either end, at least
  double min_step = 0.10, max_step = 0.30;  // relative size of a step, drawn uniformly; up or down
  double noise = 0.05;                      // Gaussian noise, standard deviation relative to the level
};

// Deterministic for a seed on every platform (own Gaussian, not <random>'s).
GeneratedSeries generate_series(std::uint64_t seed, const SeriesShape& shape);

struct DetectionScore {
  std::size_t true_positive = 0, false_positive = 0, false_negative = 0;
  double precision() const;  // 1 when nothing was found
  double recall() const;     // 1 when there was nothing to find
};

// A found change point within `tolerance` runs of a true step (each step
// matched at most once) is a true positive.
void score_detection(const std::vector<std::size_t>& truth, const std::vector<ChangePoint>& found,
                     std::size_t tolerance, DetectionScore& score);

}  // namespace ccb
