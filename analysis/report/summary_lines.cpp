// The Summary's lines beyond the verdict (summary_lines.hpp).
#include "analysis/report/summary_lines.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/report/number_text.hpp"
#include "common/sizes.hpp"
#include "results/noise.hpp"
#include "results/stats.hpp"

namespace ccb {
namespace {

bool is_production(const ResultSet& r) {
  return std::any_of(r.formats.begin(), r.formats.end(),
                     [](const std::string& f) { return f.starts_with("NCCL Inspector"); });
}

}  // namespace

std::string busiest_text(const ResultSet& r) {
  std::size_t points = 0;
  std::map<std::string, std::size_t> ranks;
  for (const ImportedPoint& p : r.points) {
    if (p.busiest_rank < 0 || p.in_place == 1) continue;
    ++points;
    ++ranks[fmt::format("rank {}{}", p.busiest_rank, p.busiest_host.empty() ? "" : " (" + p.busiest_host + ")")];
  }
  if (points == 0) return "";
  std::vector<std::pair<std::string, std::size_t>> order(ranks.begin(), ranks.end());
  std::stable_sort(order.begin(), order.end(), [](auto& a, auto& b) { return a.second > b.second; });
  std::string list;
  for (std::size_t k = 0; k < order.size() && k < 3; ++k)
    list += fmt::format("{}{} at {}", k ? "; " : "", order[k].first, order[k].second);
  if (order.size() > 3) list += fmt::format("; and {} more", order.size() - 3);
  return fmt::format("Busiest rank (alltoallv, the one that moves the most): '{}', of {} out-of-place points: {}.",
                     r.label, points, list);
}

std::string stragglers_text(const ResultSet& r) {
  std::size_t timed = 0;
  std::map<std::string, std::vector<double>> named;  // "rank 2 (host)" -> skews
  for (const ImportedPoint& p : r.points) {
    if (!std::isfinite(p.straggler_skew_us)) continue;
    ++timed;
    if (p.straggler_rank >= 0)
      named[fmt::format("rank {}{}", p.straggler_rank, p.straggler_host.empty() ? "" : " (" + p.straggler_host + ")")]
          .push_back(p.straggler_skew_us);
  }
  if (timed == 0) return "";
  if (named.empty())
    return fmt::format("Stragglers: '{}': no rank arrived late at any of its {} timed placements (--stragglers).",
                       r.label, timed);
  std::vector<std::pair<std::string, std::vector<double>>> order(named.begin(), named.end());
  std::stable_sort(order.begin(), order.end(), [](auto& a, auto& b) { return a.second.size() > b.second.size(); });
  std::string list;
  for (std::size_t k = 0; k < order.size() && k < 3; ++k)
    list += fmt::format("{}{} at {} (skew median {} us)", k ? "; " : "", order[k].first, order[k].second.size(),
                        format_us(median_of(order[k].second)));
  if (order.size() > 3) list += fmt::format("; and {} more", order.size() - 3);
  return fmt::format("Stragglers: '{}', of {} timed placements (--stragglers): {}.", r.label, timed, list);
}

std::string production_text(const Comparison& c, const PairComparison& pc) {
  const ResultSet &base = c.baseline(), &other = c.sets[pc.other];
  if (is_production(base) == is_production(other)) return "";
  const bool prod_is_other = is_production(other);
  const ResultSet &prod = prod_is_other ? other : base, &bench = prod_is_other ? base : other;
  if (base.oversubscribed || other.oversubscribed)  // as the at-a-glance table: noise, not a call
    return fmt::format(
        "Production: cannot tell whether '{}' (NCCL Inspector) ran slower than '{}' measured: '{}' "
        "was measured oversubscribed.",
        prod.label, bench.label, base.oversubscribed ? base.label : other.label);
  struct Slow {
    std::string where;
    double prod_gbps, bench_gbps, ratio;
  };
  std::vector<Slow> slow;
  // unclear: slower, but flagged as noise or tested and not significant; untested: slower, no test possible.
  std::size_t aligned = 0, unclear = 0, untested = 0;
  for (const SeriesComparison& sc : pc.series)
    for (const AlignedPoint& a : sc.points) {
      const double pb = prod_is_other ? a.other->busbw_gbps : a.base->busbw_gbps;
      const double bb = prod_is_other ? a.base->busbw_gbps : a.other->busbw_gbps;
      if (!(pb > 0) || !(bb > 0)) continue;
      ++aligned;
      if (pb / bb >= 1 - c.options.tie_band) continue;
      if (a.base->first->noise || a.other->first->noise || !a.significant()) {
        ++unclear;
        continue;
      }
      untested += a.p_value ? 0 : 1;
      slow.push_back(
          {fmt::format("{} {} ranks, {} node{} at {}", sc.base->collective.str(), sc.base->ranks, sc.base->nodes,
                       sc.base->nodes == 1 ? "" : "s", format_size(static_cast<double>(a.bytes))),
           pb, bb, pb / bb});
    }
  if (aligned == 0)
    return fmt::format(
        "Production: '{}' (NCCL Inspector) lines up with no size of '{}' (collective, ranks, nodes, "
        "size bucket): nothing to hold it against.",
        prod.label, bench.label);
  const std::string unclear_text =
      unclear == 0 ? ""
                   : fmt::format(
                         "; cannot tell at {} more where it was slower (noise flagged, or the test found the "
                         "difference not significant)",
                         unclear);
  if (slow.empty())
    return unclear == 0 ? fmt::format(
                              "Production: '{}' (NCCL Inspector) ran as fast as '{}' measured, or faster, at "
                              "all {} aligned sizes (busbw, within the tie band {:.0f}%).",
                              prod.label, bench.label, aligned, c.options.tie_band * 100)
                        : fmt::format(
                              "Production: '{}' (NCCL Inspector) against '{}', {} aligned sizes: not slower "
                              "at any where it can be told{}.",
                              prod.label, bench.label, aligned, unclear_text);
  std::stable_sort(slow.begin(), slow.end(), [](const Slow& x, const Slow& y) { return x.ratio < y.ratio; });
  std::string list;
  for (std::size_t k = 0; k < slow.size() && k < 5; ++k)
    list += fmt::format("{}{}: busbw {} vs {} GB/s ({:.2f}x)", k ? "; " : "", slow[k].where,
                        format_gbps(slow[k].prod_gbps), format_gbps(slow[k].bench_gbps), slow[k].ratio);
  if (slow.size() > 5) list += fmt::format("; and {} more", slow.size() - 5);
  const std::string untested_text =
      untested == 0 ? ""
                    : fmt::format(
                          "; {} of them without a significance test (per-iteration samples on one side "
                          "only): the medians alone",
                          untested == slow.size() ? "all" : std::to_string(untested));
  return fmt::format(
      "Production: '{}' (NCCL Inspector) ran slower than '{}' measured at {} of {} aligned sizes: "
      "{}{}{}.",
      prod.label, bench.label, slow.size(), aligned, list, untested_text, unclear_text);
}

std::string noise_kinds_text(const std::vector<std::string>& flags) {
  std::vector<std::pair<std::string, std::vector<std::string>>> kinds;  // in first-seen order
  for (const std::string& f : flags) {
    const std::size_t colon = f.find(':');
    const std::string kind = noise_kind(f);
    std::string detail = colon == std::string::npos ? "" : f.substr(colon + 1);
    detail.erase(0, detail.find_first_not_of(' '));
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == kind; });
    if (it == kinds.end()) it = kinds.insert(kinds.end(), {kind, {}});
    it->second.push_back(detail);
  }
  std::string out;
  for (const auto& [kind, details] : kinds) {
    out += (out.empty() ? "" : "; ") + kind;
    if (details.size() > 1) out += fmt::format(" x{}", details.size());
    if (!details.front().empty()) out += fmt::format(" ({}{})", details.front(), details.size() > 1 ? ", ..." : "");
  }
  return out;
}

}  // namespace ccb
