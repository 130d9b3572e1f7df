// Per-operation latencies of a point, kept as counts in logarithmic buckets
// (1% wide, 10 ns to 1000 s) so that ranks and threads merge exactly and a
// percentile is within 0.5% of the measured value, whatever the count.
#pragma once
#include <cstdint>
#include <vector>
#include <string>

#include "results/stats.hpp"

namespace ccb {

class LatencyHistogram {
 public:
  void add(double us);
  void merge(const LatencyHistogram& other);
  std::uint64_t count() const { return count_; }
  // n, min, p50, p90, p99, max, mean (exact), stddev (exact); no CI.
  Summary summary() const;
  // "bucket:count,..." and back, for gathering across ranks.
  std::string encode() const;
  static LatencyHistogram decode(const std::string& text);

 private:
  double percentile(double q) const;
  std::vector<std::uint64_t> buckets_;  // counts by bucket index (dense)
  std::uint64_t count_ = 0;
  double sum_ = 0, sum_sq_ = 0, min_ = 0, max_ = 0;
};

}  // namespace ccb
