// "Is this number normal?" (docs/expect.md): the verdict object of one
// measured series - its busbw at its largest size, the physical limit of the
// path it ran on, the published figure of the same hardware - computed once
// by analysis/compare/expectation.hpp and rendered by every report that shows
// it (ccbench expect, a sweep's footer and end record, compare).
#pragma once
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace ccb {

// A published busbw figure (analysis/compare/published.json) with its source.
struct PublishedFigure {
  std::string id, system, collective, source;
  std::string gpu;   // the GPU family the figure was measured on (analysis/compare/expectation.hpp gpu_family)
  std::string date;  // when it was published or read (YYYY-MM), "" when the source gives none
  int ranks = 0, nodes = 0;
  std::uint64_t bytes = 0;
  double busbw_gbps = 0;
};

// The limit of one point's busbw and how it was derived (formula and source).
struct Ceiling {
  double gbps = std::numeric_limits<double>::quiet_NaN();  // NaN: no limit known (the basis says why)
  std::string basis;
};

// A busbw's share of its limit (1 = the limit); NaN when the limit is not
// known or the figure not measured. Every output's share is this one.
double share_of_limit(double busbw_gbps, double limit_gbps);

// One series' verdict: the figure, what it should be, and why.
struct Expectation {
  std::string series;  // "all_reduce float sum, 16 ranks, 2 nodes, out-of-place"
  std::string collective, gpu;
  int ranks = 0, nodes = 0;
  std::uint64_t bytes = 0;  // the largest size measured
  double busbw_gbps = std::numeric_limits<double>::quiet_NaN();
  Ceiling ceiling;
  double share_of_limit = std::numeric_limits<double>::quiet_NaN();  // busbw / ceiling
  bool above_limit = false;                                          // share > 1: not the rate it seems (why)
  std::string above_limit_why;
  std::optional<PublishedFigure> reference;  // the same hardware, collective, ranks and nodes
  double share_of_reference = std::numeric_limits<double>::quiet_NaN();  // busbw / the reference's figure
  std::string no_reference_why;                                          // when none matched
};

// The report: a line naming where the network's rate came from (when a
// series spans nodes), then one paragraph per series; every line starts
// with `prefix` ("" for ccbench expect, "#" in a sweep's table).
std::string expectations_text(const std::vector<Expectation>& all, const std::string& network_basis,
                              const std::string& prefix = "");

}  // namespace ccb
