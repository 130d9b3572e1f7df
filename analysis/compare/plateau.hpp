// The large-message bandwidth of a curve, robust to one bad point, and the
// rule for reading a size beyond the measured ones off it (compare
// --workload; docs/compare.md "The decision at scale"):
//   plateau = the median busbw of the sizes within a factor 16 of the largest
//             measured size (busbw > 0), with their lowest and highest busbw;
//   flat    = at least 2 such sizes and highest / lowest <= 1.5 (the curve
//             stopped rising and no point is an outlier);
//   a size beyond the largest measured one is estimated from a flat plateau
//   only, and only up to 4096x the largest size; otherwise it is refused.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "analysis/compare/series.hpp"

namespace ccb {

inline constexpr double kPlateauSizeSpan = 16;         // sizes within this factor of the largest
inline constexpr double kPlateauFlatSpread = 1.5;      // highest / lowest busbw of a flat plateau
inline constexpr double kMaxSizeExtrapolation = 4096;  // beyond the largest measured size

struct Plateau {
  double busbw_gbps = kNaN, lo_gbps = kNaN, hi_gbps = kNaN;
  std::uint64_t from_bytes = 0, to_bytes = 0;
  std::size_t points = 0;
  bool flat = false;
};

// nullopt when no point has a positive busbw.
std::optional<Plateau> plateau_of(const Series& s);

// "busbw 0.03-0.79 GB/s over 4 MiB-64 MiB spreads 26x (above 1.5x): no plateau" or "".
std::string why_not_flat(const Plateau& p);

}  // namespace ccb
