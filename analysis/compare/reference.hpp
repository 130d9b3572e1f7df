// Published figures (analysis/compare/published.json, compiled in): public
// busbw numbers with their sources, usable as comparison columns. They are
// labelled "published", never mixed with measurements.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "results/expectation.hpp"  // PublishedFigure
#include "results/import/result_set.hpp"

namespace ccb {

// Parsed once per process (a sweep, each accept repeat and every report read them).
const std::vector<PublishedFigure>& published_figures();
// A result set of one figure: collective, ranks, nodes and size are known;
// the time is derived from busbw (bytes / (busbw / bus factor)).
ResultSet published_set(const PublishedFigure& f);

}  // namespace ccb
