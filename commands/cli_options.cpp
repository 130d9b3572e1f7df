#include "commands/cli_options.hpp"

#include <fmt/format.h>

#include <string_view>
#include <utility>

#include "collectives/collective.hpp"
#include "common/sizes.hpp"

namespace ccb {
namespace {

struct HelpSection {
  const char* name;
  const char* heading;
};
constexpr HelpSection kHelpSections[] = {
    {"Sweep", "Sweep (sizes take binary suffixes K=1024, M=1024^2, G=1024^3, or KiB, MiB, GiB; 8MB is refused):"},
    {"Timing", "Timing:"},
    {"Per-iteration sampling", "Per-iteration sampling (the per_iteration timing):"},
    {"Checking", "Checking:"},
    {"Binding", "Binding:"},
    {"Backend and path", "Backend and path:"},
    {"Output", "Output (stdout from rank 0 only):"},
};

// "  -b, --minbytes SIZE" from "-b,--minbytes" and "SIZE".
std::string flag_column(const OptionRow& r) {
  const std::string_view f = r.flags;
  const std::size_t comma = f.find(',');
  std::string s = comma == std::string_view::npos ? fmt::format("      {}", f)
                                                  : fmt::format("  {}, {}", f.substr(0, comma), f.substr(comma + 1));
  if (r.value) s += fmt::format(" {}", r.value);
  return s;
}

// The paragraph wrapped into lines of `width` at spaces.
std::vector<std::string> wrapped(const std::string& text, std::size_t width) {
  std::vector<std::string> lines(1);
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(at, end - at);
    if (!lines.back().empty() && lines.back().size() + 1 + word.size() > width) lines.emplace_back();
    lines.back() += (lines.back().empty() ? "" : " ") + word;
    at = end + 1;
  }
  return lines;
}

}  // namespace

std::string joined_dtypes() { return joined(all_dtypes()); }
std::string joined_ops() { return joined(all_ops()); }
std::string joined_collectives() { return joined(all_collectives()); }

