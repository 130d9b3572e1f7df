#include "commands/cli_errors.hpp"
#include "commands/cli.hpp"
#include "results/nccl_tests_json.hpp"

#include "collectives/nccl/nccl_env.hpp"
#include "commands/cli_options.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <limits>

#include "analysis/compare/expectation.hpp"
#include "harness/sweep_sizes.hpp"
#include "harness/topo/binding.hpp"
#if CCBENCH_HAVE_CUDA
#include "kernels/cuda/gpu_info.hpp"
#endif
#if CCBENCH_HAVE_NCCL
#include "collectives/nccl/nccl_version.hpp"
#endif
#include "common/environment.hpp"
#include "common/errors.hpp"
#include "common/terminal_text.hpp"
#include "kernels/host_kernels.hpp"
#include "results/noise.hpp"

namespace ccb {

namespace {

long parse_long(const std::string& flag, const std::string& text, long lo, long hi) {
  long v = 0;
  const auto* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v);
  if (text.empty() || r.ec != std::errc() || r.ptr != end)
    throw UsageError(fmt::format("{} '{}': not an integer (allowed: {} to {})", flag, text, lo, hi));
  if (v < lo || v > hi) throw UsageError(fmt::format("{} {}: out of range (allowed: {} to {})", flag, v, lo, hi));
  return v;
}

std::size_t parse_bytes(const std::string& flag, const std::string& text) {
  const auto v = parse_size(text);
  if (!v) throw UsageError(fmt::format("{} {}", flag, size_error(text)));
  return *v;
}

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

// The nccl-tests flags ccbench takes (listed together, not one by one).
constexpr const char* kCompatibilityFlags =
    R"(nccl-tests flags taken for compatibility (other values: one line saying why and what to use):
  -t 1, -m 1, -y 0, -D 0, -V 16, -M 0 (what ccbench does anyway); -p 0|1 (no effect: one
  thread per process). Not supported: -r -1 (every root: run once per root); nccl-tests'
  --memory (-M) is ccbench's --memory KIND, so give -M)";

// ccbench copy's default sizes (parse_copy; the help says them).
constexpr std::size_t kCopyMinBytes = std::size_t{1} << 20, kCopyMaxBytes = std::size_t{256} << 20;
constexpr int kCopyFactor = 4;

std::string help_text() {
  return fmt::format(R"(ccbench {0} - collective-communication benchmark

Usage:
  ccbench <collective> [options]     run a sweep (under mpirun/srun for several ranks)
  ccbench moe --traffic moe:...      a MoE layer: moe_dispatch, then moe_combine (docs/moe.md)
  ccbench copy [-b -e -f -n -w -J --csv]
                                     host<->GPU and GPU<->GPU copy bandwidth and latency
                                     (copy engines and SM kernels; default {copy})
  ccbench io DIR [-p PATTERNS -b -e -f --direct --qd N --threads N ...]
                                     storage -> memory (-> GPU): sequential, random, mixed,
                                     checkpoint, small-file dataset (see ccbench io --help)
  ccbench topo [--json [FILE]] [--xml FILE] [--plan N [--bind P] [--cpus LIST]]
                                     the node (every node under mpirun): CPUs, NUMA, GPUs,
                                     NICs, GPU x GPU/NIC distances; --plan: the binding N
                                     local ranks would get, with warnings
  ccbench compare --run LABEL=PATH --run LABEL=PATH [...]
                                     line up result sets (ccbench, nccl-tests, OSU, IMB,
                                     NCCL Inspector's production records):
                                     ratios, significance, environment, cost; terminal,
                                     --md, --csv, --json, --html (see ccbench compare --help)
  ccbench accept SPEC.yaml [--out DIR]
                                     acceptance: run a spec's checks across the job's nodes
                                     (all, per-node, pairwise, ring), judge gates, name
                                     defective nodes; exit 0 accepted, 1 rejected, 2 error
  ccbench baseline --out FILE RUN... medians of several runs for relative gates
  ccbench expect RUN... [--link-rate RATE]
                                     is this number normal? each series against its path's
                                     physical limit and the published figure for the same
                                     hardware, with sources (see ccbench expect --help)
  ccbench node-labels OUT [--apply]  an accept verdict as Kubernetes node labels, taints and a
                                     ConfigMap (written; applied with kubectl on request)
  ccbench history add|show|changes|export|copy
                                     every run kept (SQLite or PostgreSQL): series over time,
                                     change points, Prometheus text (see ccbench history --help)
  ccbench model fit|predict|check    the scale model: fit results at several rank counts,
                                     predict larger ones (see ccbench model --help)
  ccbench workload show|predict STEP.yaml
                                     a training step's communication phases, and its step
                                     time predicted from curves (see ccbench workload --help)
  ccbench replay STEP.yaml [-n -w -J -T]
                                     run that step's communication on MPI ranks (under
                                     mpirun or srun; see ccbench replay --help)
  ccbench list                       collectives, backends, dtypes, ops and paths
  ccbench --help | --version

Collectives: {1}

{2}The table is nccl-tests 2.19.6's, line for line: its header (version line with
ccbench=V added, "Collective test starting", "nThread ... unalign", "#  Rank R
Group G Pid P on HOST device D [BUS] NAME", device -1 [host] for host memory),
then ccbench's own "# ccbench" block, the rows unbroken, nccl-tests' footer,
then ccbench's notes per row and its summary lines (docs/running.md "The table").
Columns, for out-of-place and then in-place runs:
  size     bytes of the larger buffer, as nccl-tests: all_gather, reduce_scatter,
           alltoall, gather and scatter count all ranks' chunks (count x ranks x
           element size); alltoallv: the bytes a rank sends (on average)
  count    elements per rank, as nccl-tests (split collectives: one rank's chunk)
  type     element type;  redop: reduction (none when it does not reduce)
  root     root rank (-1 when not rooted)
  time     microseconds per operation. With pipelined timing (default), the time of
           -n back-to-back operations divided by -n on each rank, combined across
           ranks per -a; with --timing per_iteration, the median over iterations of
           the slowest rank's time (barrier before each, outside the timed region).
           pingpong: half a round trip; uni_bw, bi_bw: a window divided by --window
  algbw    size / time, in GB/s (1 GB = 1e9 bytes); alltoallv: the busiest
           rank's bytes (sent or received, the larger) / time, as nccl-tests;
           the row's 'traffic:' notes after the footer name that rank, the mean a rank
           sends, and split its bytes inside its host (scale-up) and across
           hosts (scale-out), each / the time (docs/alltoallv.md; --traffic
           moe: tokens per rank, docs/moe.md)
  busbw    algbw x the nccl-tests factor: all_reduce 2(n-1)/n; all_gather,
           reduce_scatter, alltoall, alltoallv, gather, scatter (n-1)/n; others 1;
           bi_bw 2 (both directions). One rank: the same formula, so 0.00 for
           all_reduce, algbw for broadcast, reduce and sendrecv, as nccl-tests
           prints it.
  #wrong   wrong elements summed over ranks (N/A when -c 0)
Footer: "Out of bounds values" is the sum of #wrong; "Avg bus bandwidth" the
mean busbw over all rows and placements measured (0-byte rows included), as
nccl-tests computes it. Noise (comment lines, and "noise" in the JSON):
"WARNING: noise" in the ccbench block when a host runs more ranks than the
CPUs they are bound to (oversubscribed) or was busy before the run (load
average above its CPUs); a row's "noise:" note when its pipelined time is over
{ratio:g}x away from its per-iteration p50, or its p99 over {tail:g}x its p50; "# Noise"
after the footer repeats the run's flags, CPU steal above {steal:g}% during the run,
and how many measurements were flagged. compare calls no winner on them.

Exit codes: 0 ok, 1 internal failure, 2 bad input, 3 wrong data, 4 watchdog timeout,
5 an output could not be written, 7 average bus bandwidth below 0.9 x NCCL_TESTS_MIN_BW,
129/130/143 stopped by SIGHUP/SIGINT/SIGTERM (docs/failures.md).

{3})",
                     CCBENCH_VERSION, joined_collectives(), options_help("Per-iteration sampling", kCompatibilityFlags),
                     environment_help(), fmt::arg("ratio", kNoisePipelinedRatio), fmt::arg("tail", kNoiseTailRatio),
                     fmt::arg("steal", kNoiseStealShare * 100),
                     fmt::arg("copy", fmt::format("{} to {}, x{}", format_size(kCopyMinBytes),
                                                  format_size(kCopyMaxBytes), kCopyFactor)));
}

