// An acceptance spec: the checks `ccbench accept` runs and the gates their
// results must pass. Read from YAML; every error names file, line and key.
// Format and meaning: docs/acceptance.md.
#pragma once
#include "common/settings.hpp"
#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collectives/collective.hpp"
#include "kernels/dtype.hpp"

namespace ccb {

// Which groups of nodes run a check together (analysis/accept/schedule.hpp).
enum class GroupPattern { all, per_node, pairwise, ring, bisect };
CCB_SETTING_NAMES(GroupPattern, 5, {GroupPattern::all, "all"}, {GroupPattern::per_node, "per-node"},
                  {GroupPattern::pairwise, "pairwise"}, {GroupPattern::ring, "ring"}, {GroupPattern::bisect, "bisect"});
inline std::string_view name(GroupPattern p) { return setting_name(p); }

// busbw and algbw in GB/s (1e9 B/s), time in microseconds; skew in
// microseconds: the last rank's entry after the median of the others', median
// over the timed iterations (--stragglers, results/stragglers.hpp), judged
// against an absolute ceiling only.
enum class Metric { busbw, algbw, time, skew };
CCB_SETTING_NAMES(Metric, 4, {Metric::busbw, "busbw"}, {Metric::algbw, "algbw"}, {Metric::time, "time"},
                  {Metric::skew, "skew"});
inline std::string_view name(Metric m) { return setting_name(m); }
inline bool higher_is_better(Metric m) { return m == Metric::busbw || m == Metric::algbw; }
inline const char* metric_unit(Metric m) { return higher_is_better(m) ? "GB/s" : "us"; }

inline constexpr int kHistoryMinRuns = 3;  // past runs a history gate needs to judge

struct Gate {
  Metric metric = Metric::busbw;
  std::size_t at_bytes = 0;  // the size it judges (a size of the check)
  // Absolute: a floor (min) for bandwidth or a ceiling (max) for time, with
  // a tolerance t: the bar is min x (1 - t) or max x (1 + t).
  double min = std::numeric_limits<double>::quiet_NaN();
  double max = std::numeric_limits<double>::quiet_NaN();
  double tolerance = 0;
  // Relative: no worse than `max_drop` (a fraction) of the baseline's median
  // for the same collective, dtype, op, ranks, nodes and size.
  std::string baseline;  // path of a `ccbench baseline` file (relative to the spec's folder)
  double max_drop = std::numeric_limits<double>::quiet_NaN();
  // Population: relative to this check's own groups of the same node count
  // (`population: F`): no worse than F below their median, and than 3 x
  // 1.4826 x MAD below it (whichever is further); judged once 3 or more
  // such groups were measured, passed with a note before that.
  bool population = false;
  // History (`baseline: history`): no worse than `max_drop` below the median
  // of the same group's last `history_runs` runs in the --history database
  // (the same hosts, collective, dtype, op, path, memory, ranks and size);
  // judged once kHistoryMinRuns such runs are there, passed with a note before.
  bool history = false;
  int history_runs = 5;
  // Share (`min: 80% of limit`, `min: 90% of reference`): busbw no lower than
  // that share of the path's physical limit or of the published figure for
  // the same hardware (docs/expect.md), as the group's own run record resolves
  // them; max_drop is 1 - the share.
  std::string share_of;  // "limit", "reference", or "" (not a share gate)
  int line = 0;          // in the spec

  bool relative() const { return !baseline.empty() || population || history || !share_of.empty(); }
  // The bar a measured value must reach (absolute gates ignore `base`).
  double bar(double base = 0) const;
  bool passes(double value, double base = 0) const;
  // "busbw >= 405 GB/s (450 - 10%) at 8 GiB", "time <= 1.05 x baseline at 8 B".
  std::string describe() const;
};

// A storage check (`io:` in the spec): ccbench io on each group's nodes
// (docs/io.md). Its series is "io_" + pattern; gates read GB/s as busbw or
// algbw and time in microseconds (checkpoint: the time to persist).
struct IoCheck {
  std::string dir, pattern = "seq_read", engine;  // engine "": ccbench io's default
  std::size_t file_bytes = std::size_t{64} << 20, files = 256;
  int queue_depth = 1, threads = 1;
  bool direct = false, shared_file = false;
};

struct Check {
  std::string name;
  const Collective* collective = nullptr;  // null for an io check
  std::optional<IoCheck> io;
  // The series the check measures: the collective's name, or io_PATTERN.
  std::string series() const { return io ? "io_" + io->pattern : std::string(collective->name); }
  bool reduces() const { return collective && collective->reduces; }
  // The index of one of this check's gates (gates.size() for another's).
  std::size_t gate_index(const Gate& g) const {
    std::size_t i = 0;
    while (i < gates.size() && &gates[i] != &g) ++i;
    return i;
  }
  BackendKind backend = BackendKind::mpi;
  MemoryKind memory = MemoryKind::host;  // mpi backend only
  PathRequest path = PathRequest::automatic;
  DType dtype = DType::float32;
  ReduceOp op = ReduceOp::sum;
  std::vector<std::size_t> sizes;
  int iterations = 20, warmup = 5;
  int gpus_per_process = 1;
  int repeats = 1;       // n: measurements of each group
  int bitwise = 0;       // --bitwise N in every group's run (silent-corruption screen; 0: off)
  int pass_repeats = 1;  // k: how many of them must pass every gate
  GroupPattern pattern = GroupPattern::all;
  bool second_pass = true;  // pairwise and ring: re-pair suspects with good nodes
  double timeout_s = 0;     // per operation (-T); spec default applies when 0
  // The spec's link_rate (as given, and in GB/s; 0: not given) and
  // nics_per_node: the network's limit of busbw for share gates.
  std::string link_rate;
  double link_rate_gbps = 0;
  int nics_per_node = 0;
  // Under Slurm, the bound of one group's job step (all its repeats): the
  // spec's, else (repeats + 1) x timeout_s + 60 s.
  double step_timeout_s = 0;
  std::vector<Gate> gates;
  int line = 0;
  // Every group's run times each rank per iteration (--stragglers) and names
  // the rank that arrived last: on unless the spec says `stragglers: false`,
  // for collective checks whose processes drive one GPU each (an io check
  // has no ranks' arrival; a process of several GPUs has no rank of its own).
  bool stragglers = true;
  bool times_stragglers() const { return stragglers && !io && gpus_per_process == 1; }
  bool has_skew_gate() const {
    for (const Gate& g : gates)
      if (g.metric == Metric::skew) return true;
    return false;
  }
};

struct AcceptSpec {
  std::string file, name, description;
  double timeout_s = 300;                        // default per-operation watchdog of every check
  double step_timeout_s = 0;                     // default step bound of every check (0: derived per check)
  std::map<std::string, std::string> switch_of;  // host -> switch (spec key switches:), may be empty
  std::string link_rate;                         // each node's NIC line rate (spec key link_rate:), "" when not given
  double link_rate_gbps = 0;
  int nics_per_node = 0;
  std::vector<Check> checks;
};

// Throws UsageError "FILE:LINE: KEY: what". `file` names the text in messages
// and anchors relative baseline paths.
AcceptSpec parse_spec(const std::string& text, const std::string& file);
AcceptSpec load_spec(const std::string& path);

}  // namespace ccb
