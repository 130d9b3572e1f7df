#include "analysis/history/student_t_test.hpp"

#include <cmath>

namespace ccb {
namespace {

// The continued fraction of the regularized incomplete beta function
// (modified Lentz), valid for x < (a + 1) / (a + b + 2).
double beta_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300, kEps = 1e-15;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double f = d;
  for (int m = 1; m <= 500; ++m) {
    const double m2 = 2.0 * m;
    double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    for (int half = 0; half < 2; ++half) {
      d = 1 + num * d;
      if (std::fabs(d) < kTiny) d = kTiny;
      c = 1 + num / c;
      if (std::fabs(c) < kTiny) c = kTiny;
      d = 1 / d;
      f *= c * d;
      num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    }
    if (std::fabs(c * d - 1) < kEps) break;
  }
  return f;
}

// I_x(a, b).
double regularized_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front =
      std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

}  // namespace

SampleStats sample_stats(std::span<const double> x) {
  SampleStats s;
  s.n = x.size();
  if (x.empty()) return s;
  for (double v : x) s.mean += v;
  s.mean /= static_cast<double>(x.size());
  double ss = 0;
  for (double v : x) ss += (v - s.mean) * (v - s.mean);
  s.stddev = x.size() > 1 ? std::sqrt(ss / static_cast<double>(x.size() - 1)) : 0;
  return s;
}

double student_t_two_sided_p(double t, double df) {
  if (!std::isfinite(t)) return 0;
  return regularized_beta(df / 2, 0.5, df / (df + t * t));
}

double student_p_value(const SampleStats& a, const SampleStats& b) {
  if (a.n < 1 || b.n < 1 || a.n + b.n < 3) return 1;
  const double na = static_cast<double>(a.n), nb = static_cast<double>(b.n), df = na + nb - 2;
  const double pooled = ((na - 1) * a.stddev * a.stddev + (nb - 1) * b.stddev * b.stddev) / df;
  const double se2 = pooled * (1 / na + 1 / nb);
  if (se2 <= 0) return a.mean == b.mean ? 1 : 0;
  return student_t_two_sided_p((a.mean - b.mean) / std::sqrt(se2), df);
}

}  // namespace ccb