std::string list_text() {
  std::string s = "Collectives:\n";
  for (const auto& c : all_collectives())
    s += fmt::format("  {:<15} {}{}{}\n", c.name, c.summary, c.reduces ? " [-o]" : "", c.rooted ? " [-r]" : "");
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
  s += fmt::format(
      "  nccl            NCCL over GPU memory (built, NCCL {})\n                  CUDA runtime {} sees {}\n",
      nccl_version(), gpus.runtime_version, seen);
#else
  s += fmt::format(
      "  nccl            NCCL over GPU memory (not built: no NCCL at configure time)\n                  CUDA runtime "
      "{} "
      "sees {}\n",
      gpus.runtime_version, seen);
#endif
#else
  s += "  nccl            NCCL over GPU memory (not built: no CUDA toolkit at configure time)\n";
#endif
  s += fmt::format("Host loops: {} (CCBENCH_HOST_ISA=baseline forces the portable ones)\n", host_kernels().isa);
  s += "\nDtypes: " + joined_dtypes() + "\n";
  s += "Ops:    " + joined_ops() + "\n";
  s += "Paths (mpi):  auto (Open MPI chooses), shm (pml ob1, btl self,vader), tcp (pml ob1, btl "
       "self,tcp), rdma (pml ucx)\n";
  s += "Paths (nccl): auto";
  for (PathRequest p :
       {PathRequest::nvlink, PathRequest::pcie, PathRequest::shm, PathRequest::rdma, PathRequest::tcp}) {
    std::string vars;
    for (const auto& [name, value] : nccl_path_environment(p)) vars += (vars.empty() ? "" : ", ") + name + "=" + value;
    s += fmt::format(",{}{} ({})", p == PathRequest::shm ? "\n              " : " ", setting_name(p), vars);
  }
  s += "\n";
  return s;
}

