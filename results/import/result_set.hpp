// What the comparator reads: one labelled result set, imported from ccbench
// JSON Lines, nccl-tests (text or -J JSON), OSU or IMB output. Importers fill
// it; alignment, statistics and reports read it.
#pragma once
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "results/import/symbol.hpp"

namespace ccb {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One measured placement of one size. Key fields that a format does not
// record are left empty / 0 and then left out of the alignment key.
struct ImportedPoint {
  Symbol collective;  // ccbench's names: all_reduce, all_gather, ... pingpong
  Symbol dtype;       // nccl-tests spelling (float, half, bfloat16, int8, ...)
  Symbol op;          // sum, prod, max, min, avg; "-" when the collective does not reduce
  Symbol path;        // requested path: auto, nvlink, pcie, shm, rdma, tcp
  Symbol memory;      // host, device
  Symbol mpi_calls;   // ccbench's mpi backend: blocking or nonblocking (--mpi-calls); empty otherwise
  int ranks = 0, nodes = 0;
  int groups =
      1;  // groups that ran side by side (ccbench --split, nccl-tests' NCCL_TESTS_SPLIT): ranks and nodes are one group's
  int in_place = -1;        // 0 out-of-place, 1 in-place, -1 not recorded
  std::uint64_t bytes = 0;  // nccl-tests' size column: the whole buffer (count * type * ranks for split collectives)
  std::uint64_t requested_bytes = 0;  // the size the sweep asked for (ccbench records it; else = bytes)
  double time_us = kNaN, algbw_gbps = kNaN, busbw_gbps = kNaN;
  double time_lo_us = kNaN, time_hi_us = kNaN;  // predicted points: the 90% prediction interval
  bool time_unbounded = false;          // predicted: the data cannot bound the interval (the model's "unbounded")
  double p50_us = kNaN, p90_us = kNaN;  // per-iteration median and 90th percentile, when recorded
  double busbw_limit_gbps = kNaN;       // a history store's point: the limit stored with it (schema 5)
  double rank_mean_avg_us = kNaN;       // ccbench: average over ranks of each rank's mean time (OSU's and IMB's figure)
  std::vector<double> samples_us;       // per-iteration times, when the file has them
  std::string
      algorithm;  // NCCL's algorithms the point's operations chose (sorted, "+"-joined: "RING", "RING+TREE"); "" when not recorded
  // The algorithm the run forced on the library for this collective,
  // "LIBRARY:SETTING" ("ompi:6": coll_tuned_allreduce_algorithm 6 with dynamic
  // rules on; "libnbc:3": coll_libnbc_iallreduce_algorithm 3 in a run of
  // nonblocking calls; "nccl:Ring": NCCL_ALGO); "" when the library chose
  // (analysis/model/library_rules.hpp names them).
  std::string forced_algorithm;
  std::optional<std::uint64_t> wrong;
  std::uint8_t noise = 0;   // how many noise flags the record gave this placement (results/noise.hpp)
  float noise_stretch = 1;  // the most its flags can stretch its time (results/noise.hpp noise_stretch)
  // ccbench --stragglers: the skew (the last rank's entry after the median
  // of the others', median over iterations, us) and, when a rank was named
  // late (results/stragglers.hpp), its rank and host (-1, "" otherwise).
  double straggler_skew_us = kNaN;
  int straggler_rank = -1;
  std::string straggler_host;
  // alltoallv: the rank that moves the most (sent or received, the larger),
  // its bytes and host, when the file says (ccbench's traffic record;
  // nccl-tests' NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY lines): -1, 0, "" otherwise.
  int busiest_rank = -1;
  std::uint64_t busiest_bytes = 0;
  std::string busiest_host;
  std::uint32_t file = 0, line = 0;  // where it came from: ResultSet::files[file], 1-based line
};

struct ResultSet {
  std::string label;
  std::vector<std::string> files;    // in the order they were read
  std::vector<std::string> formats;  // format of each file
  std::vector<ImportedPoint> points;
  std::vector<std::string> unread;   // "file:line: what could not be read"
  std::vector<std::string> skipped;  // files left out as duplicates, and why
  // Hardware, topology, placement, versions, observed paths: "area.name" -> value.
  std::map<std::string, std::string> environment;
  std::vector<std::string> noise;  // what its runs recorded as threatening every number (oversubscribed, busy, steal)
  bool oversubscribed = false;     // one of them: more ranks than CPUs on a host (compare calls nothing on it)
  std::set<std::string> hosts;     // the hosts its runs name (ccbench's placement, nccl-tests' rank lines)
  std::string started_at;          // ISO 8601 UTC of its first run that records one (ccbench), else ""
  // ccbench JSON Lines: its first run record's start, command and hosts (the
  // run, whatever file holds it; "" when the record has no start), and
  // whether the file holds the run's end record (false: still being written,
  // or its process was killed).
  std::string run_identity;
  bool ended = false;
  std::string published_source;  // non-empty: published figures, not measured (and where from)
  std::string predicted_from;    // non-empty: a model's prediction, not measured (fitted on what)

  // Records an environment value; a different value for the same name from
  // another file of the set is kept as well ("a | b").
  void note_env(const std::string& name, const std::string& value);
};

// Options an importer may need that some formats do not record.
struct ImportOptions {
  int ranks = 0;           // --ranks LABEL=N: for files without a rank count (OSU)
  std::string collective;  // --collective LABEL=NAME: for nccl-tests text that names none
};

}  // namespace ccb
