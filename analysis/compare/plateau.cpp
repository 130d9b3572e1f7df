#include "analysis/compare/plateau.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/sizes.hpp"

namespace ccb {

std::optional<Plateau> plateau_of(const Series& s) {
  std::vector<const SeriesPoint*> usable;
  for (const SeriesPoint& p : s.points)
    if (p.bytes > 0 && std::isfinite(p.busbw_gbps) && p.busbw_gbps > 0) usable.push_back(&p);
  if (usable.empty()) return std::nullopt;
  const double largest = static_cast<double>(usable.back()->bytes);
  std::vector<double> busbw;
  Plateau out;
  out.to_bytes = usable.back()->bytes;
  for (const SeriesPoint* p : usable)
    if (static_cast<double>(p->bytes) * kPlateauSizeSpan >= largest) {
      if (busbw.empty()) out.from_bytes = p->bytes;
      busbw.push_back(p->busbw_gbps);
    }
  std::sort(busbw.begin(), busbw.end());
  const std::size_t n = busbw.size();
  out.points = n;
  out.busbw_gbps = n % 2 ? busbw[n / 2] : (busbw[n / 2 - 1] + busbw[n / 2]) / 2;
  out.lo_gbps = busbw.front(), out.hi_gbps = busbw.back();
  out.flat = n >= 2 && out.hi_gbps <= kPlateauFlatSpread * out.lo_gbps;
  return out;
}

std::string why_not_flat(const Plateau& p) {
  if (p.flat) return "";
  if (p.points < 2)
    return fmt::format("only one size ({}) within {:g}x of the largest: no plateau can be told",
                       format_size(static_cast<double>(p.to_bytes)), kPlateauSizeSpan);
  return fmt::format("busbw {:.3g}-{:.3g} GB/s over {}-{} spreads {:.1f}x (above {:g}x): no plateau", p.lo_gbps,
                     p.hi_gbps, format_size(static_cast<double>(p.from_bytes)),
                     format_size(static_cast<double>(p.to_bytes)), p.hi_gbps / p.lo_gbps, kPlateauFlatSpread);
}

}  // namespace ccb