std::string nvidia_driver_evidence() {
  std::ifstream f("/proc/driver/nvidia/version");
  std::string line;
  if (std::getline(f, line) && !line.empty()) return "/proc/driver/nvidia/version: " + line;
  std::error_code ec;
  if (std::filesystem::exists("/dev/nvidia0", ec)) return "/dev/nvidia0";
  return "";
}

namespace {
// CUDA's version code (12080) as "12.8".
std::string cuda_version_text(int v) { return v > 0 ? fmt::format("{}.{}", v / 1000, v % 1000 / 10) : "unknown"; }
}  // namespace

BackendChoice choose_default_backend(bool have_mpi, bool have_nccl, int gpus, const std::string& gpu_error,
                                     const char* env_backend, const std::string& gpu_driver, int runtime_version,
                                     int driver_cuda_version) {
  if (env_backend && *env_backend) {
    const auto b = parse_setting<BackendKind>(env_backend);
    if (!b)
      throw UsageError(
          fmt::format("CCBENCH_BACKEND '{}': unknown (allowed: {})", env_backend, allowed_settings<BackendKind>()));
    return {*b, std::string("CCBENCH_BACKEND=") + env_backend};
  }
  if (!have_mpi) return {BackendKind::nccl, "default: the only backend of a build without MPI"};
  if (!have_nccl) return {BackendKind::mpi, "default: this build has no NCCL"};
  if (gpus > 0)
    return {BackendKind::nccl, fmt::format("default: {} GPU{} visible and NCCL built in", gpus, gpus == 1 ? "" : "s")};
  if (!gpu_driver.empty() && !gpu_error.empty())
    throw UsageError(fmt::format(
        "this node has NVIDIA GPUs ({}) but the CUDA runtime cannot use them ({}): this ccbench's CUDA runtime is {}, "
        "the driver supports CUDA {}{}; update the driver or use a ccbench built with an older CUDA "
        "(--backend mpi measures host memory on purpose)",
        gpu_driver, gpu_error, cuda_version_text(runtime_version), cuda_version_text(driver_cuda_version),
        driver_cuda_version > 0 && driver_cuda_version < runtime_version ? " (older than the runtime)" : ""));
  return {BackendKind::mpi,
          gpu_error.empty() ? "default: no GPU visible" : fmt::format("default: no GPU visible ({})", gpu_error)};
}

namespace {

// --backend not given: implied by a flag of one backend, else the default.
void resolve_backend(Config& cfg, const std::vector<std::pair<const char*, const std::string*>>& nccl_flags,
                     const std::string& memory) {
  for (const auto& [flag, value] : nccl_flags)
    if (!value->empty()) {
      cfg.backend = BackendKind::nccl;
      cfg.backend_reason = fmt::format("implied by {}", flag);
      return;
    }
  if (cfg.path == PathRequest::nvlink || cfg.path == PathRequest::pcie) {
    cfg.backend = BackendKind::nccl;
    cfg.backend_reason = fmt::format("implied by --path {}", setting_name(cfg.path));
    return;
  }
  if (!memory.empty()) {
    cfg.backend = BackendKind::mpi;
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
  int runtime = 0, driver = 0;
#if CCBENCH_HAVE_CUDA && CCBENCH_HAVE_NCCL && CCBENCH_HAVE_MPI
  runtime = g.runtime_version, driver = g.driver_version;
#endif
  const BackendChoice c = choose_default_backend(CCBENCH_HAVE_MPI, CCBENCH_HAVE_NCCL, gpus, error,
                                                 env_value(EnvVar::backend), nvidia_driver_evidence(), runtime, driver);
  cfg.backend = c.backend;
  cfg.backend_reason = c.reason;
}

}  // namespace

// The nccl-tests flags ccbench has no own use for: each is taken where it
// means what ccbench does anyway, and otherwise refused with what to use.
void nccl_tests_flags(const std::vector<std::pair<const char*, std::string>>& flags) {
  struct Rule {
    const char* flag;
    long lo, hi;      // values accepted
    const char* why;  // why other values are refused, and what to use instead
  };
  static const Rule rules[] = {
      {"-t/--nthreads", 1, 1,
       "ccbench drives its GPUs from one thread per process: use -g N GPUs per process, or more MPI ranks"},
      {"-m/--agg_iters", 1, 1,
       "each timed launch is one operation; aggregating several in one NCCL group is not supported"},
      {"-p/--parallel_init", 0, 1, ""},
      {"-D/--device_implementation", 0, 0,
       "nccl-tests' own kernels on NCCL's device API (NCCL >= 2.28) are not in ccbench, which times NCCL's host "
       "API collectives: leave -D out (or run nccl-tests for that kernel)"},
      {"-V/--device_cta_count", 16, 16, "sets the CTAs of -D's kernels, which ccbench does not run: leave it out"},
      {"-M", 0, 0,
       "nccl-tests' GPU memory report is not implemented: NCCL_DEBUG=INFO logs each communicator's memory, and "
       "nvidia-smi shows the process's"},
      {"-y/--stream_null", 0, 0,
       "ccbench runs NCCL on its own non-blocking stream; the legacy default stream is not supported"},
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
      if (v < r.lo || v > r.hi) throw UsageError(fmt::format("{} {}: {}", flag, value, r.why));
    }
  }
}

