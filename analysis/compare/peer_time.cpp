#include "analysis/compare/peer_time.hpp"

#include <fmt/format.h>

#include "collectives/collective.hpp"
#include "results/import/importer.hpp"

namespace ccb {
namespace {

bool is_peer(const ResultSet& s) {
  for (const std::string& f : s.formats)
    if (f == format_name(Format::osu) || f == format_name(Format::imb)) return true;
  return false;
}

bool point_to_point(const ImportedPoint& p) {
  const Collective* c = find_collective(p.collective.str());
  return c && c->point_to_point;
}

}  // namespace

std::string match_peer_time_definition(std::vector<ResultSet>& sets) {
  bool peers = false;
  for (const ResultSet& s : sets) peers = peers || is_peer(s);
  if (!peers) return "";
  std::string changed;
  std::size_t points = 0;
  for (ResultSet& s : sets) {
    if (is_peer(s)) continue;
    std::size_t here = 0;
    for (ImportedPoint& p : s.points) {
      if (point_to_point(p) || !(p.rank_mean_avg_us > 0) || !(p.time_us > 0)) continue;
      const double scale = p.time_us / p.rank_mean_avg_us;  // bandwidths go as 1 / time
      p.time_us = p.rank_mean_avg_us;
      p.algbw_gbps *= scale;
      p.busbw_gbps *= scale;
      p.samples_us.clear();
      ++here;
    }
    if (here > 0) changed += fmt::format("{}'{}'", changed.empty() ? "" : ", ", s.label);
    points += here;
  }
  if (points == 0) return "";
  return fmt::format(
      "Times of {} ({} points) are the average over ranks of each rank's mean per-iteration time, the "
      "figure OSU and IMB print, instead of the table's time; per-iteration samples left out",
      changed, points);
}

}  // namespace ccb
