#include "harness/cli_errors.hpp"
#include "harness/cli.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <limits>

#include "harness/sizes.hpp"
#include "harness/topo/binding.hpp"
#if CCBENCH_HAVE_CUDA
#include "kernels/cuda/gpu_info.hpp"
#endif
#if CCBENCH_HAVE_NCCL
#include "collectives/nccl/nccl_version.hpp"
#endif
#include "common/errors.hpp"
#include "kernels/host_kernels.hpp"

namespace ccb {

std::string_view name(TimingMode m) {
  switch (m) {
    case TimingMode::pipelined: return "pipelined";
    case TimingMode::per_iteration: return "per_iteration";
    case TimingMode::both: return "both";
  }
  return "both";
}

std::string_view name(WarmUpOrder w) {
  switch (w) {
    case WarmUpOrder::sizes_first: return "sizes-first";
    case WarmUpOrder::per_point: return "per-point";
    case WarmUpOrder::automatic: break;
  }
  return "auto";
}

namespace {

constexpr std::string_view kPaths[] = {"auto", "nvlink", "pcie", "shm", "rdma", "tcp"};

long parse_long(const std::string& flag, const std::string& text, long lo, long hi) {
  long v = 0;
  const auto* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v);
  if (text.empty() || r.ec != std::errc() || r.ptr != end)
    throw UsageError(fmt::format("{} '{}': not an integer (allowed: {} to {})", flag, text, lo, hi));
  if (v < lo || v > hi)
    throw UsageError(fmt::format("{} {}: out of range (allowed: {} to {})", flag, v, lo, hi));
  return v;
}

std::size_t parse_bytes(const std::string& flag, const std::string& text) {
  const auto v = parse_size(text);
  if (!v)
    throw UsageError(fmt::format("{} {}", flag, size_error(text)));
  return *v;
}

double parse_seconds(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || v < 0)
    throw UsageError(fmt::format("{} '{}': not a number of seconds >= 0", flag, text));
  return v;
}

// "a b c" from the names of a table's rows.
template <class Rows>
std::string joined(const Rows& rows) {
  std::string s;
  for (const auto& r : rows) s += (s.empty() ? "" : " ") + std::string(r.name);
  return s;
}
std::string joined_dtypes() { return joined(all_dtypes()); }
std::string joined_ops() { return joined(all_ops()); }
std::string joined_collectives() { return joined(all_collectives()); }

// One name, or "all" for every row of the table.
template <class Rows, class Parse>
auto parse_one_or_all(const std::string& flag, const std::string& text, const Rows& rows, Parse parse) {
  std::vector<decltype(rows.front().id)> out;
  if (text == "all") {
    for (const auto& r : rows) out.push_back(r.id);
  } else if (auto v = parse(text)) {
    out.push_back(*v);
  } else {
    throw UsageError(fmt::format("{} '{}': unknown (allowed: {}, all)", flag, text, joined(rows)));
  }
  return out;
}

}  // namespace

// "1%" or "0.01": a fraction in (0, 1).
double parse_precision(const std::string& text) {
  std::string t = text;
  const bool percent = !t.empty() && t.back() == '%';
  if (percent) t.pop_back();
  double v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size() || !std::isfinite(v))
    throw UsageError(fmt::format("--precision '{}': not a number (e.g. 1% or 0.01)", text));
  if (percent) v /= 100;
  if (v <= 0 || v >= 1) throw UsageError(fmt::format("--precision '{}': out of range (above 0, below 100%)", text));
  return v;
}