namespace {

// A setting word: "--flag 'x': unknown (allowed: a, b)".
template <class E>
void set_choice(E& out, const char* flag, const std::string& text) {
  if (text.empty()) return;
  const auto v = parse_setting<E>(text);
  if (!v) throw UsageError(fmt::format("{} '{}': unknown (allowed: {})", flag, text, allowed_settings<E>()));
  out = *v;
}

// The command line through CLI11: options into `raw`, file names and flags
// straight into `cfg`. An option given with an empty value is an error.
RawArgs read_command_line(int argc, const char* const* argv, Config& cfg) {
  RawArgs raw;
  CLI::App app{"ccbench"};
  app.set_help_flag();  // handled by the caller, so that help text is ours
  app.add_flag("-h,--help", raw.help);
  app.add_flag("--version", raw.version);
  app.add_option("collective", raw.collective);
  CLI::Option* json_opt = nullptr;
  for (const OptionRow& r : option_rows(raw, cfg)) {
    if (r.flag) {
      app.add_flag(r.flags, *r.flag);
    } else {
      CLI::Option* o = app.add_option(r.flags, *r.text);
      if (r.value_optional) o->expected(0, 1);
      if (std::string_view(r.flags) == "-J,--json") json_opt = o;
    }
  }
  parse_or_usage_error(app, argc, argv, "", "");
  for (const CLI::Option* o : app.get_options())
    if (o->get_expected_min() > 0)
      for (const std::string& r : o->results())
        if (r.empty()) {
          std::string name = o->get_name(false, true);
          std::replace(name.begin(), name.end(), ',', '/');
          throw UsageError(fmt::format("{}: empty value", name));
        }
  raw.json_given = json_opt->count() > 0;
  return raw;
}

// ccbench topo: --json [FILE], --plan N, --cpus LIST.
void parse_topo(const RawArgs& raw, Config& cfg) {
  cfg.topo_json = raw.json_given;
  if (!raw.plan.empty()) cfg.topo_plan = static_cast<int>(parse_long("--plan", raw.plan, 1, 4096));
  if (cfg.topo_cpus.empty()) return;
  bool ok = cfg.topo_cpus.find_first_not_of("0123456789,-") == std::string::npos;
  ok = ok && !parse_cpu_list(cfg.topo_cpus).empty();
  if (!ok) throw UsageError(fmt::format("--cpus '{}': not a CPU list (e.g. 0-3,8)", cfg.topo_cpus));
}

// ccbench copy: the collective-only flags refused, its own default sizes.
void parse_copy(const RawArgs& raw, Config& cfg) {
  const std::pair<const std::string*, const char*> not_for_copy[] = {
      {&raw.op, "-o/--op"},           {&raw.dtype, "-d/--datatype"},
      {&raw.root, "-r/--root"},       {&raw.backend, "--backend"},
      {&raw.path, "--path"},          {&raw.ngpus, "-g/--ngpus"},
      {&raw.graph, "-G/--cudagraph"}, {&raw.reg, "-R/--registerbuffers"},
      {&raw.memory, "--memory"},      {&raw.mpi_calls, "--mpi-calls"}};
  for (const auto& [value, flag] : not_for_copy)
    if (!value->empty()) throw UsageError(fmt::format("{}: does not apply to ccbench copy", flag));
  if (raw.minb.empty() && raw.maxb.empty()) {
    cfg.min_bytes = kCopyMinBytes;
    cfg.max_bytes = kCopyMaxBytes;
    if (raw.factor.empty()) cfg.step_factor = kCopyFactor;
  }
}

// Which command, and its own options. True when nothing else applies (help,
// version, list, topo).
bool parse_command(const RawArgs& raw, ParsedArgs& out) {
  Config& cfg = out.config;
  if (raw.help) out.command = Command::help;
  else if (raw.version) out.command = Command::version;
  else if (raw.collective == "list") out.command = Command::list;
  if (out.command != Command::run) return true;
  if (raw.collective.empty())
    throw UsageError(fmt::format(
        "no collective given (one of: {}; or list, copy, io, topo, compare, accept, baseline, expect, model)",
        joined_collectives()));
  set_choice(cfg.bind, "--bind", raw.bind);
  if (raw.collective == "topo") {
    out.command = Command::topo;
    parse_topo(raw, cfg);
    return true;
  }
  if (!cfg.topo_xml.empty() || !raw.plan.empty() || !cfg.topo_cpus.empty())
    throw UsageError("--xml, --plan and --cpus: apply to ccbench topo only");
  if (raw.json_given && cfg.json_path.empty()) throw UsageError("-J/--json: needs a file name");
  if (raw.collective == "copy") {
    out.command = Command::copy;
    parse_copy(raw, cfg);
    return false;
  }
  // ccbench moe: a MoE layer, dispatch then combine (each a run: main.cpp's sweep_command)
  cfg.moe_layer = raw.collective == "moe";
  if (cfg.moe_layer && is_nccl_tests_json_path(cfg.json_path))
    throw UsageError(fmt::format(
        "-J {}: ccbench moe writes two runs (dispatch, combine) to -J; nccl-tests' .json holds one: give a .jsonl "
        "name (the suffix rule: docs/running.md)",
        cfg.json_path));
  cfg.collective = find_collective(cfg.moe_layer ? "moe_dispatch" : raw.collective);
  if (!cfg.collective)
    throw UsageError(fmt::format("unknown collective '{}' (one of: {})", raw.collective, joined_collectives()));
  return false;
}

// --split, else nccl-tests' NCCL_TESTS_SPLIT_MASK or NCCL_TESTS_SPLIT (the
// precedence of nccl-tests' own reading: the mask first).
void parse_split_option(const std::string& given, Config& cfg) {
  if (!given.empty()) {
    cfg.split = parse_split(given, "--split");
    cfg.split_source = "--split";
  } else if (const char* mask = std::getenv("NCCL_TESTS_SPLIT_MASK"); mask && *mask) {
    cfg.split = parse_split_mask(mask);
    cfg.split_source = "NCCL_TESTS_SPLIT_MASK";
  } else if (const char* rule = std::getenv("NCCL_TESTS_SPLIT"); rule && *rule) {
    cfg.split = parse_split(rule, "NCCL_TESTS_SPLIT");
    cfg.split_source = "NCCL_TESTS_SPLIT";
  }
}

// nccl-tests' NCCL_TESTS_MIN_BW: the average bus bandwidth (GB/s) a run
// must reach within 10% (below 0.9 x it: the footer's FAILED, exit 7).
void parse_min_bw(Config& cfg) {
  const char* v = std::getenv("NCCL_TESTS_MIN_BW");
  if (!v || !*v) return;
  char* end = nullptr;
  const double bw = std::strtod(v, &end);
  if (end == v || *end != '\0' || !(bw >= 0) || !std::isfinite(bw))
    throw UsageError(fmt::format("NCCL_TESTS_MIN_BW '{}': expected a bus bandwidth in GB/s (e.g. 180)", v));
  cfg.min_avg_busbw_gbps = bw;
}

// What is measured and how: sizes, iterations, root, dtypes, ops, timing.
void parse_measurement(const RawArgs& raw, Config& cfg) {
  if (!raw.minb.empty()) cfg.min_bytes = parse_bytes("-b/--minbytes", raw.minb);
  if (!raw.maxb.empty()) cfg.max_bytes = parse_bytes("-e/--maxbytes", raw.maxb);
  if (!raw.stepb.empty()) cfg.step_bytes = parse_bytes("-i/--stepbytes", raw.stepb);
  if (!raw.factor.empty()) cfg.step_factor = parse_long("-f/--stepfactor", raw.factor, 1, 1 << 20);
  constexpr long kIntMax = std::numeric_limits<int>::max();
  if (!raw.iters.empty()) cfg.iters = static_cast<int>(parse_long("-n/--iters", raw.iters, 1, kIntMax));
  if (!raw.warmup.empty()) cfg.warmup = static_cast<int>(parse_long("-w/--warmup_iters", raw.warmup, 0, kIntMax));
  if (!raw.run_cycles.empty()) cfg.run_cycles = parse_long("-N/--run_cycles", raw.run_cycles, 0, kIntMax);
  if (!raw.unalign.empty()) cfg.unalign = static_cast<int>(parse_long("-u/--unalign", raw.unalign, 0, 4096));
  if (!raw.cputime.empty()) cfg.report_cputime = parse_long("-C/--report_cputime", raw.cputime, 0, 1) == 1;
  if (!raw.timestamps.empty()) cfg.report_timestamps = parse_long("-S/--report_timestamps", raw.timestamps, 0, 1) == 1;
  if (!raw.per_iter.empty()) cfg.per_iter_timing = parse_long("-I/--per_iter_timing", raw.per_iter, 0, 1) == 1;
  if (!raw.per_iter_skip.empty())
    cfg.per_iter_skip = static_cast<int>(parse_long("-K/--per_iter_skip", raw.per_iter_skip, 0, kIntMax));
  if (cfg.per_iter_skip >= cfg.iters)
    throw UsageError(fmt::format("-K/--per_iter_skip {}: leaves none of the -n {} iterations to summarise; give fewer",
                                 cfg.per_iter_skip, cfg.iters));
  if (!raw.check.empty()) cfg.check = static_cast<int>(parse_long("-c/--check", raw.check, 0, kIntMax));
  if (!raw.bitwise.empty()) cfg.bitwise = static_cast<int>(parse_long("--bitwise", raw.bitwise, 1, 1000));
  if (raw.root == "-1")
    throw UsageError(
        "-r/--root -1: every root in turn (nccl-tests) is not supported; run once per root (-r 0, -r 1, ...)");
  if (!raw.root.empty()) cfg.root = static_cast<int>(parse_long("-r/--root", raw.root, 0, kIntMax));
  if (!raw.block.empty()) cfg.blocking = static_cast<int>(parse_long("-z/--blocking", raw.block, 0, 3));
  if (!raw.avg.empty()) cfg.aggregation = static_cast<RankCombine>(parse_long("-a/--average", raw.avg, 0, 3));
  if (!raw.timeout.empty()) cfg.timeout_s = parse_seconds("-T/--timeout", raw.timeout);
  parse_split_option(raw.split, cfg);
  parse_min_bw(cfg);
  if (!raw.link_rate.empty()) {
    cfg.link_rate_gbps = link_rate_option("--link-rate", raw.link_rate);
    cfg.link_rate = raw.link_rate;
  }
  if (!raw.nics.empty()) cfg.nics_per_node = static_cast<int>(parse_long("--nics-per-node", raw.nics, 1, 1024));
  if (cfg.split && !cfg.history_db.empty())  // refused before measuring, not after (analysis/history/history_run.cpp)
    throw UsageError(fmt::format(
        "--history with {}: a run of groups side by side is not kept in the history (its series would mix with single "
        "groups'); drop one",
        cfg.split_source));
  if (!raw.window.empty()) cfg.window = static_cast<int>(parse_long("--window", raw.window, 1, 1 << 16));
  if (cfg.collective && cfg.collective->source == Source::traffic)
    cfg.traffic = raw.traffic.empty() ? traffic_from_environment(std::getenv("NCCL_TESTS_ALLTOALLV_MATRIX_FILE"),
                                                                 std::getenv("NCCL_TESTS_ALLTOALLV_SPREAD"))
                                      : parse_traffic(raw.traffic);
  else if (!raw.traffic.empty())
    throw UsageError(
        fmt::format("--traffic: only alltoallv and the MoE layer (moe, moe_dispatch, moe_combine) take "
                    "a traffic model, not {}",
                    cfg.collective ? cfg.collective->name : "this command"));
  if (cfg.collective &&
      (cfg.collective->id == CollectiveId::moe_dispatch || cfg.collective->id == CollectiveId::moe_combine)) {
    const std::string_view name = cfg.moe_layer ? "moe" : cfg.collective->name;
    if (raw.traffic.empty() || cfg.traffic->kind != TrafficKind::moe)
      throw UsageError(fmt::format("{}: give the layer, --traffic {} (docs/moe.md)", name, kMoeTraffic));
    MoeRouting& m = cfg.traffic->moe;
    const bool combine = cfg.collective->id == CollectiveId::moe_combine;
    if (m.direction_given && (cfg.moe_layer || m.combine != combine))
      throw UsageError(fmt::format("{}: --traffic ...:{}: {}", name, m.combine ? "combine" : "dispatch",
                                   cfg.moe_layer
                                       ? "ccbench moe runs dispatch, then combine: leave the direction out"
                                       : fmt::format("{} is the {}", name, combine ? "combine" : "dispatch")));
    m.combine = combine;
    if (cfg.moe_layer && !cfg.csv_path.empty())
      throw UsageError("moe: --csv holds one run, and moe is two (dispatch, combine): write -J");
    if (cfg.moe_layer && !cfg.prom_path.empty())
      throw UsageError(
          "moe: --prom holds one run, and moe is two (dispatch, combine): run moe_dispatch and "
          "moe_combine with one --prom each");
  }
  if (!raw.dtype.empty()) cfg.dtypes = parse_one_or_all("-d/--datatype", raw.dtype, all_dtypes(), parse_dtype);
  if (!raw.op.empty()) cfg.ops = parse_one_or_all("-o/--op", raw.op, all_ops(), parse_op);
  set_choice(cfg.timing, "--timing", raw.timing);
  set_choice(cfg.warmup_order, "--warmup-order", raw.warmup_order);
}

// Backend, memory, path and the NCCL-only options; the backend resolved when
// not given (a run only: copy has none).
void parse_backend(const RawArgs& raw, Command command, Config& cfg) {
  set_choice(cfg.path, "--path", raw.path);
  set_choice(cfg.backend, "--backend", raw.backend);
  const std::string algorithms = cfg.nccl_algorithms ? "given" : "";
  constexpr long kIntMax = std::numeric_limits<int>::max();
  // nccl-tests' defaults typed out (-g 1, -G 0, -R 0) change nothing on any
  // backend: only a value other than the default implies or needs nccl.
  const auto beyond_default = [](const std::string& v, const char* flag, long def, long lo, long hi) {
    return v.empty() || parse_long(flag, v, lo, hi) == def ? std::string() : v;
  };
  const std::string ngpus = beyond_default(raw.ngpus, "-g/--ngpus", 1, 1, 64);
  const std::string graph = beyond_default(raw.graph, "-G/--cudagraph", 0, 0, kIntMax);
  const std::string reg = beyond_default(raw.reg, "-R/--registerbuffers", 0, 0, 2);
  const std::string cta = beyond_default(raw.cta_policy, "-x/--cta_policy", 0, 0, 2);
  if (raw.backend.empty() && command == Command::run)
    resolve_backend(cfg,
                    {{"-g/--ngpus", &ngpus},
                     {"-G/--cudagraph", &graph},
                     {"-R/--registerbuffers", &reg},
                     {"-x/--cta_policy", &cta},
                     {"--nccl-log-dir", &cfg.nccl_log_dir},
                     {"--nccl-algorithms", &algorithms}},
                    raw.memory);
  set_choice(cfg.memory, "--memory", raw.memory);
  if (!raw.memory.empty() && cfg.backend != BackendKind::mpi)
    throw UsageError("--memory: applies to --backend mpi (nccl always uses device memory)");
  set_choice(cfg.mpi_calls, "--mpi-calls", raw.mpi_calls);
  if (!raw.mpi_calls.empty() && cfg.backend != BackendKind::mpi)
    throw UsageError("--mpi-calls: applies to --backend mpi (NCCL's calls are always asynchronous on a stream)");
  if (!raw.ngpus.empty()) cfg.gpus_per_process = static_cast<int>(parse_long("-g/--ngpus", raw.ngpus, 1, 64));
  if (!raw.graph.empty()) cfg.cuda_graph = static_cast<int>(parse_long("-G/--cudagraph", raw.graph, 0, kIntMax));
  if (!raw.reg.empty()) cfg.register_buffers = static_cast<int>(parse_long("-R/--registerbuffers", raw.reg, 0, 2));
  if (!raw.cta_policy.empty()) cfg.cta_policy = static_cast<int>(parse_long("-x/--cta_policy", raw.cta_policy, 0, 2));
  if (cfg.backend == BackendKind::nccl) {
    // Options that need a newer NCCL than some clusters load: one line naming the version, before the run.
    std::string gap;
#if CCBENCH_HAVE_NCCL
    if (cfg.register_buffers == 2)
      gap = nccl_feature_gap("-R 2 (symmetric registration, ncclCommWindowRegister)", 22700);
    if (gap.empty() && cfg.cta_policy >= 0) gap = nccl_feature_gap("-x (ncclConfig_t.CTAPolicy)", 22700);
    if (gap.empty() && cfg.cta_policy == 2) gap = nccl_feature_gap("-x 2 (NCCL_CTA_POLICY_ZERO)", 22800);
#endif
    if (!gap.empty()) throw UsageError(gap);
    return;
  }
  const std::pair<const std::string*, const char*> nccl_only[] = {{&ngpus, "-g/--ngpus"},
                                                                  {&graph, "-G/--cudagraph"},
                                                                  {&reg, "-R/--registerbuffers"},
                                                                  {&cta, "-x/--cta_policy"},
                                                                  {&cfg.nccl_log_dir, "--nccl-log-dir"},
                                                                  {&algorithms, "--nccl-algorithms"}};
  for (const auto& [value, flag] : nccl_only)
    if (!value->empty()) throw UsageError(fmt::format("{}: applies to --backend nccl only", flag));
  if (cfg.path == PathRequest::nvlink || cfg.path == PathRequest::pcie)
    throw UsageError(fmt::format("--path {}: applies to --backend nccl only (MPI paths: auto, shm, tcp, rdma)",
                                 setting_name(cfg.path)));
}

// Per-iteration sampling, buffers and progress.
void parse_sampling(const RawArgs& raw, Config& cfg) {
  if (raw.buffer_shift && raw.fixed_buffers) throw UsageError("--buffer-shift and --fixed-buffers: choose one");
  if (raw.buffer_shift || raw.fixed_buffers) cfg.buffer_shift = raw.buffer_shift;
  if (!raw.precision.empty()) cfg.precision = parse_precision(raw.precision);
  if (!raw.time_per_size.empty()) cfg.time_per_size = parse_seconds("--time-per-size", raw.time_per_size);
  if (!raw.max_time.empty()) cfg.max_time_per_size = parse_seconds("--max-time-per-size", raw.max_time);
  if (!raw.max_iters.empty()) cfg.max_iters = parse_long("--max-iters", raw.max_iters, 6, 1L << 40);
  set_choice(cfg.sync, "--sync", raw.sync);
  set_choice(cfg.progress, "--progress", raw.progress);
}

// Options that are each fine but not together.
void check_combinations(const Config& cfg) {
  if (cfg.cuda_graph > 0 && cfg.blocking > 0)
    throw UsageError(
        "-G/--cudagraph with -z/--blocking 1-3: the timed launches are captured in one graph, so there is no "
        "operation to wait for in between; choose one");
  if (cfg.cuda_graph > 0 && cfg.rotate_buffers)
    throw UsageError(
        "-G/--cudagraph with --rotate-buffers: a graph is captured for one set of buffers, so every slot would be "
        "captured again inside the timed loop; choose one");
  if (cfg.buffer_shift.value_or(false) && cfg.rotate_buffers)
    throw UsageError("--buffer-shift with --rotate-buffers: both move every iteration's buffers; choose one");
  if (cfg.precision > 0 && cfg.time_per_size > 0)
    throw UsageError("--precision and --time-per-size: choose one (precision stops at a CI width, time at a duration)");
  if ((cfg.precision > 0 || cfg.time_per_size > 0 || cfg.sync == SyncMode::window) &&
      cfg.timing == TimingMode::pipelined)
    throw UsageError(
        "--precision, --time-per-size and --sync window shape per-iteration samples: not with --timing pipelined");
  if (cfg.per_iter_timing && cfg.cuda_graph > 0)
    throw UsageError(
        "-I 1 with -G: the iterations run inside one graph launch, so there is no iteration to time on its own; "
        "choose one");
  if (cfg.report_cputime && cfg.timing == TimingMode::per_iteration)
    throw UsageError(
        "-C 1 reports the pipelined loop's host time: not with --timing per_iteration (there is no loop to time)");
  if (cfg.per_iter_timing && cfg.timing == TimingMode::per_iteration)
    throw UsageError(
        "-I 1 times the iterations of the pipelined loop: not with --timing per_iteration (its samples are "
        "ccbench's own, barrier-separated)");
  if (cfg.stragglers && cfg.timing == TimingMode::pipelined)
    throw UsageError(
        "--stragglers reads each rank's entry into every per-iteration sample: not with --timing pipelined");
  // Checks that need no rank count: the plan's shape.
  (void)sweep_sizes(cfg.min_bytes, cfg.max_bytes, cfg.step_bytes, cfg.step_factor);
}

}  // namespace

