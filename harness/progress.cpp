#include "harness/progress.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "common/sizes.hpp"

namespace ccb {

Progress::Progress(Style style, std::size_t total_points, double total_weight)
    : style_(style),
      total_points_(total_points),
      total_weight_(total_weight),
      start_(std::chrono::steady_clock::now()) {}

Progress::Style Progress::choose(ProgressMode mode, bool stderr_is_terminal, bool launched) {
  if (mode == ProgressMode::off) return Style::off;
  if (mode == ProgressMode::on || stderr_is_terminal) return Style::live;
  return launched ? Style::lines : Style::off;
}

double Progress::estimate_left(double elapsed, double done, double total, double last_seconds, double last_weight) {
  if (done <= 0 || total <= done) return 0;
  const double average = elapsed * (total - done) / done;
  const double recent = last_weight > 0 ? last_seconds * (total - done) / last_weight : 0;
  return std::max(average, recent);
}

void Progress::update(const std::string& what, std::size_t bytes) {
  ++done_points_;
  done_weight_ += weight(bytes);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double left = estimate_left(elapsed, done_weight_, total_weight_, elapsed - last_at_, weight(bytes));
  last_at_ = elapsed;
  if (style_ == Style::off) return;
  // No total (-N 0, until stopped): the count alone, no estimate.
  const std::string of = total_points_ > 0 ? fmt::format("/{}", total_points_) : std::string(" (until stopped)");
  if (style_ == Style::live) {
    fmt::print(stderr, "\r\033[K[{}] {} point {}{} elapsed {:.1f}s{}", what, format_size(bytes), done_points_, of,
               elapsed, total_points_ > 0 ? fmt::format(" left ~{:.1f}s", left) : std::string());
  } else {
    if (elapsed - last_line_ < kLineSeconds) return;  // a short sweep prints nothing
    last_line_ = elapsed;
    fmt::print(stderr, "ccbench: progress: {} {} point {}{}, elapsed {:.1f} s{}\n", what, format_size(bytes),
               done_points_, of, elapsed, total_points_ > 0 ? fmt::format(", ~{:.1f} s left", left) : std::string());
  }
  std::fflush(stderr);
}

void Progress::finish() {
  if (style_ != Style::live) return;
  fmt::print(stderr, "\r\033[K");
  std::fflush(stderr);
}

}  // namespace ccb
