// Two-sided Mann-Whitney U test (Wilcoxon rank-sum) on two independent
// samples: do the two distributions differ in location? Exact p-value from
// the distribution of U when both samples are small and have no ties;
// otherwise the normal approximation with tie correction and continuity
// correction. No assumption of normality.
#pragma once
#include <optional>
#include <span>

namespace ccb {

struct MannWhitney {
  double u = 0;  // U of the first sample
  double p = 1;  // two-sided p-value
  bool exact = false;
};

// nullopt when either sample has fewer than 2 values.
std::optional<MannWhitney> mann_whitney(std::span<const double> a, std::span<const double> b);

}  // namespace ccb