ParsedArgs parse_args(int argc, const char* const* argv) {
  ParsedArgs out;
  Config& cfg = out.config;
  for (int i = 0; i < argc; ++i) cfg.argv.emplace_back(argv[i]);
  const RawArgs raw = read_command_line(argc, argv, cfg);
  if (parse_command(raw, out)) return out;
  parse_measurement(raw, cfg);
  // copy's latency test chases 8-byte pointers through buffers of -e bytes (fewer: uninitialised reads).
  if (out.command == Command::copy && cfg.max_bytes < 8)
    throw UsageError(
        fmt::format("-e/--maxbytes {}: ccbench copy's latency test chases 8-byte pointers through "
                    "buffers of -e bytes; give -e 8 or more",
                    cfg.max_bytes));
  parse_backend(raw, out.command, cfg);
  if (cfg.run_cycles != 1 && out.command == Command::copy)
    throw UsageError(
        fmt::format("-N/--run_cycles {}: ccbench copy runs its sizes once; run it again instead", cfg.run_cycles));
  nccl_tests_flags({{"-t/--nthreads", raw.nthreads},
                    {"-m/--agg_iters", raw.agg_iters},
                    {"-p/--parallel_init", raw.parallel_init},
                    {"-y/--stream_null", raw.stream_null},
                    {"-D/--device_implementation", raw.device_impl},
                    {"-V/--device_cta_count", raw.device_ctas},
                    {"-M", raw.memory_report}});
  parse_sampling(raw, cfg);
  check_combinations(cfg);
  return out;
}

}  // namespace ccb
