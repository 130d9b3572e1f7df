// Host fill and verification over the patterns of pattern_math.hpp.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "kernels/dtype.hpp"
#include "kernels/pattern_math.hpp"

namespace ccb {

// Pattern for an input of a reduction with `op` (nullopt: a copy collective).
Pattern make_pattern(DType dtype, std::optional<ReduceOp> op, int nranks);

// Where the pattern cannot see a misrouted chunk: a reduction whose every
// input element is the same value (fp8 sums at 16 ranks and more for e4m3, 8
// for e5m2; an avg whose values are all zeros), so a chunk from the wrong
// offset or rank sums to the same result. "" when every element carries its
// position; else why, for the point's note ("checked" is then weaker).
std::string pattern_blind_spot(DType dtype, std::optional<ReduceOp> op, int nranks);

// buf[k] = input value of `rank` at index first + k.
void fill_input(DType dtype, const Pattern& p, int rank, void* buf, std::size_t count, uint64_t first);
// Number of k with buf[k] != input value of `rank` at index first + k.
std::size_t count_wrong_input(DType dtype, const Pattern& p, int rank, const void* buf, std::size_t count,
                              uint64_t first);
// Number of k with buf[k] != reduced value at index first + k (p.kind != copy).
std::size_t count_wrong_result(DType dtype, const Pattern& p, const void* buf, std::size_t count, uint64_t first);

// A value distinct from real data, written into receive buffers before an
// operation so that an operation that writes nothing is caught.
void fill_sentinel(DType dtype, int nranks, void* buf, std::size_t count);

// Receive buffers start as the copy pattern of a rank that does not exist, so
// that a result nobody wrote is caught (host and device fill the same values).
struct Sentinel {
  Pattern pattern;
  int rank;
};
Sentinel sentinel(DType dtype, int nranks);

}  // namespace ccb
