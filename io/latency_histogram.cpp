#include "io/latency_histogram.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace ccb {
namespace {

constexpr double kFloorUs = 0.01;  // bucket 0 starts at 10 ns
const double kLogStep = std::log(1.01);

int bucket_of(double us) {
  if (!(us > kFloorUs)) return 0;
  return static_cast<int>(std::min(std::log(us / kFloorUs) / kLogStep, 1e6));
}
double bucket_middle(int b) { return kFloorUs * std::exp((b + 0.5) * kLogStep); }

}  // namespace

void LatencyHistogram::add(double us) {
  ++buckets_[bucket_of(us)];
  min_ = count_ == 0 ? us : std::min(min_, us);
  max_ = count_ == 0 ? us : std::max(max_, us);
  ++count_;
  sum_ += us;
  sum_sq_ += us * us;
}

void LatencyHistogram::merge(const LatencyHistogram& o) {
  if (o.count_ == 0) return;
  for (const auto& [b, n] : o.buckets_) buckets_[b] += n;
  min_ = count_ == 0 ? o.min_ : std::min(min_, o.min_);
  max_ = count_ == 0 ? o.max_ : std::max(max_, o.max_);
  count_ += o.count_;
  sum_ += o.sum_;
  sum_sq_ += o.sum_sq_;
}

double LatencyHistogram::percentile(double q) const {
  const auto target = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_)));
  std::uint64_t seen = 0;
  for (const auto& [b, n] : buckets_) {
    seen += n;
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
  for (const auto& [b, n] : buckets_) out += fmt::format(" {}:{}", b, n);
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
    h.buckets_[static_cast<int>(b)] += std::strtoull(end + 1, &end, 10);
  }
  return h;
}

}  // namespace ccb
