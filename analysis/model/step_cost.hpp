// The cost of one algorithm step as a function of the bytes it moves, learned
// from measured points: a local-linear kernel regression of y = log(cost) on
// x = log2(bytes) (Gaussian kernel, bandwidth kBandwidth), the slope dy/d(ln
// bytes) held within [0, 1.2] (a step never gets cheaper with more bytes, nor
// much worse than proportional). Outside the measured x: the cost at the
// smallest below, proportional to bytes above. Points are binned (1/16 of a
// doubling) with their sums, so an evaluation costs O(bins in the window),
// and each point carries a group (its rank count) that an evaluation can
// leave out, for leave-one-count-out checks.
#pragma once
#include <vector>

namespace ccb {

class StepCost {
 public:
  static constexpr double kBandwidth = 0.75;  // in doublings of the step size

  explicit StepCost(int groups) : groups_(groups) {}
  void add(double x, double y, int group);
  // log(cost) at x, leaving out `skip` (-1: none). NaN when nothing is left.
  double eval(double x, int skip = -1) const;
  // Whether x lies within the measured step sizes (of the groups other than skip).
  bool inside(double x, int skip = -1) const;

 private:
  struct Sums {
    double n = 0, x = 0, y = 0, xx = 0, xy = 0;
  };
  struct Bin {
    long index;
    Sums all;
    std::vector<Sums> by_group;
  };
  Sums sums(const Bin& b, int skip) const;
  double local_linear(double x, int skip) const;
  bool range(int skip, double* lo, double* hi) const;
  int groups_;
  std::vector<Bin> bins_;  // ascending index
};

}  // namespace ccb
