// The sweep's sizes: requested sizes and the rows each collective measures
// (parsing and printing sizes: common/sizes.hpp).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/collective.hpp"
#include "common/sizes.hpp"
#include "kernels/dtype.hpp"

namespace ccb {

inline constexpr std::size_t kMaxPoints = 100000;

// Requested sizes from min to max: times `factor` when factor > 1, else plus
// `step`. Throws UsageError naming the flag when the plan is empty or too long.
std::vector<std::size_t> sweep_sizes(std::size_t min_bytes, std::size_t max_bytes, std::size_t step_bytes, long factor);

struct SizePoint {
  std::size_t requested_bytes;
  std::size_t bytes;  // the size column: max(send, receive) bytes = count * element size
  std::size_t count;  // elements in the larger buffer (split collectives: chunk x ranks)
  std::size_t chunk;  // per-rank chunk for split collectives, else count
  // The table's count column, as nccl-tests prints it: the per-rank count.
  std::size_t shown_count() const { return chunk; }
};

// The granularity of sizes: one element; split collectives 16 bytes per rank.
std::size_t size_unit(const Collective& c, DType d, int nranks);

// nccl-tests' rows: count = size / element size; split collectives (all_gather,
// reduce_scatter, alltoall, gather, scatter) round the per-rank count down to
// 16 bytes. Repeated and 0-byte rows are kept, as nccl-tests prints them. With
// `strict`, a size that is not a multiple of size_unit throws UsageError.
std::vector<SizePoint> plan_points(const std::vector<std::size_t>& requested, const Collective& c, DType d, int nranks,
                                   bool strict);

// The sizes --warmup-order sizes-first warms (nccl-tests' TimeTest): doubling
// from min to max whatever the sweep's step, or each size of an explicit
// list; planned as the points are; none above `largest` bytes (the buffers
// hold the largest planned point).
std::vector<SizePoint> warm_up_points(std::size_t min_bytes, std::size_t max_bytes,
                                      const std::vector<std::size_t>& explicit_sizes, const Collective& c, DType d,
                                      int nranks, std::size_t largest);

}  // namespace ccb
