// Cost profiles and the workload model (YAML files; see docs/compare.md "Comparing
// results: cost"). Everything is reduced to a price per GPU-hour (per rank
// for host-memory runs), then:
//   cost per PB at peak = price_per_gpu_hour * 1e6 / (3600 * peak_busbw_gbps)
//     (the cost of one GPU's share of 1e15 bytes of bus traffic at its peak busbw)
//   gradient bytes per step = parameters * bytes per element of the dtype
//   time per step = bytes / (busbw(bytes) * 1e9 / bus_factor(gpus))
//     busbw(bytes): the measured curve, linear in log2(size) between sizes;
//     beyond the largest size the curve's plateau when it is flat and the
//     size at most 4096x the largest, refused otherwise (plateau.hpp); busbw
//     is taken as independent of the GPU count (nccl-tests' premise for
//     ring algorithms)
//   cost per 1,000 steps = 1000 * time per step * gpus * price_per_gpu_hour / 3600
#pragma once
#include <optional>
#include <string>

#include "analysis/compare/series.hpp"

namespace ccb {

struct CostProfile {
  std::string file, kind, name, currency;  // currency: required in the file (ISO 4217 code)
  double per_gpu_hour = kNaN;              // derived for bare metal
  // Bare metal inputs, shown next to the derived price.
  double capital_cost = kNaN, amortisation_years = kNaN, yearly_operating_cost = kNaN, utilisation = kNaN;
  double per_node_hour = kNaN;
  int gpus = 0, gpus_per_node = 0;
  double transfer_per_tb = kNaN;  // moving data in or out (egress, ingress), per TB (1e12 B)
  double node_mtbf_hours = kNaN;  // a training step's goodput on this option (else the workload's)
  std::string derivation;         // how per_gpu_hour was computed
};

struct Workload {
  std::string file, name, collective = "all_reduce", dtype;
  double parameters = 0;
  std::size_t dtype_bytes = 0;
  int gpus = 0;
  double compute_s = 0;           // compute time per step, added to communication (no overlap assumed)
  double dataset_tb = kNaN;       // a data set to move (TB, 1e12 B)
  double transfer_gbit_s = kNaN;  // at this stated rate (Gbit/s)
  double bytes_per_step() const { return parameters * static_cast<double>(dtype_bytes); }
};

// Both throw UsageError "FILE:LINE: KEY: what is wrong" on bad content.
CostProfile load_cost_profile(const std::string& path);
Workload load_workload(const std::string& path);

double cost_per_pb(const CostProfile& c, double peak_busbw_gbps);

struct WorkloadEstimate {
  double busbw_gbps = kNaN, time_per_step_s = kNaN, cost_per_1000_steps = kNaN;
  // The range the curve allows: within the measured sizes the two points
  // around the step's size, beyond them the plateau's lowest and highest busbw.
  double busbw_lo_gbps = kNaN, busbw_hi_gbps = kNaN, time_lo_s = kNaN, time_hi_s = kNaN;
  bool extrapolated = false;  // beyond the largest measured size (from the plateau) or below the smallest
  std::string basis;          // how busbw was read: "interpolated", "plateau of 4 MiB-64 MiB, 2080x beyond"
  std::string refused;        // non-empty: no estimate, and why (no plateau, too far beyond the measured sizes)
  const Series* curve = nullptr;
};
// Picks the curve of the workload's collective (the one with the most ranks,
// out-of-place preferred) from a set's series; a size beyond the measured ones
// is read off the curve's plateau (analysis/compare/plateau.hpp) or refused.
std::optional<WorkloadEstimate> estimate_workload(const Workload& w, const SeriesTable& table, const CostProfile* cost);

}  // namespace ccb
