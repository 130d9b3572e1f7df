// "Is this number normal?" (docs/expect.md): each measured series' busbw at
// its largest size held against the physical limit of the bytes the
// collective must move over the path the run can name, and against the
// published figure for the same hardware (analysis/compare/published.json):
// one Expectation per series (results/expectation.hpp), the one object every
// rendering reads.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/compare/reference.hpp"
#include "results/expectation.hpp"
#include "results/import/result_set.hpp"

namespace ccb {

// A reference applies to a run whose largest size is within this factor of
// the reference's size (either way).
inline constexpr double kReferenceSizeWindow = 2;
// Whether a size is within kReferenceSizeWindow of a reference's size.
bool within_reference_window(std::uint64_t bytes, std::uint64_t reference_bytes);
// NVLink per GPU per direction of each family the catalogue knows, as help
// and reports name them: "A100 300, H100 450, ... GB/s".
std::string nvlink_limits_text();
// The families themselves, as messages name them: "A100, H100, H200, B200, GB200".
std::string gpu_families_text();

// The GPU family a device name says ("NVIDIA H100 80GB HBM3" -> "H100"); ""
// when it names none this catalogue knows (A100, H100, H200, B200, GB200).
std::string gpu_family(std::string_view device);

// A line rate as typed: "200Mbit", "25Gbit", "400G" (bits per second, tc's
// and NIC vendors' units) -> GB/s (1e9 bytes/s). nullopt when not a rate.
std::optional<double> link_rate_gbps(std::string_view text);
// An option's line rate in GB/s; UsageError "WHAT 'TEXT': not a rate (e.g. ...)" otherwise.
double link_rate_option(const std::string& what, const std::string& text);

// What the run's path can carry: per node, each NIC's line rate (GB/s) and
// the NICs at that rate, and where it was learned; within one node's host
// memory, each rank's copy rate measured beside the run.
struct PathFacts {
  double nic_gbps = kNaN;
  int nics_per_node = 0;
  std::string basis;  // "--link-rate: 1 x 0.05 GB/s per node (given)", "the record's NICs: 8 x 400 Gbit/s (rdma)"
  double memory_copy_gbps = kNaN;
  std::string memory_basis;  // how the copy rate was measured
};
// The network: --link-rate (given_gbps > 0, the line rate of each node's one
// NIC, times nics when given), else the run's own --link-rate (its record's
// limits), else the NICs the run record lists (the fastest kind; a veth of
// the emulated cluster says 10000 Mb/s, not its shaped rate). Host memory:
// the record's measured copy rate.
PathFacts path_facts(const ResultSet& set, double given_gbps, int given_nics);

Ceiling busbw_ceiling(std::string_view collective, int ranks, int nodes, const std::string& gpu, const PathFacts& net);

// The GPU family the set's hardware names ("" none this catalogue knows).
std::string set_gpu_family(const ResultSet& set);
// One point's limit (a host-memory point on a GPU node: host memory's);
// `memory` is the run's memory kind ("host", "device").
Ceiling point_ceiling(std::string_view collective, int ranks, int nodes, std::string_view memory,
                      const std::string& gpu, const PathFacts& net);
Ceiling point_ceiling(const ImportedPoint& p, const std::string& gpu, const PathFacts& net);

std::vector<Expectation> expectations(const ResultSet& set, const PathFacts& net,
                                      const std::vector<PublishedFigure>& catalogue);

}  // namespace ccb