std::vector<OptionRow> option_rows(RawArgs& raw, Config& cfg) {
  const Config d;  // the defaults --help states
  const char* sweep = "Sweep";
  const char* timing = "Timing";
  const char* sampling = "Per-iteration sampling";
  const char* backend = "Backend and path";
  const char* output = "Output";
  return {
      {sweep, "-b,--minbytes", "SIZE", fmt::format("smallest size (default {})", size_as_typed(d.min_bytes)),
       &raw.minb},
      {sweep, "-e,--maxbytes", "SIZE", fmt::format("largest size (default {})", size_as_typed(d.max_bytes)), &raw.maxb},
      {sweep, "-f,--stepfactor", "N",
       fmt::format("multiply the size by N each step (default {}: add -i)", d.step_factor), &raw.factor},
      {sweep, "-i,--stepbytes", "SIZE",
       fmt::format("add SIZE each step when -f is 1 (default {})", size_as_typed(d.step_bytes)), &raw.stepb},
      {sweep, "--strict-sizes", nullptr,
       "fail instead of rounding a size down as nccl-tests does (to an element; all_gather, reduce_scatter, "
       "alltoall, gather, scatter: to 16 bytes per rank, so sizes below 16 B x ranks give 0-byte rows, printed like "
       "nccl-tests)",
       nullptr, &cfg.strict_sizes},
      {sweep, "-d,--datatype", "TYPE|all", fmt::format("{} (default {})", joined_dtypes(), info(d.dtypes.front()).name),
       &raw.dtype},
      {sweep, "-o,--op", "OP|all",
       fmt::format("{} (default {}; reducing collectives only)", joined_ops(), name(d.ops.front())), &raw.op},
      {sweep, "-r,--root", "R", fmt::format("root rank of broadcast, reduce, gather, scatter (default {})", d.root),
       &raw.root},
      {sweep, "-u,--unalign", "N",
       "as nccl-tests: every send and receive buffer starts N elements past its allocation (page-aligned), so the "
       "library sees misaligned buffers (default 0; at most 4096)",
       &raw.unalign},
      {sweep, "--window", "N", fmt::format("messages per iteration of uni_bw and bi_bw (default {})", d.window),
       &raw.window},
      {sweep, "--split", "RULE",
       "run the collective in groups side by side, as nccl-tests' NCCL_TESTS_SPLIT (which is read when --split is "
       "not given; NCCL_TESTS_SPLIT_MASK=V is AND V): ranks whose world rank gives the same colour by RULE = AND, "
       "OR, MOD or DIV and a value (e.g. 'MOD 2': even and odd ranks) form a group; every group must have as many "
       "ranks. Each row is one group's (ranks, nodes, busbw of one group), timed between common barriers of all "
       "groups and combined over every rank of every group by -a; the header and each record say how many groups "
       "ran",
       &raw.split},

      {sweep, "--traffic", "MODEL",
       "alltoallv only: who sends how much to whom (docs/alltoallv.md). uniform; spread:F (nccl-tests' "
       "distance-weighted pattern, F 0-1); hot:R[:rank=K] (every rank sends R x as much to rank K, default 0, as to "
       "each other: DeepEP's unbalanced ratio); lognormal:SIGMA[:seed=N] (each receiver's share log-normal); "
       "permutations:K[:seed=N] (the sum of K random permutations); matrix:FILE (nccl-tests' matrix file, its "
       "shape); " +
           std::string(kMoeTraffic) +
           "[:dispatch|:combine] (a MoE layer's dispatch or combine of size/H tokens per rank, docs/moe.md). "
           "The size is the bytes a rank sends on average (moe: the bytes of a rank's tokens). Without --traffic, "
           "nccl-tests' NCCL_TESTS_ALLTOALLV_MATRIX_FILE "
           "or NCCL_TESTS_ALLTOALLV_SPREAD, else spread:1 (nccl-tests' default)",
       &raw.traffic},

      {timing, "-n,--iters", "N", fmt::format("timed iterations per size and mode (default {})", d.iters), &raw.iters},
      {timing, "-w,--warmup_iters", "N", fmt::format("untimed iterations first (default {})", d.warmup), &raw.warmup},
      {timing, "-N,--run_cycles", "N",
       fmt::format("as nccl-tests: the sweep over sizes N times for each type and op, after one warm-up; each "
                   "cycle's rows printed and recorded, the footer's average over all (default {}). 0: until "
                   "stopped (burn-in): SIGINT, SIGTERM or SIGHUP ends it at the next point with the end record "
                   "written and exit 128 + the signal",
                   d.run_cycles),
       &raw.run_cycles},
      {timing, "--warmup-order", "ORDER",
       "sizes-first: -w operations at every size from -b to -e (doubling) before the first point, as nccl-tests; "
       "per-point: -w just before each point is timed, as OSU and IMB; auto (default): sizes-first on nccl, per-point "
       "on mpi. Either way one synchronised operation precedes each timed placement",
       &raw.warmup_order},
      {timing, "--timing", "MODE", fmt::format("pipelined, per_iteration or both (default {})", setting_name(d.timing)),
       &raw.timing},
      {timing, "-a,--average", "0|1|2|3",
       fmt::format("how the pipelined time of each rank is combined: 0 rank 0, 1 mean, 2 min, 3 max (default {})",
                   static_cast<int>(d.aggregation)),
       &raw.avg},
      {timing, "-z,--blocking", "0-3",
       "as nccl-tests: 0 launches back to back; 1 waits for each operation and adds a barrier (in the time); 2 only "
       "waits; 3 waits and adds a barrier left out of the time. MPI calls block anyway, so for mpi only the barrier "
       "of 1 and 3 matters",
       &raw.block},
      {timing, "-T,--timeout", "SECONDS",
       fmt::format("abort when no operation completes for this long (default {:g}: no watchdog): the end record is "
                   "written, the backend aborts (nccl: ncclCommAbort, given 5 s) and the process exits {} within T "
                   "+ 8.1 s; the backend's initialisation (NCCL's bootstrap) is bounded by max(T, 120 s), or "
                   "CCBENCH_INIT_TIMEOUT seconds (docs/failures.md)",
                   d.timeout_s, d.timeout_exit_code),
       &raw.timeout},
      {timing, "-I,--per_iter_timing", "0|1",
       "1: as nccl-tests, each of the -n back-to-back iterations of the pipelined loop timed where it runs (nccl: "
       "CUDA events on the stream; mpi: the host clock between the calls' starts, no barrier between them), max over "
       "each process's ranks and then over processes; the table adds i_min, i_max, i_p99 and i_cv% after each "
       "placement, -J FILE.json its out_of_place_per_iter blocks (docs/running.md). Not with -G or --timing "
       "per_iteration",
       &raw.per_iter},
      {timing, "-K,--per_iter_skip", "N",
       "with -I 1: leave the first N iterations out of the i_* summary (they stay in the JSON's times_us; default "
       "0, below -n)",
       &raw.per_iter_skip},
      {timing, "-C,--report_cputime", "0|1",
       "1: as nccl-tests, the time column is 'cputime': the host time to issue the -n operations, up to the last "
       "launch's return and before waiting for completion, per operation (nccl: the enqueue cost; mpi: the calls "
       "block, so about the time; -z 3: the time without the barriers; -G: the graph launches' per operation), "
       "combined over ranks per -a. algbw and busbw stay the completed time's; -J FILE.json writes 'cpu_time' for "
       "'time'; the JSON Lines record keeps time_us and adds cputime_us",
       &raw.cputime},
      {timing, "-G,--cudagraph", "N",
       fmt::format("nccl, as nccl-tests: the -n timed launches are captured as one CUDA graph per GPU, launched N "
                   "times, and the time is divided by n x N (default {}: direct calls). Per-iteration samples and "
                   "checks replay one operation's graph. A launch completes its n operations as one, so -T allows "
                   "n x T between launches",
                   d.cuda_graph),
       &raw.graph},

      {sampling, "--precision", "P",
       "keep sampling each size until the 95% confidence interval of the median is within +-P (e.g. 1% or 0.01), "
       "checked after batches that double the count (first batch -n); rank 0 decides and broadcasts. The record says "
       "iterations, the precision reached and what stopped it",
       &raw.precision},
      {sampling, "--time-per-size", "S", "sample each size for S seconds instead (IMB's time mode)",
       &raw.time_per_size},
      {sampling, "--max-time-per-size", "S", fmt::format("bound on either (default {:g})", d.max_time_per_size),
       &raw.max_time},
      {sampling, "--max-iters", "N", fmt::format("bound on the iterations of either (default {})", d.max_iters),
       &raw.max_iters},
      {sampling, "--sync", "MODE",
       "barrier (default): a barrier before each iteration; window: ranks start each iteration at a common time on "
       "rank 0's clock (offsets measured by ping-pong), so barrier exit skew does not inflate it; late starts and the "
       "start spread are recorded",
       &raw.sync},
      {sampling, "--buffer-shift", nullptr,
       "iteration k runs k mod (-e / this size) sizes into buffers of -e bytes, so that middle sizes do not stay in "
       "the cache (nccl-tests' shift; the nccl default; IMB's -off_cache users want it on mpi)",
       nullptr, &raw.buffer_shift},
      {sampling, "--fixed-buffers", nullptr,
       "every iteration on the same buffers (the mpi default; on nccl it turns the buffer shift off)", nullptr,
       &raw.fixed_buffers},
      {sampling, "--rotate-buffers", nullptr,
       "each iteration on another slot of buffers twice the size of the last-level cache (host L3, GPU L2): no "
       "warm-cache reuse",
       nullptr, &cfg.rotate_buffers},

      {"Checking", "-c,--check", "N",
       fmt::format("verify the result N times per size, outside the timed region (default {}; 0 = no check, #wrong "
                   "shows N/A)",
                   d.check),
       &raw.check},
      {"Checking", "--bitwise", "N",
       "silent-corruption screen: after the check, the same inputs are run N more times (1-1000) and every repeat, "
       "and every rank holding the same result (all_reduce, all_gather, broadcast), must hold identical bits; the "
       "first difference (rank, host, repeat, element, bit) is the point's note, its differing elements count as "
       "#wrong (exit 3). Deterministic where the library picks one algorithm per size and rank count (Open MPI's "
       "coll/tuned, NCCL without NCCL_ALGO changes between repeats); docs/failures.md",
       &raw.bitwise},

      {"Checking", "--stragglers", nullptr,
       "name the straggler: every rank's entry into each per-iteration sample on the synchronised clock; under each "
       "row the rank (and host) that arrived last, how often (against the 1/n chance), how late, and the skew "
       "(last vs the median of the others) with its 95% interval; named only when chance cannot explain it and it "
       "was late by at least 20 us and 10% of the iteration (docs/stragglers.md)",
       nullptr, &cfg.stragglers},

      {"Binding", "--bind", "POLICY",
       "auto (default): each rank's cores and memory on the NUMA node of its GPU, else of its NIC, else spread; keeps "
       "a launcher binding already inside that node. numa: that node's cores always; core: one core of it per rank; "
       "none: as launched. What each rank got is in the run record; a rank whose GPU or memory is on another NUMA "
       "node than its cores is warned",
       &raw.bind},

      {backend, "--backend", "NAME",
       "mpi: MPI over host memory; nccl: NCCL over GPU memory, one GPU per process (-g 1) or -g N GPUs per process. "
       "Default: nccl when this build has NCCL and the process sees a GPU (or -g, -G, -R, --nccl-log-dir, "
       "--nccl-algorithms, --path nvlink|pcie are given), else mpi; CCBENCH_BACKEND=mpi|nccl sets it. The table's "
       "first line says which and why",
       &raw.backend},
      {backend, "--memory", "KIND",
       fmt::format("mpi backend: {} (default), or device (GPU buffers through a CUDA-aware MPI; a clear error when "
                   "the MPI is not)",
                   setting_name(d.memory)),
       &raw.memory},
      {backend, "--mpi-calls", "HOW",
       "mpi backend: blocking (default): each operation is MPI's blocking call (MPI_Allreduce, ...); nonblocking: "
       "its nonblocking one, waited for at once (MPI_Iallreduce + MPI_Wait; sendrecv: MPI_Irecv + MPI_Isend, in "
       "place through a copy as MPI_Sendrecv_replace). MPI libraries run the two with different algorithms (Open "
       "MPI: coll/tuned's and libnbc's), and `ccbench replay` issues nonblocking ones, so its curves want this. "
       "pingpong, uni_bw and bi_bw are unchanged. The record's mpi_calls says which",
       &raw.mpi_calls},
      {backend, "-g,--ngpus", "N",
       fmt::format("nccl: GPUs driven by each process (default {}); without mpirun one process runs N ranks, no MPI "
                   "needed",
                   d.gpus_per_process),
       &raw.ngpus},
      {backend, "-R,--registerbuffers", "0|1|2",
       fmt::format("nccl: 1 registers buffers with ncclCommRegister, 2 as symmetric windows with "
                   "ncclCommWindowRegister (NCCL >= 2.27), as nccl-tests (default {}); buffers come from ncclMemAlloc "
                   "either way",
                   d.register_buffers),
       &raw.reg},
      {backend, "-x,--cta_policy", "0|1|2",
       "nccl: NCCL's CTA policy for the communicators (ncclConfig_t.CTAPolicy: 0 default, 1 efficiency, 2 zero; "
       "NCCL >= 2.27, 2 >= 2.28), as nccl-tests; without it NCCL's own default",
       &raw.cta_policy},
      {backend, "--path", "PATH",
       "auto, nvlink, pcie, shm, rdma, tcp. mpi: sets Open MPI's pml/btl (shm, tcp, rdma); the observed path is "
       "measured with network counters. nccl: sets NCCL_P2P_LEVEL, NCCL_P2P_DISABLE, NCCL_NVLS_ENABLE, NCCL_NET, "
       "NCCL_IB_DISABLE; the observed transports come from NCCL's INFO log",
       &raw.path},
      {backend, "--tcp-if", "LIST",
       "mpi: the network interfaces (names or CIDR subnets, comma-separated) Open MPI's TCP transport may use "
       "(btl_tcp_if_include), recorded in the run record's path.tcp_interfaces; by default it may use every "
       "interface that is up, a bridge or container interface that comes and goes included, and a run over one "
       "can fail or hang",
       &cfg.tcp_if},
      {backend, "--nccl-log-dir", "DIR",
       "nccl: where each process's NCCL INFO log is written (default $TMPDIR/ccbench-nccl-UID/JOB, one folder per "
       "user and job, mode 0700; JOB: SLURM_JOB_ID, or mpirun's PMIx namespace); a NCCL_DEBUG other than INFO or "
       "TRACE is left as the user set it (no log is read: transports unobserved)",
       &cfg.nccl_log_dir},
      {backend, "--nccl-algorithms", nullptr,
       "nccl: adds TUNING to NCCL_DEBUG_SUBSYS, so that each point records the algorithm, protocol and channels NCCL "
       "chose and the transports of those algorithms only (else: every connection set up so far). NCCL then writes "
       "one log line per operation on rank 0, which slows launch-bound sizes: do not compare times taken with it",
       nullptr, &cfg.nccl_algorithms},

      {output, "-J,--json", "FILE",
       "results: FILE.json gets nccl-tests' JSON document (its keys, as nccl-tests 2.19 -J writes them); any other "
       "name (FILE.jsonl) ccbench's JSON Lines record, flushed point by point (results/SCHEMA.md)",
       &cfg.json_path, nullptr, true},
      {output, "--csv", "FILE",
       "one CSV row per point and placement (per-iteration timing with one rank per process and --sync barrier: both "
       "also carry each rank's mean over iterations combined as OSU -f and IMB print it, the minimum, average and "
       "maximum over ranks: JSON rank_means, CSV rank_mean_min_us, _avg_us, _max_us; then groups, "
       "--split's group count, 1 without; last busbw_limit_gbps, the limit of the point's busbw on the run's path "
       "(JSON busbw_limit_gbps; the table's footer says how it was derived), and busbw_share_of_limit, busbw over "
       "it, both empty when no limit is known)",
       &cfg.csv_path},
      {output, "--history", "DB",
       "add the run to this history database when it ends completed (SQLite, created when missing; "
       "docs/history.md): ccbench history show / changes read it",
       &cfg.history_db},
      {output, "--prom", "FILE",
       "the run's figures as Prometheus text when it ends completed (busbw and algbw in bytes/s, time in s; a "
       "temporary file renamed, for node_exporter's textfile collector; docs/history.md)",
       &cfg.prom_path},
      {output, "--link-rate", "RATE",
       "each node's NIC line rate, bits per second as tc and NIC vendors write it (200Mbit, 25Gbit, 400G): the "
       "limit of busbw across nodes that the table's last lines and the end record hold each series against "
       "(docs/expect.md; default: the NICs the run's topology lists; on the emulated cluster, the shaped rate)",
       &raw.link_rate},
      {output, "--nics-per-node", "K",
       "NICs per node at that rate (1-1024; default: 1 with --link-rate, else the topology's count)", &raw.nics},
      {output, "-S,--report_timestamps", "0|1",
       "1: as nccl-tests, each row ends with the local time it was printed (%Y-%m-%d %H:%M:%S) under a 'timestamp' "
       "column; the table only",
       &raw.timestamps},
      {output, "--stats", nullptr,
       "extra table columns: per-iteration p50 and p99 and the 95% confidence interval of the median, in us", nullptr,
       &cfg.stats_columns},
      {output, "--samples", nullptr,
       "put every per-iteration time in the JSON records (without it: every time up to 256 iterations, else 256 "
       "quantiles, enough for compare's significance test)",
       nullptr, &cfg.samples},
      {output, "--progress", "MODE",
       "auto: a live line when stderr is a terminal; under mpirun or srun (stderr is a pipe) a plain line every 10 s; "
       "on: the live line always; off",
       &raw.progress},

      // ccbench topo and copy (their usage lines say them).
      {nullptr, "--xml", "FILE", "", &cfg.topo_xml},
      {nullptr, "--plan", "N", "", &raw.plan},
      {nullptr, "--cpus", "LIST", "", &cfg.topo_cpus},
      // nccl-tests flags taken for compatibility (one paragraph in --help).
      {nullptr, "-t,--nthreads", "N", "", &raw.nthreads},
      {nullptr, "-m,--agg_iters", "N", "", &raw.agg_iters},
      {nullptr, "-p,--parallel_init", "0|1", "", &raw.parallel_init},
      {nullptr, "-y,--stream_null", "0|1", "", &raw.stream_null},
      {nullptr, "-D,--device_implementation", "N", "", &raw.device_impl},
      {nullptr, "-V,--device_cta_count", "N", "", &raw.device_ctas},
      {nullptr, "-M", "0|1", "", &raw.memory_report},
  };
}

std::string options_help(const char* after_section, const std::string& between) {
  RawArgs raw;
  Config cfg;
  const std::vector<OptionRow> rows = option_rows(raw, cfg);
  constexpr std::size_t kFlagColumn = 28, kWidth = 88;
  std::string out;
  for (const HelpSection& section : kHelpSections) {
    out += fmt::format("{}\n", section.heading);
    for (const OptionRow& r : rows) {
      if (!r.section || std::string_view(r.section) != section.name) continue;
      std::string flag = flag_column(r);
      const std::vector<std::string> lines = wrapped(r.help, kWidth - kFlagColumn);
      if (flag.size() + 1 > kFlagColumn) {  // too long for the column: the text starts on the next line
        out += flag + "\n";
        flag.clear();
      }
      for (const std::string& line : lines) {
        out += fmt::format("{:<{}}{}\n", flag, kFlagColumn, line);
        flag.clear();
      }
    }
    out += "\n";
    if (std::string_view(section.name) == after_section) out += between + "\n\n";
  }
  return out;
}

}  // namespace ccb
