// Everything one invocation asked for, after parsing and before MPI starts.
#pragma once
#include <optional>
#include <cstddef>
#include <string>
#include <vector>

#include "collectives/collective.hpp"
#include "collectives/traffic.hpp"
#include "common/errors.hpp"
#include "common/settings.hpp"
#include "harness/split_rule.hpp"
#include "kernels/dtype.hpp"

namespace ccb {

struct Config {
  const Collective* collective = nullptr;
  // --backend, or the default chosen by choose_default_backend (commands/cli.hpp)
  // with the reason the header prints.
#if CCBENCH_HAVE_MPI
  BackendKind backend = BackendKind::mpi;
#else
  BackendKind backend = BackendKind::nccl;  // the only backend of a build without MPI
#endif
  std::string backend_reason = "--backend given";
  MemoryKind memory = MemoryKind::host;     // mpi backend: host, or device (CUDA-aware MPI)
  MpiCalls mpi_calls = MpiCalls::blocking;  // mpi backend: --mpi-calls
  int gpus_per_process = 1;                 // -g
  int cuda_graph = 0;                       // -G: > 0 captures each operation as a CUDA graph and replays it
  int register_buffers = 0;                 // -R: 1 ncclCommRegister, 2 ncclCommWindowRegister (symmetric)
  int cta_policy = -1;                      // -x: NCCL's CTA policy (ncclConfig_t.CTAPolicy); -1: NCCL's default
  std::string nccl_log_dir;                 // where NCCL's INFO log goes (empty: $TMPDIR/ccbench-nccl)
  std::string tcp_if;                       // --tcp-if: the interfaces Open MPI's TCP transport may use
  bool nccl_algorithms = false;             // --nccl-algorithms: NCCL logs each operation's algorithm (TUNING)
  BindPolicy bind = BindPolicy::automatic;  // --bind
  // Per-iteration sampling (harness/measure.hpp): adaptive until the median's
  // 95% interval is within +-precision, or for a fixed time, bounded.
  double precision = 0;               // --precision, a fraction (0.01 = 1%); 0 = fixed -n
  double time_per_size = 0;           // --time-per-size seconds; 0 = off
  double max_time_per_size = 10;      // --max-time-per-size seconds
  long max_iters = 1000000;           // --max-iters
  SyncMode sync = SyncMode::barrier;  // --sync: how per-iteration starts are aligned
  bool rotate_buffers = false;        // --rotate-buffers: each iteration on buffers out of the cache
  // nccl-tests' per-iteration buffer shift: --buffer-shift on, --fixed-buffers
  // off, unset: the backend's default (on for nccl, as nccl-tests; off for mpi).
  std::optional<bool> buffer_shift;
  // ccbench topo
  bool topo_json = false;  // --json
  std::string topo_xml;    // --xml FILE: an hwloc XML topology instead of this machine
  int topo_plan = 0;       // --plan N: the binding of N local ranks
  std::string topo_cpus;   // --cpus LIST: the launcher's binding for --plan
  std::vector<DType> dtypes{DType::float32};
  std::vector<ReduceOp> ops{ReduceOp::sum};
  std::size_t min_bytes = std::size_t{32} << 20;
  std::size_t max_bytes = std::size_t{32} << 20;
  std::size_t step_bytes = std::size_t{1} << 20;
  long step_factor = 1;
  std::vector<std::size_t> sizes;  // an explicit list (ccbench accept); when set, min/max/step are not used
  int iters = 20;
  long run_cycles = 1;  // -N: the sweep over sizes this many times (0: until a signal stops it)
  // -I 1 / -K N: nccl-tests' per-iteration timing inside the pipelined loop,
  // the first K iterations left out of its summary (harness/measure.cpp).
  bool per_iter_timing = false;
  int per_iter_skip = 0;
  int unalign = 0;                 // -u N: every buffer starts N elements past its allocation (nccl-tests)
  bool report_cputime = false;     // -C 1: the table's time column is the host time to issue (cputime)
  bool report_timestamps = false;  // -S 1: each row ends with the local time it was printed
  int warmup = 1;
  WarmUpOrder warmup_order = WarmUpOrder::automatic;  // automatic: sizes_first on nccl, per_point on mpi
  int check = 1;                                      // verification iterations per point; 0 = no check
  int bitwise = 0;                                    // --bitwise: repeats compared bit for bit (0: off)
  bool stragglers = false;  // --stragglers: every rank's entry per iteration, the rank that arrived last
  int root = 0;
  // --split, or NCCL_TESTS_SPLIT(_MASK) when not given (split_source names which).
  std::optional<SplitRule> split;
  std::string split_source;
  // alltoallv: --traffic, or nccl-tests' variables, or its default (collectives/traffic.hpp).
  std::optional<TrafficModel> traffic;
  RankCombine aggregation = RankCombine::mean;  // -a: 0 rank 0, 1 average, 2 min, 3 max
  int blocking = 0;                             // -z: nccl waits for each operation; MPI calls always block
  double timeout_s = 0;                         // -T, 0 = no watchdog
  double min_avg_busbw_gbps = -1;  // nccl-tests' NCCL_TESTS_MIN_BW (GB/s): below 0.9 x it, exit 7; -1 unchecked
  // --link-rate (as given, and in GB/s; 0: not given) and --nics-per-node
  // (0: not given): the network's limit of busbw (docs/expect.md).
  std::string link_rate;
  double link_rate_gbps = 0;
  int nics_per_node = 0;
  int timeout_exit_code = kExitTimeout;  // exit code of a -T timeout (ccbench accept: 2, a run error)
  bool table = true;                     // print the table on stdout (ccbench accept collects records instead)
  // mpi: probe which interfaces carry the traffic (8 MiB around the ranks) before
  // measuring; ccbench accept probes once per group, not on every repeat.
  bool observe_path = true;
  std::string observe_path_note;  // why not, when observe_path is false
  std::string json_path;          // -J
  bool append_json = false;       // -J's records after the file's (ccbench moe's combine run)
  // ccbench moe: a MoE layer, dispatch (collective moe_dispatch) then
  // combine (moe_combine), each its own run of the same sizes
  bool moe_layer = false;
  std::string csv_path;
  std::string history_db;  // --history: add the run to this database when it ends
  std::string prom_path;   // --prom: the run as Prometheus text
  bool stats_columns = false;
  bool samples = false;
  bool strict_sizes = false;
  TimingMode timing = TimingMode::both;
  PathRequest path = PathRequest::automatic;
  int window = kDefaultWindow;
  ProgressMode progress = ProgressMode::automatic;  // automatic: when stderr is a terminal
  std::vector<std::string> argv;
};

}  // namespace ccb
