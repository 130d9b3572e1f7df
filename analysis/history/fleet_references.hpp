// `ccbench history references`: the fleet's own expected figures, written as
// a catalogue file (analysis/compare/catalogue.hpp) that CCBENCH_REFERENCES
// reads, so that a new node's run is held against what this fleet's nodes of
// the same GPU measured (docs/expect.md "Your own catalogue").
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "analysis/history/history_db.hpp"
#include "results/expectation.hpp"

namespace ccb {

// One stored series and its runs, as history show reads them.
struct FleetSeries {
  SeriesKey key;
  std::vector<StoredPoint> points;
};

// A figure needs this many clean runs (finite busbw, nothing wrong, no noise
// flag) over all the series it pools.
inline constexpr std::size_t kFleetMinRuns = 3;

// Per GPU family, collective, rank and node count and size: the median over
// host sets of each set's median busbw (out-of-place or unrecorded
// placement; device memory on a GPU the limits know; 2 or more ranks), where
// at least kFleetMinRuns clean runs stand behind it; `system` names the fleet
// in each figure. In order of GPU family, collective, ranks, nodes and size.
std::vector<PublishedFigure> fleet_figures(const std::vector<FleetSeries>& series, const std::string& system);

}  // namespace ccb
