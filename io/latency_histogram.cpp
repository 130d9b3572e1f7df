#include "io/latency_histogram.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace ccb {
namespace {

constexpr double kFloorUs = 0.01;  // bucket 0 starts at 10 ns
const double kLogStep = std::log(1.01);

constexpr std::size_t kBuckets = 4096;  // 10 ns x 1.01^4096: beyond any latency

std::size_t bucket_of(double us) {
  if (!(us > kFloorUs)) return 0;
  return static_cast<std::size_t>(std::min(std::log(us / kFloorUs) / kLogStep, static_cast<double>(kBuckets - 1)));
}
double bucket_middle(std::size_t b) { return kFloorUs * std::exp((static_cast<double>(b) + 0.5) * kLogStep); }

}  // namespace

void LatencyHistogram::add(double us) {
  const std::size_t b = bucket_of(us);
  if (b >= buckets_.size()) buckets_.resize(b + 1);  // a vector: no allocation per request once grown
  ++buckets_[b];
  min_ = count_ == 0 ? us : std::min(min_, us);
  max_ = count_ == 0 ? us : std::max(max_, us);
  ++count_;
  sum_ += us;
  sum_sq_ += us * us;
}

void LatencyHistogram::merge(const LatencyHistogram& o) {
  if (o.count_ == 0) return;
  if (o.buckets_.size() > buckets_.size()) buckets_.resize(o.buckets_.size());
  for (std::size_t b = 0; b < o.buckets_.size(); ++b) buckets_[b] += o.buckets_[b];
  min_ = count_ == 0 ? o.min_ : std::min(min_, o.min_);
  max_ = count_ == 0 ? o.max_ : std::max(max_, o.max_);
  count_ += o.count_;
  sum_ += o.sum_;
  sum_sq_ += o.sum_sq_;
}

double LatencyHistogram::percentile(double q) const {
  const auto target = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_)));
  std::uint64_t seen = 0;
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    seen += buckets_[b];
    if (seen >= std::max<std::uint64_t>(target, 1)) return std::clamp(bucket_middle(b), min_, max_);
  }
  return max_;
}

Summary LatencyHistogram::summary() const {
  Summary s;
  s.n = count_;
  if (count_ == 0) return s;
  const double n = static_cast<double>(count_);
  s.min = min_;
  s.max = max_;
  s.mean = sum_ / n;
  s.stddev = count_ > 1 ? std::sqrt(std::max(0.0, (sum_sq_ - sum_ * sum_ / n) / (n - 1))) : 0;
  s.p50 = percentile(0.5);
  s.p90 = percentile(0.9);
  s.p99 = percentile(0.99);
  return s;
}

std::string LatencyHistogram::encode() const {
  std::string out = fmt::format("{} {} {} {} {}", count_, sum_, sum_sq_, min_, max_);
  for (std::size_t b = 0; b < buckets_.size(); ++b)
    if (buckets_[b]) out += fmt::format(" {}:{}", b, buckets_[b]);
  return out;
}

LatencyHistogram LatencyHistogram::decode(const std::string& text) {
  LatencyHistogram h;
  const char* p = text.c_str();
  char* end = nullptr;
  h.count_ = std::strtoull(p, &end, 10);
  h.sum_ = std::strtod(end, &end);
  h.sum_sq_ = std::strtod(end, &end);
  h.min_ = std::strtod(end, &end);
  h.max_ = std::strtod(end, &end);
  while (*end == ' ') {
    const long b = std::strtol(end + 1, &end, 10);
    if (*end != ':') break;
    if (b < 0 || static_cast<std::size_t>(b) >= kBuckets) break;
    const auto at = static_cast<std::size_t>(b);
    if (at >= h.buckets_.size()) h.buckets_.resize(at + 1);
    h.buckets_[at] += std::strtoull(end + 1, &end, 10);
  }
  return h;
}

}  // namespace ccb
