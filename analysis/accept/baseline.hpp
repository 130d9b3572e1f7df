// Baselines: the median of each metric over several runs, per (collective,
// dtype, op, ranks, nodes, size), with outlying runs removed by a stated
// rule and listed. `ccbench baseline` writes one; acceptance gates with
// `baseline:` read it.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/accept/spec.hpp"
#include "results/import/result_set.hpp"

namespace ccb {

// A run's value is an outlier when it is more than 3 x 1.4826 x MAD (the
// median absolute deviation, scaled to a standard deviation for normal data)
// and more than 1% away from the median of all runs' values; only with 3 or
// more runs. The baseline is the median of the runs that remain.
inline constexpr double kOutlierMads = 3.0;
inline constexpr double kOutlierMinFraction = 0.01;
inline constexpr const char* kOutlierRule =
    "outlier: |value - median| > 3 x 1.4826 x MAD and > 1% of the median (3 or more runs); "
    "baseline = median of the remaining runs";

struct BaselineMetric {
  double median = 0;
  std::vector<double> values;         // one per run that has the point, in run order
  std::vector<std::size_t> outliers;  // indices into values (and BaselineEntry::runs)
};

struct BaselineEntry {
  std::string collective, dtype, op;  // op "-" when the collective does not reduce
  int ranks = 0, nodes = 0;
  std::uint64_t bytes = 0;
  std::vector<std::size_t> runs;  // indices into Baseline::runs, one per value
  BaselineMetric busbw_gbps, algbw_gbps, time_us;
};

struct Baseline {
  std::string file;
  std::vector<std::string> runs;  // the labels (paths) of the runs it came from
  std::vector<BaselineEntry> entries;

  const BaselineEntry* find(const std::string& collective, const std::string& dtype, const std::string& op, int ranks,
                            int nodes, std::uint64_t bytes) const;
};

// Median and outliers of one metric's per-run values.
BaselineMetric summarize_runs(std::vector<double> values);

// One ResultSet per run. Within a run, the points of one key (several pairs
// of an acceptance run, repeats) are first reduced to their median; in-place
// points are left out when a run also has out-of-place ones.
Baseline build_baseline(const std::vector<ResultSet>& runs);

std::string baseline_to_json(const Baseline& b);
// Throws UsageError "FILE: what" for a file that is not a baseline.
Baseline load_baseline(const std::string& path);

// What `baseline: history` gates compare with: per check, gate and group
// (its ranks, nodes and hosts, comma-joined and sorted as the history keys
// series), the group's past runs, oldest first, read from the --history
// database before the run measures (so a run never judges against itself).
struct PastRun {
  std::string started_at;
  double busbw_gbps = 0, algbw_gbps = 0, time_us = 0;  // NaN when not recorded
};
struct PastKey {
  std::string check;
  std::size_t gate = 0;  // index in the check's gates
  int ranks = 0, nodes = 0;
  std::string hosts;
  friend bool operator<(const PastKey& a, const PastKey& b);
};
struct HistoryPast {
  std::string db;  // the database it was read from
  std::map<PastKey, std::vector<PastRun>> runs;
};

// The baselines a spec's gates name, by path, each loaded once (a real run
// and a simulation read the same files), and the history gates' past.
struct GateBaselines {
  std::map<std::string, Baseline> files;
  HistoryPast history;
};
GateBaselines load_gate_baselines(const AcceptSpec& spec);
// The median a baseline gate compares with: the entry of the check's series,
// dtype, op, ranks, nodes and the gate's size; for a history gate, the median
// of the group's last history_runs past runs (kHistoryMinRuns at least);
// none when there is none.
std::optional<double> baseline_median(const GateBaselines& loaded, const Check& c, const Gate& g, int ranks, int nodes,
                                      const std::string& hosts);

}  // namespace ccb
