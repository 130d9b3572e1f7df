// compare's "Is each number normal?" section: every measured set's series
// held against its path's limit and its hardware's published figure
// (analysis/compare/expectation.hpp, the same objects ccbench expect prints).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "analysis/compare/catalogue.hpp"
#include "analysis/compare/expectation.hpp"
#include "analysis/report/report.hpp"

namespace ccb {

Section expectation_section(const Comparison& c) {
  Section s;
  s.heading = "Is each number normal?";
  Table t;
  t.title = "Limits and references";
  t.header = {"set", "series", "busbw at the largest size", "limit", "share", "reference", "share", "note"};
  t.left_columns = 2;
  t.last_left = true;
  const std::vector<PublishedFigure>& catalogue = reference_catalogue();
  std::set<std::string> bases;
  for (const ResultSet& set : c.sets) {
    if (!set.published_source.empty() || !set.predicted_from.empty()) continue;  // only measured figures
    const PathFacts net = path_facts(set, 0, 0);
    for (const Expectation& e : expectations(set, net, catalogue)) {
      if (!(e.ceiling.gbps > 0) && !e.reference) continue;  // nothing to hold it against
      const auto pct = [](double share) { return std::isfinite(share) ? fmt::format("{:.0f}%", share * 100) : "-"; };
      t.rows.push_back({{set.label},
                        {e.series},
                        {fmt::format("{:.4g} GB/s at {}", e.busbw_gbps, format_size(e.bytes))},
                        {e.ceiling.gbps > 0 ? fmt::format("{:.4g} GB/s", e.ceiling.gbps) : "-"},
                        {pct(e.share_of_limit), e.above_limit ? Tone::warn : Tone::plain},
                        {e.reference ? fmt::format("{} {:.4g} GB/s", e.reference->id, e.reference->busbw_gbps) : "-"},
                        {pct(e.share_of_reference)},
                        {e.above_limit ? "ABOVE THE LIMIT: " + e.above_limit_why
                         : e.reference ? ""
                                       : e.no_reference_why,
                         e.above_limit ? Tone::warn : Tone::muted}});
      if (e.ceiling.gbps > 0) bases.insert(e.ceiling.basis);
      if (e.reference)
        bases.insert(fmt::format("{}: {} ({})", e.reference->id, e.reference->system, e.reference->source));
    }
  }
  if (t.rows.empty()) return s;
  t.note = fmt::format(
      "limit: the physical limit of busbw on the path the set names; reference: the published figure of the same "
      "GPU, collective, ranks and nodes within {:g}x of the size (docs/expect.md). Where each came from: {}.",
      kReferenceSizeWindow, fmt::join(bases, "; "));
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace ccb
