// Replayed training steps side by side (ccbench compare on `ccbench replay
// -J` records, docs/compare.md "Replays"): per set the median step time,
// compute and exposed communication (each dimension), and against the
// baseline the ratio of the medians, its interval (the other's 10th / the
// baseline's 90th percentile .. the other's 90th / the baseline's 10th: the
// step-to-step spread of both, conservative) and a Mann-Whitney U test on the
// step times. A set is called faster only when the call_ratio rule names it
// (the interval excludes equal, at most 10x wide) and the test rejects equal
// at alpha.
#pragma once
#include <array>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/decide/decision.hpp"
#include "analysis/workload/replay_record.hpp"

namespace ccb {

struct ReplayMedians {
  double step_s = kNaN, step_p10 = kNaN, step_p90 = kNaN, compute_s = kNaN, exposed_s = kNaN;
  std::array<double, kDims> by_dim{};
};
ReplayMedians replay_medians(const ReplayRun& r);

struct ReplayPair {
  std::size_t other = 0;
  double ratio = kNaN, lo = kNaN, hi = kNaN;  // other / baseline step time, its interval
  std::optional<double> p_value;              // Mann-Whitney on the step times (>= 2 steps each)
  RatioCall call;                             // faster, on the interval and the test
  std::vector<std::string> differences;       // what the two replays did not share (workload, ranks, ...)
};

struct ReplayComparison {
  std::vector<ReplayRun> runs;
  std::vector<ReplayMedians> medians;
  std::size_t baseline = 0;
  double alpha = kDefaultAlpha;
  std::vector<ReplayPair> pairs;  // every other run against the baseline
};

ReplayComparison compare_replays(std::vector<ReplayRun> runs, std::size_t baseline, double alpha);

// compare --json on replays: per set its medians, per pair its ratio, interval, p and call.
std::string replay_comparison_json(const ReplayComparison& c);

}  // namespace ccb
