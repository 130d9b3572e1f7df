#include "harness/sweep_sizes.hpp"

#include <fmt/format.h>

#include <cctype>
#include <limits>

#include "common/errors.hpp"

namespace ccb {

std::vector<std::size_t> sweep_sizes(std::size_t min_bytes, std::size_t max_bytes, std::size_t step_bytes,
                                     long factor) {
  if (min_bytes > max_bytes)
    throw UsageError(fmt::format("-b/--minbytes {} is larger than -e/--maxbytes {}", format_size(min_bytes),
                                 format_size(max_bytes)));
  if (factor < 1)
    throw UsageError(fmt::format("-f/--stepfactor {}: must be >= 2 (multiply), or 1 to add -i/--stepbytes", factor));
  if (factor == 1 && step_bytes == 0 && min_bytes < max_bytes)
    throw UsageError("-i/--stepbytes 0 with -f/--stepfactor 1 never reaches -e/--maxbytes; give -i > 0 or -f >= 2");
  std::vector<std::size_t> sizes;
  for (std::size_t s = min_bytes;;) {
    sizes.push_back(s);
    if (sizes.size() > kMaxPoints)
      throw UsageError(fmt::format(
          "-b {} -e {} with {} makes more than {} sizes; use a larger -f/--stepfactor or -i/--stepbytes",
          format_size(min_bytes), format_size(max_bytes),
          factor > 1 ? fmt::format("-f {}", factor) : fmt::format("-i {}", format_size(step_bytes)), kMaxPoints));
    std::size_t next;
    if (factor > 1) {
      if (s > max_bytes / static_cast<std::size_t>(factor)) break;
      next = s == 0 ? 1 : s * static_cast<std::size_t>(factor);  // 0 * factor would never grow
    } else {
      if (step_bytes == 0 || s > max_bytes - step_bytes) break;
      next = s + step_bytes;
    }
    if (next > max_bytes) break;
    s = next;
  }
  return sizes;
}

std::size_t size_unit(const Collective& c, DType d, int nranks) {
  // nccl-tests: a split collective's per-rank count is rounded down to a
  // multiple of 16 bytes ((count / nranks) & ~(16 / element size - 1)).
  const std::size_t elem = info(d).size;
  return c.split ? std::max<std::size_t>(16, elem) * static_cast<std::size_t>(nranks) : elem;
}

std::vector<SizePoint> plan_points(const std::vector<std::size_t>& requested, const Collective& c, DType d, int nranks,
                                   bool strict) {
  const std::size_t unit = size_unit(c, d, nranks);
  const std::size_t elem = info(d).size;
  const std::size_t n = static_cast<std::size_t>(nranks);
  std::vector<SizePoint> points;
  for (std::size_t want : requested) {
    if (strict && want == 0)
      throw UsageError(
          fmt::format("size 0 B: nothing to measure ({} needs at least {} B); drop --strict-sizes to measure "
                      "a 0-byte row as nccl-tests does",
                      c.name, unit));
    if (strict && want % unit != 0)
      throw UsageError(fmt::format(
          "size {} B is not a multiple of {} B ({}) as {} with {} ranks needs; drop --strict-sizes to round down as "
          "nccl-tests does",
          want, unit,
          c.split ? fmt::format("{} ranks x 16 B per rank", nranks) : fmt::format("one {} element", info(d).name),
          c.name, nranks));
    // The rows nccl-tests prints, repeats and 0-byte rows included: count =
    // size / element size; split collectives: per-rank count rounded down to
    // 16 bytes, size = per-rank count x ranks x element size.
    const std::size_t count = want / elem;
    const std::size_t chunk = c.split ? (count / n) & ~(16 / std::min<std::size_t>(elem, 16) - 1) : count;
    const std::size_t total = c.split ? chunk * n : count;
    points.push_back({want, total * elem, total, chunk});
  }
  return points;
}

std::vector<SizePoint> warm_up_points(std::size_t min_bytes, std::size_t max_bytes,
                                      const std::vector<std::size_t>& explicit_sizes, const Collective& c, DType d,
                                      int nranks, std::size_t largest) {
  const auto requested = explicit_sizes.empty() ? sweep_sizes(min_bytes, max_bytes, 0, 2) : explicit_sizes;
  std::vector<SizePoint> points;
  for (const SizePoint& p : plan_points(requested, c, d, nranks, false))
    if (p.bytes <= largest) points.push_back(p);
  return points;
}

}  // namespace ccb
