// Change points in one series of runs (docs/history.md): E-Divisive means
// (Matteson & James 2014: the split that maximises the energy divergence of
// the two sides) with each candidate tested by Student's t-test instead of
// permutations, over sliding windows, then every change point re-tested
// against its neighbours until all hold: Apache Otava's (formerly Hunter)
// formulation. Deterministic: no random permutations.
#pragma once
#include <cstddef>
#include <span>
#include <vector>

namespace ccb {

struct ChangePointOptions {
  double max_p = 0.001;         // a change point is kept when Student's t-test's p is below this
  double min_magnitude = 0;     // ... and |mean after / mean before - 1| is at least this
  std::size_t window = 50;      // E-Divisive runs over windows of this many runs (half-overlapping); 0: whole series
  std::size_t min_segment = 3;  // runs on each side of a change point, at least
  // Test log(x) (values > 0): multiplicative noise, as times and bandwidths
  // have, becomes additive, an outlier run weighs the same whether the series
  // is a time or a bandwidth, and the means reported are geometric.
  bool log_scale = false;
};

struct ChangePoint {
  std::size_t index = 0;                       // the first run after the change
  std::size_t before = 0, after = 0;           // runs in the segments either side (to the neighbouring change points)
  double mean_before = 0, mean_after = 0;      // geometric means with log_scale
  double stddev_before = 0, stddev_after = 0;  // of log(x) with log_scale
  double p = 1;
  double relative_change() const { return mean_before != 0 ? mean_after / mean_before - 1 : 0; }
};

// Change points of x in order of index (log_scale: x must be > 0).
std::vector<ChangePoint> change_points(std::span<const double> x, const ChangePointOptions& options = {});

// The split of x[begin, end) that maximises E-Divisive's divergence statistic
// (alpha 1) with at least `min_segment` values each side; `end` when the
// interval is too short. Exposed for tests.
std::size_t best_energy_split(std::span<const double> x, std::size_t begin, std::size_t end, std::size_t min_segment);

}  // namespace ccb
