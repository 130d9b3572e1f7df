#include "kernels/pattern.hpp"

#include <algorithm>

#include "kernels/host_kernels.hpp"

namespace ccb {
namespace {

// Largest 2^b - 1 (b <= 8) that is <= limit; -1 when limit < 0.
int64_t largest_mask_at_most(int64_t limit) {
  if (limit < 0) return -1;
  int64_t mask = 0;
  while (mask < 255 && (mask * 2 + 1) <= limit) mask = mask * 2 + 1;
  return mask;
}

int floor_log2(int64_t v) {
  int b = 0;
  while ((int64_t{2} << b) <= v) ++b;
  return b;
}

}  // namespace

Pattern make_pattern(DType dtype, std::optional<ReduceOp> op, int nranks) {
  const DTypeInfo& t = info(dtype);
  const int64_t limit = t.exact_limit;
  const int64_t n = std::max(nranks, 1);
  Pattern p;
  p.nranks = static_cast<int32_t>(n);
  if (!op) {
    p.kind = PatternKind::copy;
    if (t.is_float && t.size == 1)  // fp8: values in [-limit, limit - 1]
      p.mask = static_cast<uint32_t>(largest_mask_at_most(2 * limit - 1));
    else p.mask = t.size == 1 || dtype == DType::bfloat16 ? 0xFFu : dtype == DType::half ? 0x7FFu : 0xFFFFFFu;
    p.bias = t.is_signed ? static_cast<int32_t>((int64_t{p.mask} + 1) / 2) : 0;
    return p;
  }
  switch (*op) {
    case ReduceOp::sum: {
      p.kind = PatternKind::sum;
      p.active = static_cast<int32_t>(std::min(n, limit));
      // active * mask + floor(active / 2) <= limit
      p.mask = static_cast<uint32_t>(largest_mask_at_most((limit - p.active / 2) / p.active));
      break;
    }
    case ReduceOp::avg: {
      p.kind = PatternKind::avg;
      // Any partial sum over a set S of ranks is |S| ((h & mask) + 1), plus 1 if S holds
      // rank 0 but not rank 1: at most n (mask + 1) <= limit.
      const int64_t mask = largest_mask_at_most(limit / n - 1);
      p.degenerate = mask < 0;
      p.mask = p.degenerate ? 0 : static_cast<uint32_t>(mask);
      break;
    }
    case ReduceOp::min:
    case ReduceOp::max: {
      p.kind = *op == ReduceOp::min ? PatternKind::min : PatternKind::max;
      // (h & m) + (off(r) & m) - bias: values in [-(m + 1), m - 1] or [0, 2m], m = 63 unless
      // the dtype's exact range is smaller (fp8).
      p.mask = static_cast<uint32_t>(largest_mask_at_most(std::min<int64_t>(63, limit - 1)));
      p.bias = t.is_signed ? static_cast<int32_t>(p.mask + 1) : 0;
      const auto off = [&](int32_t r) { return minmax_offset(r) & static_cast<int32_t>(p.mask); };
      int32_t lo = off(0), hi = lo;
      for (int32_t r = 1; r < n; ++r) {
        lo = std::min(lo, off(r));
        hi = std::max(hi, off(r));
      }
      p.extreme_off = *op == ReduceOp::min ? lo : hi;
      break;
    }
    case ReduceOp::prod: {
      p.kind = PatternKind::prod;
      p.prod_bits = static_cast<int32_t>(std::min<int64_t>({n, floor_log2(limit), 16}));
      break;
    }
  }
  return p;
}

void fill_input(DType dtype, const Pattern& p, int rank, void* buf, std::size_t count, uint64_t first) {
  host_kernels().fill_input(dtype, p, rank, buf, count, first);
}

std::size_t count_wrong_input(DType dtype, const Pattern& p, int rank, const void* buf, std::size_t count,
                              uint64_t first) {
  return host_kernels().count_wrong_input(dtype, p, rank, buf, count, first);
}

std::size_t count_wrong_result(DType dtype, const Pattern& p, const void* buf, std::size_t count, uint64_t first) {
  return host_kernels().count_wrong_result(dtype, p, buf, count, first);
}

Sentinel sentinel(DType dtype, int nranks) { return {make_pattern(dtype, std::nullopt, nranks), nranks + 7}; }

void fill_sentinel(DType dtype, int nranks, void* buf, std::size_t count) {
  const Sentinel s = sentinel(dtype, nranks);
  fill_input(dtype, s.pattern, s.rank, buf, count, 0);
}

std::string pattern_blind_spot(DType dtype, std::optional<ReduceOp> op, int nranks) {
  if (!op) return "";
  const Pattern p = make_pattern(dtype, op, nranks);
  const bool constant = (p.kind == PatternKind::sum && p.mask == 0) || (p.kind == PatternKind::avg && p.degenerate);
  if (!constant) return "";
  return std::string(info(dtype).name) + " " + std::string(name(*op)) + " at " + std::to_string(nranks) +
         " ranks: every element's expected value is the same (the dtype's exact range leaves no room for a pattern), "
         "so a misrouted chunk is not detected";
}

}  // namespace ccb
