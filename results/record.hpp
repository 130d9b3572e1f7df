// The result model: what one run and one measured point are. Measuring fills
// these; writers (table, JSON Lines, CSV) render them. See results/SCHEMA.md.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "results/expectation.hpp"
#include "results/stats.hpp"
#include "results/link_probe.hpp"
#include "results/stragglers.hpp"

namespace ccb {

// --samples writes at most this many samples per placement (evenly spaced
// when more iterations ran, and the record's note says so). It bounds the
// longest line ccbench writes, which its readers derive their limit from.
inline constexpr std::size_t kMaxSamplesWritten = std::size_t{1} << 20;
// Without --samples: every sample up to this many, else this many quantiles
// (a bounded sketch from which compare's significance test runs).
inline constexpr std::size_t kDefaultSamplesWritten = 256;
// A sample as JSON text: at most 24 characters ("1.2345678901234567e+300")
// and a comma.
inline constexpr std::size_t kMaxSampleChars = 25;

// 3: `count` is elements per rank (split collectives: one rank's chunk); in
// 2 it was the total over all chunks. Files of 1, 2 and 3 are read.
inline constexpr int kSchemaVersion = 3;

struct RankPlacement {
  int rank = 0;
  int group = 0;  // --split: its group's colour (nccl-tests' "Group"); 0 without
  std::string host;
  long pid = 0;
  int local_rank = 0;
  int cpu = -1;              // CPU the rank ran on when sampled
  std::string bound_cpus;    // cpuset it is bound to (hwloc list syntax)
  std::string machine;       // its kernel's boot id: hosts with the same one share one machine's CPUs
  std::vector<int> devices;  // CUDA ordinals of its ranks' GPUs (empty: host memory)
  // Binding (--bind) and what is near: see harness/topo/binding.hpp.
  std::string bind_policy, bind_reason;
  std::vector<int> cpu_numa;      // NUMA nodes of its cores
  int mem_numa = -1;              // NUMA node its memory is bound to (-1: not bound)
  std::vector<std::string> gpus;  // PCI addresses of its GPUs
  int gpu_numa = -1;              // NUMA node of its first GPU (-1: none or unknown)
  std::string nic, nic_distance;  // the NIC nearest to it, and how far from its GPU
  std::vector<std::string> warnings;
  std::string node;                // fingerprint of its node's topology ("" when unknown)
  std::string versions;            // "cuda driver D runtime R, nccl V": compared across nodes
  double clock_offset_us = 0;      // --sync window: rank 0's clock minus this one's
  double clock_offset_rtt_us = 0;  // the round trip the offset was measured with
};

// One distinct node of a run: the hosts that share a topology fingerprint.
struct NodeRecord {
  std::string fingerprint;
  std::vector<std::string> hosts;
  std::string topology_json;  // harness/topo/topology.hpp's JSON
};

// ccbench io (docs/io.md): the storage settings of a run.
struct IoRunInfo {
  std::string target_dir, workspace, fs_type, engine, memory, layout, gds;
  std::vector<std::string> patterns;
  bool direct = false, kept = false;
  int threads = 1, queue_depth = 1, read_percent = 0, check_passes = 0;
  std::uint64_t file_bytes = 0, dataset_files = 0;
  double time_per_size = 0;
};

// ccbench io: what one point moved, beyond the placement's times.
struct IoPointInfo {
  std::string pattern, mode;  // mode: the settings a series is keyed by ("direct io_uring qd8 x1 file-per-rank")
  std::uint64_t bytes_moved = 0, ops = 0;
  double elapsed_s = 0;       // the slowest rank's pass (ranks start after a barrier)
  double gbps = 0, iops = 0;  // aggregate: bytes_moved / elapsed, ops / elapsed (dataset: files/s)
  std::vector<double> rank_gbps;
  double resident_before = -1;  // buffered reads: page-cache share of the data before the pass (-1: not measured)
  bool cut_short = false;       // --time-per-size (or a signal) ended the pass before the whole region
};

struct RunInfo {
  std::string ccbench_version, git_revision, compiler, mpi_library, mpi_version, os_kernel;
  std::string hwloc_version, cuda, nccl, host_kernels;
  std::string nccl_headers;  // the NCCL headers ccbench was built with ("" without NCCL); `nccl` is the loaded library
  std::vector<std::string> argv;
  std::string collective, backend, memory_kind, path_requested, path_observed, path_evidence;
  // mpi: the interfaces Open MPI's TCP transport may use (harness/mpi_path.hpp
  // tcp_interfaces_allowed); tcp_unpinned: several are up and none is pinned.
  std::string path_tcp_interfaces;
  bool tcp_unpinned = false;
  std::string backend_reason;  // "--backend given", "default: 1 GPU visible and NCCL built in", ...
  std::vector<std::string> dtypes, ops;
  int ranks = 1, nodes = 1;           // with --split: one group's
  int groups = 1;                     // --split: groups side by side (1 without)
  std::string split;                  // --split's rule and source ("MOD 2 (--split)"), "" without
  std::string traffic, traffic_from;  // alltoallv: the model ("hot:4:rank=0") and where it was given
  // --stragglers: the link probe between hosts (results/link_probe.hpp); bytes 0: not run.
  std::size_t link_probe_bytes = 0;
  int link_probe_repeats = 0;
  LinkReading link_probe;
  // What the path's limit is derived from (docs/expect.md): --link-rate as
  // given and in GB/s (0: not given), --nics-per-node (0: not given), and the
  // host-memory copy rate measured beside a one-node shared-memory run (0: not
  // measured) with how it was measured.
  std::string link_rate;
  double link_rate_gbps = 0;
  int nics_per_node = 0;
  double memory_copy_gbps = 0;
  std::string memory_copy_how;
  std::vector<RankPlacement> placement;
  std::vector<NodeRecord> node_topologies;         // one per distinct node
  std::vector<std::string> node_differences;       // how nodes differ where it matters
  std::string os;                                  // /etc/os-release PRETTY_NAME
  std::map<std::string, std::string> environment;  // filtered and redacted
  std::string timing_modes;                        // "pipelined+per_iteration", ...
  std::string clock;
  double clock_resolution_s = 0;
  int iterations = 0, warmup = 0, check_iterations = 0, aggregation = 1, root = 0, window = 0;
  int ranks_per_process = 1, cuda_graph = 0, register_buffers = 0;
  bool per_iter_timing = false;    // -I 1 (its clock: clock_name)
  int per_iter_skip = 0;           // -K
  int unalign = 0;                 // -u: elements every buffer starts past its allocation
  bool report_cputime = false;     // -C 1: the table's time column is cputime_us
  bool report_timestamps = false;  // -S 1
  double precision = 0, time_per_size = 0, max_time_per_size = 0;
  long max_iters = 0;
  std::string sync = "barrier";
  std::string warmup_order;  // sizes-first (nccl-tests) or per-point (OSU, IMB)
  bool rotate_buffers = false;
  std::size_t rotate_arena_bytes = 0;
  std::size_t buffer_shift_bytes = 0;  // the buffer shift's span (0: off)
  bool blocking = true;
  std::string mpi_calls;       // mpi backend: blocking or nonblocking (--mpi-calls); "" on nccl
  int blocking_requested = 0;  // -z
  std::size_t min_bytes = 0, max_bytes = 0, step_bytes = 0;
  long step_factor = 1;
  bool strict_sizes = false;
  std::string started_at;          // ISO 8601 UTC
  std::optional<IoRunInfo> io;     // ccbench io only
  std::vector<std::string> noise;  // before the run: oversubscribed hosts, busy hosts (results/noise.hpp)
};

// Per-iteration times combined as OSU and IMB combine them: each rank's mean
// over iterations of its own timed call, then the minimum, average and maximum
// over ranks (OSU -f: Min/Avg/Max Latency; IMB: t_min/t_avg/t_max).
struct RankMeans {
  double min_us = 0, avg_us = 0, max_us = 0;
};

// What was measured of one point in one buffer layout: out-of-place or
// in-place (not where ranks run: that is RankPlacement).
struct Measurement {
  bool measured = false;
  double time_us = 0;  // the table's time: see time_source
  std::string time_source;
  double algbw_gbps = 0, busbw_gbps = 0;
  std::optional<double> pipelined_us;  // batch time / iterations, ranks combined per -a
  // -C 1: the host time to issue the pipelined loop's operations (up to the
  // last launch's return, before waiting), per operation, combined per -a.
  std::optional<double> cputime_us;
  std::optional<Summary> per_iteration_us;  // each iteration's max over ranks
  std::optional<RankMeans> rank_means;      // --sync barrier, one rank per process; else absent
  std::optional<uint64_t> wrong;            // summed over ranks; absent when not checked
  // --bitwise: repeats compared, whether every rank's result was compared
  // with the others', elements that differed, the first difference in words.
  struct Bitwise {
    int repeats = 0;
    bool across_ranks = false;
    uint64_t differing = 0;
    std::string first;
  };
  std::optional<Bitwise> bitwise;
  std::vector<double>
      samples_us;  // per-iteration times: all with --samples (at most kMaxSamplesWritten), else at most kDefaultSamplesWritten (quantiles beyond)
  std::string note;  // why not measured or not checked ("" = nothing to say)
  // Per-iteration sampling: how many iterations ran and, when adaptive, the
  // precision asked and reached (relative half-width of the median's 95% CI).
  long per_iteration_count = 0;
  std::optional<double> precision_target, precision_reached;
  std::string stopped_by;  // "precision", "max_time_per_size", "max_iters", "time_per_size" ("" when fixed -n)
  // --sync window: starts that came late, and the spread of actual starts across ranks (us).
  std::optional<long> late_starts;
  std::optional<double> start_skew_p50_us, start_skew_max_us;
  std::vector<std::string> noise;        // what makes this time untrustworthy (results/noise.hpp); empty: nothing seen
  std::optional<Stragglers> stragglers;  // --stragglers (results/stragglers.hpp)
  // -I 1: nccl-tests' per-iteration timing inside the pipelined loop. Each
  // of the -n iterations in us, max over each process's ranks (per_process_us,
  // one row per process when there are several) and then over processes
  // (times_us); the first `skipped` (-K) are left out of the summary
  // (in_loop_stats in results/stats.hpp).
  struct InLoop {
    int skipped = 0;
    std::vector<double> times_us;
    std::vector<std::vector<double>> per_process_us;
  };
  std::optional<InLoop> in_loop;
};

// alltoallv, one point (collectives/traffic.hpp): the rank that moves the
// most (the larger of what it sends and receives) and that many bytes, which
// algbw divides by the time (nccl-tests' alltoallv); what ranks send and
// receive, least and most.
struct TrafficPoint {
  int busiest_rank = 0;
  std::string busiest_host;
  std::size_t busiest_bytes = 0;
  std::size_t sent_min = 0, sent_max = 0, received_min = 0, received_max = 0;
  std::size_t sent_mean = 0;  // bytes a rank sends, over all ranks / ranks
  // The busiest rank's larger side (what it sends or receives) split by
  // where the peer is: its own host (itself included: NVLink, shared memory;
  // DeepEP's scale-up) and other hosts (the network; scale-out). Both 0 when
  // the placement does not name every rank's host.
  bool split_known = false;
  std::size_t busiest_scale_up = 0, busiest_scale_out = 0;
  std::uint64_t tokens = 0;  // moe: tokens per rank (0 for other models)
};

struct PointRecord {
  std::string collective, dtype, op;  // op empty when the collective does not reduce
  int root = -1;                      // -1 when not rooted
  int ranks = 1, nodes = 1;           // the group's (--split) or the world's
  int groups = 1;                     // groups that ran this point side by side (--split)
  std::size_t requested_bytes = 0, bytes = 0, count = 0;
  int iterations = 0;
  double bus_factor = 1;
  bool busbw_meaningful = true;
  // The limit of this point's busbw on the run's path (docs/expect.md; the
  // end record's expectations say how it was derived); NaN: none known.
  double busbw_limit_gbps = std::numeric_limits<double>::quiet_NaN();
  Measurement out_of_place, in_place;
  // Backends that observe their transports (nccl), over all ranks: the
  // transports of this point's operations when the library's log tells them
  // (transports_per_point: nccl --nccl-algorithms), else those of every
  // connection set up by the end of this point; the algorithms chosen
  // ("RING/LL/2ch"); a warning when that is not the requested path ("" =
  // consistent). Absent for the others.
  std::optional<std::vector<std::string>> path_classes;
  std::vector<std::string> transports;
  bool transports_per_point = false;
  std::vector<std::string> algorithms;
  std::string path_warning;
  // Copy tests (ccbench copy): where the bytes came from and went ("cpu",
  // "gpu0", ...); empty for collectives.
  std::string src, dst;
  std::optional<IoPointInfo> io;        // ccbench io only
  std::optional<TrafficPoint> traffic;  // alltoallv only
};

struct EndInfo {
  std::string status;  // "completed", "wrong_data", "failed: ..."
  std::string ended_at;
  std::size_t points = 0;
  uint64_t wrong_total = 0;
  int exit_code = 0;
  double avg_busbw_gbps = 0;
  double min_avg_busbw_gbps = -1;  // NCCL_TESTS_MIN_BW (-1: not checked); the check: avg >= 0.9 x it
  std::vector<std::string> noise;  // the run's noise: its start's and steal during it (results/noise.hpp)
  std::size_t noisy_measurements = 0, measurements = 0;  // placements flagged, of those measured
  // --stragglers: each rank named at some placement, "rank 3 (host): 12 of 14
  // placements"; checked: placements read (0 without --stragglers).
  std::vector<std::string> stragglers;
  std::size_t straggler_checked = 0;
  // Exports of the finished run that failed ("--history DB: ..."): the run
  // measured as its status says, and exit_code is 5.
  std::vector<std::string> export_errors;
  // Each series held against its path's limit and its hardware's published
  // figure (results/expectation.hpp), and where the network's rate came from.
  std::vector<Expectation> expectations;
  std::string expectations_network;
};

}  // namespace ccb
