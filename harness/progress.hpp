// Progress of a sweep on stderr (rank 0): a live line on a terminal, or under
// mpirun/srun (where the rank's stderr is a pipe to the launcher) a plain line
// at most every kLineSeconds: point i/n, size, elapsed, estimate of the time left.
#pragma once
#include "common/settings.hpp"
#include <chrono>
#include <cstddef>
#include <string>

namespace ccb {

class Progress {
 public:
  enum class Style { off, live, lines };
  static constexpr double kLineSeconds = 10;

  // total_points 0: no total (-N 0 runs until stopped).
  Progress(Style style, std::size_t total_points, double total_weight);
  void update(const std::string& what, std::size_t bytes);  // after a point completes
  void finish();

  // Seconds left when `done` of `total` weight took `elapsed` seconds, and the
  // last point took `last_seconds` for `last_weight`: the larger of the
  // average rate's and the last point's estimate (sweeps grow by factors, so
  // the last point predicts the next ones better than the early ones do).
  static double estimate_left(double elapsed, double done, double total, double last_seconds = 0,
                              double last_weight = 0);
  // Weight of one point: its bytes plus a fixed cost per point.
  static double weight(std::size_t bytes) { return static_cast<double>(bytes) + 65536.0; }
  // --progress: on, or auto on a terminal: live; auto under a launcher: lines; else off.
  static Style choose(ProgressMode mode, bool stderr_is_terminal, bool launched);

 private:
  Style style_;
  std::size_t total_points_, done_points_ = 0;
  double total_weight_, done_weight_ = 0, last_at_ = 0, last_line_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace ccb
