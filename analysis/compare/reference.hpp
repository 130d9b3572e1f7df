// Published figures (analysis/compare/published.json, compiled in): public
// busbw numbers with their sources, usable as comparison columns. They are
// labelled "published", never mixed with measurements.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "results/import/result_set.hpp"

namespace ccb {

struct PublishedFigure {
  std::string id, system, collective, source;
  std::string gpu;   // the GPU family the figure was measured on (analysis/compare/expectation.hpp gpu_family)
  std::string date;  // when it was published or read (YYYY-MM), "" when the source gives none
  int ranks = 0, nodes = 0;
  std::uint64_t bytes = 0;
  double busbw_gbps = 0;
};

std::vector<PublishedFigure> published_figures();
// A result set of one figure: collective, ranks, nodes and size are known;
// the time is derived from busbw (bytes / (busbw / bus factor)).
ResultSet published_set(const PublishedFigure& f);

}  // namespace ccb