std::string help_text() {
  return fmt::format(R"(ccbench {0} - collective-communication benchmark

Usage:
  ccbench <collective> [options]     run a sweep (under mpirun/srun for several ranks)
  ccbench copy [-b -e -f -n -w -J --csv]
                                     host<->GPU and GPU<->GPU copy bandwidth and latency
                                     (copy engines and SM kernels; default 1M..256M x4)
  ccbench io DIR [-p PATTERNS -b -e -f --direct --qd N --threads N ...]
                                     storage -> memory (-> GPU): sequential, random, mixed,
                                     checkpoint, small-file dataset (see ccbench io --help)
  ccbench topo [--json [FILE]] [--xml FILE] [--plan N [--bind P] [--cpus LIST]]
                                     the node (every node under mpirun): CPUs, NUMA, GPUs,
                                     NICs, GPU x GPU/NIC distances; --plan: the binding N
                                     local ranks would get, with warnings
  ccbench compare --run LABEL=PATH --run LABEL=PATH [...]
                                     line up result sets (ccbench, nccl-tests, OSU, IMB):
                                     ratios, significance, environment, cost; terminal,
                                     --md, --csv, --json, --html (see ccbench compare --help)
  ccbench accept SPEC.yaml [--out DIR]
                                     acceptance: run a spec's checks across the job's nodes
                                     (all, per-node, pairwise, ring), judge gates, name
                                     defective nodes; exit 0 accepted, 1 rejected, 2 error
  ccbench baseline --out FILE RUN... medians of several runs for relative gates
  ccbench model fit|predict|check    the scale model: fit results at several rank counts,
                                     predict larger ones (see ccbench model --help)
  ccbench list                       collectives, backends, dtypes, ops and paths
  ccbench --help | --version

Collectives: {1}

Sweep (sizes take binary suffixes K=1024, M=1024^2, G=1024^3, or KiB, MiB, GiB; 8MB is refused):
  -b, --minbytes SIZE       smallest size (default 32M)
  -e, --maxbytes SIZE       largest size (default 32M)
  -f, --stepfactor N        multiply the size by N each step (default 1: add -i)
  -i, --stepbytes SIZE      add SIZE each step when -f is 1 (default 1M)
      --strict-sizes        fail instead of rounding a size down as nccl-tests does (to
                            an element; all_gather, reduce_scatter, alltoall, gather,
                            scatter: to 16 bytes per rank, so sizes below 16 B x ranks
                            give 0-byte rows, printed like nccl-tests)
  -d, --datatype TYPE|all   {2} (default float)
  -o, --op OP|all           {3} (default sum; reducing collectives only)
  -r, --root R              root rank of broadcast, reduce, gather, scatter (default 0)
      --window N            messages per iteration of uni_bw and bi_bw (default 64)

Timing:
  -n, --iters N             timed iterations per size and mode (default 20)
  -w, --warmup_iters N      untimed iterations first (default 1)
      --warmup-order ORDER  sizes-first: -w operations at every size from -b to -e
                            (doubling) before the first point, as nccl-tests; per-point:
                            -w just before each point is timed, as OSU and IMB (default:
                            sizes-first on nccl, per-point on mpi). Either way one
                            synchronised operation precedes each timed placement
      --timing MODE         pipelined, per_iteration or both (default both)
  -a, --average 0|1|2|3     how the pipelined time of each rank is combined:
                            0 rank 0, 1 mean, 2 min, 3 max (default 1)
  -z, --blocking 0-3        as nccl-tests: 0 launches back to back; 1 waits for each
                            operation and adds a barrier (in the time); 2 only waits;
                            3 waits and adds a barrier left out of the time. MPI calls
                            block anyway, so for mpi only the barrier of 1 and 3 matters
  -T, --timeout SECONDS     abort when one operation makes no progress for this
                            long (default 0: no watchdog); nccl: ncclCommAbort first
  -G, --cudagraph N         nccl, as nccl-tests: the -n timed launches are captured as
                            one CUDA graph per GPU, launched N times, and the time is
                            divided by n x N (default 0: direct calls). Per-iteration
                            samples and checks replay one operation's graph

Per-iteration sampling (the per_iteration timing):
      --precision P         keep sampling each size until the 95% confidence interval
                            of the median is within +-P (e.g. 1% or 0.01), checked after
                            batches that double the count (first batch -n); rank 0
                            decides and broadcasts. The record says iterations, the
                            precision reached and what stopped it
      --time-per-size S     sample each size for S seconds instead (IMB's time mode)
      --max-time-per-size S bound on either (default 10); --max-iters N (default 1e6)
      --sync MODE           barrier (default): a barrier before each iteration; window:
                            ranks start each iteration at a common time on rank 0's clock
                            (offsets measured by ping-pong), so barrier exit skew does not
                            inflate it; late starts and the start spread are recorded
      --fixed-buffers       nccl: every iteration on the same buffers. Default, as
                            nccl-tests: iteration k runs k mod (largest/this size)
                            sizes into buffers of the largest size, so that middle
                            sizes do not stay in L2 (mpi always uses fixed buffers)
      --rotate-buffers      each iteration on another slot of buffers twice the size of
                            the last-level cache (host L3, GPU L2): no warm-cache reuse

nccl-tests flags taken for compatibility (other values: one line saying why and what to use):
  -t 1, -m 1, -N 1, -y 0, -C 0, -u 0, -x 0 (what ccbench does anyway); -p 0|1 (no effect: one
  thread per process); -I 1 adds the per-iteration p50/p99 columns (--stats). Not supported:
  -r -1 (every root: run once per root), -R 2 (symmetric registration: -R 1 is local)

Checking:
  -c, --check N             verify the result N times per size, outside the timed
                            region (default 1; 0 = no check, #wrong shows N/A)

Binding:
      --bind POLICY         auto (default): each rank's cores and memory on the NUMA node
                            of its GPU, else of its NIC, else spread; keeps a launcher
                            binding already inside that node. numa: that node's cores
                            always; core: one core of it per rank; none: as launched.
                            What each rank got is in the run record; a rank whose GPU
                            or memory is on another NUMA node than its cores is warned

Backend and path:
      --backend NAME        mpi: MPI over host memory; nccl: NCCL over GPU memory, one
                            GPU per process (-g 1) or -g N GPUs per process. Default:
                            nccl when this build has NCCL and the process sees a GPU
                            (or -g, -G, -R, --nccl-log-dir, --path nvlink|pcie are
                            given), else mpi; CCBENCH_BACKEND=mpi|nccl sets it. The
                            table's first line says which and why
      --memory KIND         mpi backend: host (default), or device (GPU buffers through
                            a CUDA-aware MPI; a clear error when the MPI is not)
  -g, --ngpus N             nccl: GPUs driven by each process (default 1); without
                            mpirun one process runs N ranks, no MPI needed
  -R, --registerbuffers 0|1 nccl: 1 registers buffers with ncclCommRegister (default 0);
                            buffers come from ncclMemAlloc either way
      --path PATH           auto, nvlink, pcie, shm, rdma, tcp. mpi: sets Open MPI's
                            pml/btl (shm, tcp, rdma); the observed path is measured
                            with network counters. nccl: sets NCCL_P2P_LEVEL,
                            NCCL_P2P_DISABLE, NCCL_NVLS_ENABLE, NCCL_NET, NCCL_IB_DISABLE;
                            the observed transports come from NCCL's INFO log
      --nccl-log-dir DIR    nccl: where each process's NCCL INFO log is written
                            (default $TMPDIR/ccbench-nccl, or /tmp/ccbench-nccl)

Output (stdout from rank 0 only):
  -J, --json FILE           JSON Lines results, flushed point by point (results/SCHEMA.md)
      --csv FILE            one CSV row per point and placement
      --stats               extra table columns: per-iteration p50 and p99 and the
                            95% confidence interval of the median, in us
      --samples             put every per-iteration time in the JSON records
      --progress MODE       auto: a live line when stderr is a terminal; under mpirun or
                            srun (stderr is a pipe) a plain line every 10 s; on: the
                            live line always; off

The table (nccl-tests layout), for out-of-place and then in-place runs:
  size     bytes of the larger buffer, as nccl-tests: all_gather, reduce_scatter,
           alltoall, gather and scatter count all ranks' chunks (count x ranks x
           element size)
  count    elements per rank, as nccl-tests (split collectives: one rank's chunk)
  type     element type;  redop: reduction (none when it does not reduce)
  root     root rank (-1 when not rooted)
  time     microseconds per operation. With pipelined timing (default), the time of
           -n back-to-back operations divided by -n on each rank, combined across
           ranks per -a; with --timing per_iteration, the median over iterations of
           the slowest rank's time (barrier before each, outside the timed region).
           pingpong: half a round trip; uni_bw, bi_bw: a window divided by --window
  algbw    size / time, in GB/s (1 GB = 1e9 bytes)
  busbw    algbw x the nccl-tests factor: all_reduce 2(n-1)/n; all_gather,
           reduce_scatter, alltoall, gather, scatter (n-1)/n; others 1; bi_bw 2
           (both directions). One rank: the same formula, so 0.00 for all_reduce,
           algbw for broadcast, reduce and sendrecv, as nccl-tests prints it.
  #wrong   wrong elements summed over ranks (N/A when -c 0)
Footer: "Out of bounds values" is the sum of #wrong; "Avg bus bandwidth" the
mean busbw over all rows and placements measured (0-byte rows included), as
nccl-tests computes it.

Exit codes: 0 ok, 1 internal failure, 2 bad input, 3 wrong data, 4 watchdog timeout.
)",
                     CCBENCH_VERSION, joined_collectives(), joined_dtypes(), joined_ops());
}

std::string list_text() {
  std::string s = "Collectives:\n";
  for (const auto& c : all_collectives())
    s += fmt::format("  {:<15} {}{}{}\n", c.name, c.summary, c.reduces ? " [-o]" : "",
                     c.rooted ? " [-r]" : "");
  s += "\nBackends:\n";
#if CCBENCH_HAVE_MPI
  s += "  mpi             MPI over host memory (built)\n";
#else
  s += "  mpi             MPI over host memory (not built: no MPI at configure time)\n";
#endif
#if CCBENCH_HAVE_CUDA
  const GpuInfo gpus = query_gpus();
  const std::string seen = gpus.error.empty() ? fmt::format("{} GPU(s)", gpus.devices) : gpus.error;
#if CCBENCH_HAVE_NCCL
  s += fmt::format("  nccl            NCCL over GPU memory (built, NCCL {})\n                  CUDA runtime {} sees {}\n",
                   nccl_version(), gpus.runtime_version, seen);
#else
  s += fmt::format("  nccl            NCCL over GPU memory (not built: no NCCL at configure time)\n                  CUDA runtime {} "
                   "sees {}\n", gpus.runtime_version, seen);
#endif
#else
  s += "  nccl            NCCL over GPU memory (not built: no CUDA toolkit at configure time)\n";
#endif
  s += fmt::format("Host loops: {} (CCBENCH_HOST_ISA=baseline forces the portable ones)\n", host_kernels().isa);
  s += "\nDtypes: " + joined_dtypes() + "\n";
  s += "Ops:    " + joined_ops() + "\n";
  s += "Paths (mpi):  auto (Open MPI chooses), shm (pml ob1, btl self,vader), tcp (pml ob1, btl "
       "self,tcp), rdma (pml ucx)\n";
  s += "Paths (nccl): auto, nvlink (NCCL_P2P_LEVEL=NVL), pcie (NCCL_P2P_LEVEL=PHB, NCCL_NVLS_ENABLE=0),\n"
       "              shm (NCCL_P2P_DISABLE=1, NCCL_NVLS_ENABLE=0), rdma (NCCL_NET=IB), tcp (NCCL_NET=Socket, NCCL_IB_DISABLE=1)\n";
  return s;
}

BackendChoice choose_default_backend(bool have_mpi, bool have_nccl, int gpus, const std::string& gpu_error,
                                     const char* env_backend) {
  if (env_backend && *env_backend) {
    const std::string b = env_backend;
    if (b != "mpi" && b != "nccl") throw UsageError(fmt::format("CCBENCH_BACKEND '{}': unknown (allowed: mpi, nccl)", b));
    return {b, "CCBENCH_BACKEND=" + b};
  }
  if (!have_mpi) return {"nccl", "default: the only backend of a build without MPI"};
  if (!have_nccl) return {"mpi", "default: this build has no NCCL"};
  if (gpus > 0) return {"nccl", fmt::format("default: {} GPU{} visible and NCCL built in", gpus, gpus == 1 ? "" : "s")};
  return {"mpi", gpu_error.empty() ? "default: no GPU visible" : fmt::format("default: no GPU visible ({})", gpu_error)};
}

namespace {

// --backend not given: implied by a flag of one backend, else the default.
void resolve_backend(Config& cfg, const std::vector<std::pair<const char*, const std::string*>>& nccl_flags,
                     const std::string& memory) {
  for (const auto& [flag, value] : nccl_flags)
    if (!value->empty()) {
      cfg.backend = "nccl";
      cfg.backend_reason = fmt::format("implied by {}", flag);
      return;
    }
  if (cfg.path == "nvlink" || cfg.path == "pcie") {
    cfg.backend = "nccl";
    cfg.backend_reason = fmt::format("implied by --path {}", cfg.path);
    return;
  }
  if (!memory.empty()) {
    cfg.backend = "mpi";
    cfg.backend_reason = "implied by --memory";
    return;
  }
  int gpus = 0;
  std::string error;
#if CCBENCH_HAVE_CUDA && CCBENCH_HAVE_NCCL && CCBENCH_HAVE_MPI
  // Once per process: rank 0's command line is parsed again after MPI starts.
  static const GpuInfo g = query_gpus();
  gpus = g.devices;
  error = g.error;
#endif
  const BackendChoice c = choose_default_backend(CCBENCH_HAVE_MPI, CCBENCH_HAVE_NCCL, gpus, error, std::getenv("CCBENCH_BACKEND"));
  cfg.backend = c.backend;
  cfg.backend_reason = c.reason;
}

}  // namespace

// The nccl-tests flags ccbench has no own use for: each is taken where it
// means what ccbench does anyway, and otherwise refused with what to use.
void nccl_tests_flags(const std::vector<std::pair<const char*, std::string>>& flags, Config& cfg) {
  struct Rule {
    const char* flag;
    long lo, hi;        // values accepted
    const char* why;    // why other values are refused, and what to use instead
  };
  static const Rule rules[] = {
      {"-t/--nthreads", 1, 1, "ccbench drives its GPUs from one thread per process: use -g N GPUs per process, or more MPI ranks"},
      {"-m/--agg_iters", 1, 1, "each timed launch is one operation; aggregating several in one NCCL group is not supported"},
      {"-N/--run_cycles", 1, 1, "run the command again instead (each -J file keeps its run; compare and model merge repeats)"},
      {"-p/--parallel_init", 0, 1, ""},
      {"-y/--stream_null", 0, 0, "ccbench runs NCCL on its own non-blocking stream; the legacy default stream is not supported"},
      {"-C/--report_cputime", 0, 0, "ccbench times to completion; the host time to enqueue (nccl-tests -C 1) is not reported"},
      {"-I/--per_iter_timing", 0, 1, ""},
      {"-x/--cta_policy", 0, 0, "ccbench does not set NCCL's CTA policy: only 0, NCCL's default, which it uses"},
      {"-u/--unalign", 0, 0, "misaligned buffers are not supported; ccbench's buffers are page-aligned"},
  };
  for (const auto& [flag, value] : flags) {
    if (value.empty()) continue;
    for (const Rule& r : rules) {
      if (std::string_view(flag) != r.flag) continue;
      long v = 0;
      try {
        v = parse_long(flag, value, std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
      } catch (const UsageError&) {
        throw UsageError(fmt::format("{} '{}': not a number", flag, value));
      }
      if (v < r.lo || v > r.hi)
        throw UsageError(fmt::format("{} {}: {}", flag, value, r.why));
      // -I 1: per-iteration CUDA-event statistics in nccl-tests; here the
      // per-iteration p50/p99 columns (--stats).
      if (std::string_view(flag) == "-I/--per_iter_timing" && v == 1) cfg.stats_columns = true;
    }
  }
}

ParsedArgs parse_args(int argc, const char* const* argv) {
  ParsedArgs out;
  Config& cfg = out.config;
  for (int i = 0; i < argc; ++i) cfg.argv.emplace_back(argv[i]);

  CLI::App app{"ccbench"};
  app.set_help_flag();  // handled below, so that help text is ours
  bool help = false, version = false;
  std::string collective, minb, maxb, stepb, factor, iters, warmup, check, op, dtype, root, block,
      avg, timeout, timing, window, path, backend, memory, ngpus, graph, reg, bind, plan, precision, time_per_size,
      max_time, max_iters, nthreads, agg_iters, run_cycles, parallel_init, stream_null, cputime, per_iter, cta_policy,
      unalign, warmup_order;
  app.add_flag("-h,--help", help);
  app.add_flag("--version", version);
  app.add_option("collective", collective);
  app.add_option("-b,--minbytes", minb);
  app.add_option("-e,--maxbytes", maxb);
  app.add_option("-i,--stepbytes", stepb);
  app.add_option("-f,--stepfactor", factor);
  app.add_option("-n,--iters", iters);
  app.add_option("-w,--warmup_iters", warmup);
  app.add_option("-c,--check", check);
  app.add_option("-o,--op", op);
  app.add_option("-d,--datatype", dtype);
  app.add_option("-r,--root", root);
  app.add_option("-z,--blocking", block);
  app.add_option("-a,--average", avg);
  app.add_option("-T,--timeout", timeout);
  CLI::Option* json_opt = app.add_option("-J,--json", cfg.json_path)->expected(0, 1);
  app.add_option("--csv", cfg.csv_path);
  app.add_option("--timing", timing);
  app.add_option("--warmup-order", warmup_order);
  app.add_option("--window", window);
  app.add_option("--path", path);
  app.add_option("--backend", backend);
  app.add_option("--memory", memory);
  app.add_option("-g,--ngpus", ngpus);
  app.add_option("-G,--cudagraph", graph);
  app.add_option("-R,--registerbuffers", reg);
  app.add_option("--nccl-log-dir", cfg.nccl_log_dir);
  app.add_option("--bind", bind);
  app.add_option("--precision", precision);
  app.add_option("--time-per-size", time_per_size);
  app.add_option("--max-time-per-size", max_time);
  app.add_option("--max-iters", max_iters);
  app.add_option("--sync", cfg.sync);
  app.add_flag("--rotate-buffers", cfg.rotate_buffers);
  bool fixed_buffers = false;
  app.add_flag("--fixed-buffers", fixed_buffers);
  app.add_option("--xml", cfg.topo_xml);
  app.add_option("--plan", plan);
  app.add_option("--cpus", cfg.topo_cpus);
  app.add_option("--progress", cfg.progress);
  app.add_flag("--stats", cfg.stats_columns);
  app.add_flag("--samples", cfg.samples);
  app.add_flag("--strict-sizes", cfg.strict_sizes);
  // nccl-tests flags that ccbench takes for compatibility (nccl_tests_flags).
  app.add_option("-t,--nthreads", nthreads);
  app.add_option("-m,--agg_iters", agg_iters);
  app.add_option("-N,--run_cycles", run_cycles);
  app.add_option("-p,--parallel_init", parallel_init);
  app.add_option("-y,--stream_null", stream_null);
  app.add_option("-C,--report_cputime", cputime);
  app.add_option("-I,--per_iter_timing", per_iter);
  app.add_option("-x,--cta_policy", cta_policy);
  app.add_option("-u,--unalign", unalign);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    throw UsageError(fmt::format("{} (see ccbench --help)", usage_line(e)));
  }
  // An option given with an empty value ("-b ''") is an error, not "not given".
  for (const CLI::Option* o : app.get_options())
    if (o->get_expected_min() > 0)
      for (const std::string& r : o->results())
        if (r.empty()) {
          std::string name = o->get_name(false, true);
          std::replace(name.begin(), name.end(), ',', '/');
          throw UsageError(fmt::format("{}: empty value", name));
        }
  if (help) {
    out.command = Command::help;
    return out;
  }
  if (version) {
    out.command = Command::version;
    return out;
  }
  if (collective == "list") {
    out.command = Command::list;
    return out;
  }
  if (collective.empty())
    throw UsageError(fmt::format("no collective given (one of: {}; or list, copy, io, topo, compare, accept, baseline, model)", joined_collectives()));
  if (!bind.empty()) {
    if (!parse_bind_policy(bind)) throw UsageError(fmt::format("--bind '{}': unknown (allowed: auto, none, numa, core)", bind));
    cfg.bind = bind;
  }
  const bool json_without_file = json_opt->count() > 0 && cfg.json_path.empty();
  const bool topo_options = !cfg.topo_xml.empty() || !plan.empty() || !cfg.topo_cpus.empty();
  if (collective == "topo") {
    out.command = Command::topo;
    cfg.topo_json = json_opt->count() > 0;  // --json [FILE]: to stdout, or to FILE
    if (!plan.empty()) cfg.topo_plan = static_cast<int>(parse_long("--plan", plan, 1, 4096));
    if (!cfg.topo_cpus.empty()) {
      bool ok = cfg.topo_cpus.find_first_not_of("0123456789,-") == std::string::npos;
      try {
        ok = ok && !parse_cpu_list(cfg.topo_cpus).empty();
      } catch (const std::exception&) {
        ok = false;
      }
      if (!ok) throw UsageError(fmt::format("--cpus '{}': not a CPU list (e.g. 0-3,8)", cfg.topo_cpus));
    }
    return out;
  }
  if (topo_options) throw UsageError("--xml, --plan and --cpus: apply to ccbench topo only");
  if (json_without_file) throw UsageError("-J/--json: needs a file name");
  if (collective == "copy") {
    out.command = Command::copy;
    const std::pair<const std::string*, const char*> not_for_copy[] = {
        {&op, "-o/--op"}, {&dtype, "-d/--datatype"}, {&root, "-r/--root"}, {&backend, "--backend"}, {&path, "--path"},
        {&ngpus, "-g/--ngpus"}, {&graph, "-G/--cudagraph"}, {&reg, "-R/--registerbuffers"}, {&memory, "--memory"}};
    for (const auto& [value, flag] : not_for_copy)
      if (!value->empty()) throw UsageError(fmt::format("{}: does not apply to ccbench copy", flag));
    if (minb.empty() && maxb.empty()) {
      cfg.min_bytes = std::size_t{1} << 20;
      cfg.max_bytes = std::size_t{256} << 20;
      if (factor.empty()) cfg.step_factor = 4;
    }
  } else {
    cfg.collective = find_collective(collective);
    if (!cfg.collective)
      throw UsageError(fmt::format("unknown collective '{}' (one of: {})", collective, joined_collectives()));
  }

  if (!minb.empty()) cfg.min_bytes = parse_bytes("-b/--minbytes", minb);
  if (!maxb.empty()) cfg.max_bytes = parse_bytes("-e/--maxbytes", maxb);
  if (!stepb.empty()) cfg.step_bytes = parse_bytes("-i/--stepbytes", stepb);
  if (!factor.empty()) {
    cfg.step_factor = parse_long("-f/--stepfactor", factor, 1, 1 << 20);
  }
  constexpr long kIntMax = std::numeric_limits<int>::max();
  if (!iters.empty()) cfg.iters = static_cast<int>(parse_long("-n/--iters", iters, 1, kIntMax));
  if (!warmup.empty()) cfg.warmup = static_cast<int>(parse_long("-w/--warmup_iters", warmup, 0, kIntMax));
  if (!check.empty()) cfg.check = static_cast<int>(parse_long("-c/--check", check, 0, kIntMax));
  if (root == "-1")
    throw UsageError("-r/--root -1: every root in turn (nccl-tests) is not supported; run once per root (-r 0, -r 1, ...)");
  if (!root.empty()) cfg.root = static_cast<int>(parse_long("-r/--root", root, 0, kIntMax));
  if (!block.empty()) cfg.blocking = static_cast<int>(parse_long("-z/--blocking", block, 0, 3));
  if (!avg.empty()) cfg.aggregation = static_cast<int>(parse_long("-a/--average", avg, 0, 3));
  if (!timeout.empty()) cfg.timeout_s = parse_seconds("-T/--timeout", timeout);
  if (!window.empty()) cfg.window = static_cast<int>(parse_long("--window", window, 1, 1 << 16));

  if (!dtype.empty()) cfg.dtypes = parse_one_or_all("-d/--datatype", dtype, all_dtypes(), parse_dtype);
  if (!op.empty()) cfg.ops = parse_one_or_all("-o/--op", op, all_ops(), parse_op);
  if (!timing.empty()) {
    if (timing == "pipelined") cfg.timing = TimingMode::pipelined;
    else if (timing == "per_iteration") cfg.timing = TimingMode::per_iteration;
    else if (timing == "both") cfg.timing = TimingMode::both;
    else throw UsageError(fmt::format("--timing '{}': unknown (allowed: pipelined, per_iteration, both)", timing));
  }
  if (!warmup_order.empty()) {
    if (warmup_order == "sizes-first") cfg.warmup_order = WarmUpOrder::sizes_first;
    else if (warmup_order == "per-point") cfg.warmup_order = WarmUpOrder::per_point;
    else throw UsageError(fmt::format("--warmup-order '{}': unknown (allowed: sizes-first, per-point)", warmup_order));
  }
  if (!path.empty()) {
    bool known = false;
    for (auto p : kPaths) known = known || p == path;
    if (!known)
      throw UsageError(fmt::format("--path '{}': unknown (allowed: auto, nvlink, pcie, shm, rdma, tcp)", path));
    cfg.path = path;
  }
  if (!backend.empty()) {
    if (backend != "mpi" && backend != "nccl")
      throw UsageError(fmt::format("--backend '{}': unknown (allowed: mpi, nccl)", backend));
    cfg.backend = backend;
  } else if (out.command == Command::run) {
    resolve_backend(cfg, {{"-g/--ngpus", &ngpus}, {"-G/--cudagraph", &graph}, {"-R/--registerbuffers", &reg},
                          {"--nccl-log-dir", &cfg.nccl_log_dir}}, memory);
  }
  if (!memory.empty()) {
    if (memory != "host" && memory != "device")
      throw UsageError(fmt::format("--memory '{}': unknown (allowed: host, device)", memory));
    if (cfg.backend != "mpi") throw UsageError("--memory: applies to --backend mpi (nccl always uses device memory)");
    cfg.memory = memory;
  }
  if (!ngpus.empty()) cfg.gpus_per_process = static_cast<int>(parse_long("-g/--ngpus", ngpus, 1, 64));
  if (!graph.empty()) cfg.cuda_graph = static_cast<int>(parse_long("-G/--cudagraph", graph, 0, kIntMax));
  if (reg == "2")
    throw UsageError("-R/--registerbuffers 2: symmetric registration (ncclCommWindowRegister) is not supported; -R 1 registers "
                     "buffers locally (ncclCommRegister)");
  if (!reg.empty()) cfg.register_buffers = static_cast<int>(parse_long("-R/--registerbuffers", reg, 0, 1));
  if (cfg.backend != "nccl") {
    const auto nccl_only = [](const std::string& v, const char* flag) {
      if (!v.empty()) throw UsageError(fmt::format("{}: applies to --backend nccl only", flag));
    };
    nccl_only(ngpus, "-g/--ngpus");
    nccl_only(graph, "-G/--cudagraph");
    nccl_only(reg, "-R/--registerbuffers");
    nccl_only(cfg.nccl_log_dir, "--nccl-log-dir");
    if (cfg.path == "nvlink" || cfg.path == "pcie")
      throw UsageError(fmt::format("--path {}: applies to --backend nccl only (MPI paths: auto, shm, tcp, rdma)", cfg.path));
  }
  nccl_tests_flags({{"-t/--nthreads", nthreads}, {"-m/--agg_iters", agg_iters}, {"-N/--run_cycles", run_cycles},
                    {"-p/--parallel_init", parallel_init}, {"-y/--stream_null", stream_null}, {"-C/--report_cputime", cputime},
                    {"-I/--per_iter_timing", per_iter}, {"-x/--cta_policy", cta_policy}, {"-u/--unalign", unalign}},
                   cfg);
  if (cfg.cuda_graph > 0 && cfg.blocking > 0)
    throw UsageError("-G/--cudagraph with -z/--blocking 1-3: the timed launches are captured in one graph, so there is no "
                     "operation to wait for in between; choose one");
  if (cfg.cuda_graph > 0 && cfg.rotate_buffers)
    throw UsageError("-G/--cudagraph with --rotate-buffers: a graph is captured for one set of buffers, so every slot would be "
                     "captured again inside the timed loop; choose one");
  cfg.buffer_shift = !fixed_buffers;
  if (!precision.empty()) cfg.precision = parse_precision(precision);
  if (!time_per_size.empty()) cfg.time_per_size = parse_seconds("--time-per-size", time_per_size);
  if (!max_time.empty()) cfg.max_time_per_size = parse_seconds("--max-time-per-size", max_time);
  if (!max_iters.empty()) cfg.max_iters = parse_long("--max-iters", max_iters, 6, 1L << 40);
  if (cfg.precision > 0 && cfg.time_per_size > 0)
    throw UsageError("--precision and --time-per-size: choose one (precision stops at a CI width, time at a duration)");
  if ((cfg.precision > 0 || cfg.time_per_size > 0 || cfg.sync == "window") && cfg.timing == TimingMode::pipelined)
    throw UsageError("--precision, --time-per-size and --sync window shape per-iteration samples: not with --timing pipelined");
  if (cfg.sync != "barrier" && cfg.sync != "window")
    throw UsageError(fmt::format("--sync '{}': unknown (allowed: barrier, window)", cfg.sync));
  if (cfg.progress != "auto" && cfg.progress != "on" && cfg.progress != "off")
    throw UsageError(fmt::format("--progress '{}': unknown (allowed: auto, on, off)", cfg.progress));
  // Checks that need no rank count: the plan's shape.
  (void)sweep_sizes(cfg.min_bytes, cfg.max_bytes, cfg.step_bytes, cfg.step_factor);
  return out;
}

}  // namespace ccb
