// A progress line on stderr during long sweeps: point i/n, size, elapsed,
// estimate of the time left (from the bytes still to move).
#pragma once
#include <chrono>
#include <cstddef>
#include <string>

namespace ccb {

class Progress {
 public:
  Progress(bool enabled, std::size_t total_points, double total_weight);
  void update(const std::string& what, std::size_t bytes);  // after a point completes
  void finish();

  // Seconds left when `done` of `total` weight took `elapsed` seconds.
  static double estimate_left(double elapsed, double done, double total);
  // Weight of one point: its bytes plus a fixed cost per point.
  static double weight(std::size_t bytes) { return static_cast<double>(bytes) + 65536.0; }

 private:
  bool enabled_;
  std::size_t total_points_, done_points_ = 0;
  double total_weight_, done_weight_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace ccb
