// "Is this number normal?" (docs/expect.md): each measured series' busbw at
// its largest size held against the physical limit of the bytes the
// collective must move over the path the run can name, and against the
// published figure for the same hardware (analysis/compare/published.json):
// one Expectation per series, the one object every rendering reads.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/compare/reference.hpp"
#include "results/import/result_set.hpp"

namespace ccb {

// A reference applies to a run whose largest size is within this factor of
// the reference's size (either way).
inline constexpr double kReferenceSizeWindow = 2;
// NVLink per GPU per direction of each family the catalogue knows, as help
// and reports name them: "A100 300, H100 450, ... GB/s".
std::string nvlink_limits_text();

// The GPU family a device name says ("NVIDIA H100 80GB HBM3" -> "H100"); ""
// when it names none this catalogue knows (A100, H100, H200, B200, GB200).
std::string gpu_family(std::string_view device);

// A line rate as typed: "200Mbit", "25Gbit", "400G" (bits per second, tc's
// and NIC vendors' units) -> GB/s (1e9 bytes/s). nullopt when not a rate.
std::optional<double> link_rate_gbps(std::string_view text);

// What the run's network can carry per node: each NIC's line rate (GB/s) and
// the NICs at that rate per node, and where it was learned.
struct NetworkFacts {
  double nic_gbps = kNaN;
  int nics_per_node = 0;
  std::string basis;  // "--link-rate 200Mbit", "the record's NICs: 8 x 400 Gb/sec (rdma)"
};
// From --link-rate (given_gbps > 0, the line rate of each node's one NIC,
// times nics when given), else the NICs the run record lists (the fastest
// kind; a veth of the emulated cluster says 10000 Mb/s, not its shaped rate).
NetworkFacts network_facts(const ResultSet& set, double given_gbps, int given_nics);

// The limit of one point's busbw and how it was derived (formula and source).
struct Ceiling {
  double gbps = kNaN;  // NaN: no limit known (the basis says why)
  std::string basis;
};
Ceiling busbw_ceiling(std::string_view collective, int ranks, int nodes, const std::string& gpu,
                      const NetworkFacts& net);

// One series' verdict: the figure, what it should be, and why.
struct Expectation {
  std::string series;  // "all_reduce float sum, 16 ranks, 2 nodes, out-of-place"
  std::string collective, gpu;
  int ranks = 0, nodes = 0;
  std::uint64_t bytes = 0;  // the largest size measured
  double busbw_gbps = kNaN;
  Ceiling ceiling;
  double share_of_limit = kNaN;  // busbw / ceiling
  bool above_limit = false;      // share > 1: not the rate it seems (why)
  std::string above_limit_why;
  std::optional<PublishedFigure> reference;  // the same hardware, collective, ranks and nodes
  double share_of_reference = kNaN;          // busbw / the reference's figure
  std::string no_reference_why;              // when none matched
};

std::vector<Expectation> expectations(const ResultSet& set, const NetworkFacts& net,
                                      const std::vector<PublishedFigure>& catalogue);
// The report: one paragraph per series.
std::string expectations_text(const std::vector<Expectation>& all, const NetworkFacts& net);

}  // namespace ccb
