#include "harness/progress.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "harness/sizes.hpp"

namespace ccb {

Progress::Progress(bool enabled, std::size_t total_points, double total_weight)
    : enabled_(enabled), total_points_(total_points), total_weight_(total_weight),
      start_(std::chrono::steady_clock::now()) {}

double Progress::estimate_left(double elapsed, double done, double total) {
  if (done <= 0 || total <= done) return 0;
  return elapsed * (total - done) / done;
}

void Progress::update(const std::string& what, std::size_t bytes) {
  ++done_points_;
  done_weight_ += weight(bytes);
  if (!enabled_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  fmt::print(stderr, "\r\033[K[{}] {} point {}/{} elapsed {:.1f}s left ~{:.1f}s", what, format_size(bytes),
             done_points_, total_points_, elapsed, estimate_left(elapsed, done_weight_, total_weight_));
  std::fflush(stderr);
}

void Progress::finish() {
  if (!enabled_) return;
  fmt::print(stderr, "\r\033[K");
  std::fflush(stderr);
}

}  // namespace ccb
