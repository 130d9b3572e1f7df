// Student's two-sample t-test (pooled variance) from summary statistics: the
// significance test that history's change-point detection applies to the
// segments on either side of a candidate (Otava's choice instead of
// E-Divisive's permutations). Pooled, not Welch's: a short segment whose few
// values happen to lie close together must not make a tiny p on its own.
#pragma once
#include <cstddef>
#include <span>

namespace ccb {

struct SampleStats {
  std::size_t n = 0;
  double mean = 0, stddev = 0;  // stddev: the sample's (n - 1)
};
SampleStats sample_stats(std::span<const double> x);

// Two-sided P(|T| >= |t|) for Student's t with `df` degrees of freedom (df > 0).
double student_t_two_sided_p(double t, double df);

// Two-sided p-value that a and b have the same mean (n >= 1 each, 3 in all;
// else 1). Both without spread: 0 when the means differ, 1 when equal.
double student_p_value(const SampleStats& a, const SampleStats& b);

}  // namespace ccb
