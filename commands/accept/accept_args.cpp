// ccbench accept's options: the help text, the option table, parsing and
// the checks made before anything runs; a spec's check as the arguments of
// the sweep or io run that measures it.
#include "commands/accept/accept_args.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <string>
#include <cstdlib>
#include <filesystem>

#include "commands/cli_errors.hpp"
#include "commands/option_table.hpp"
#include "common/errors.hpp"
#include "results/output_file.hpp"
#include "results/yaml_fields.hpp"

namespace ccb {

IoArgs io_check_args(const Check& c, const std::string& spec_file) {
  const IoCheck& io = *c.io;
  IoArgs a;
  a.table = false;
  a.argv = {"ccbench", "accept", "check=" + c.name};
  IoOptions& o = a.options;
  o.dir = io.dir;
  o.blocks = c.sizes;
  o.file_bytes = io.file_bytes;
  o.dataset_files = io.files;
  o.queue_depth = io.queue_depth;
  o.threads = io.threads;
  o.direct = io.direct;
  o.shared_file = io.shared_file;
  try {
    o.patterns = parse_io_patterns(io.pattern);
    if (o.patterns.size() != 1) throw UsageError("io.pattern: one pattern per check");
    if (!io.engine.empty()) o.engine = parse_io_engine(io.engine);
    validate(o);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}:{}: checks: {}: io: {}", spec_file, c.line, c.name, e.what()));
  }
  return a;
}

Config check_config(const Check& c, const std::string& spec_file) {
  Config cfg;
  cfg.collective = c.collective;
  cfg.backend = c.backend;
  cfg.memory = c.backend == BackendKind::mpi ? c.memory : MemoryKind::host;
  cfg.path = c.path;
  cfg.gpus_per_process = c.gpus_per_process;
  cfg.dtypes = {c.dtype};
  cfg.ops = {c.op};
  cfg.sizes = c.sizes;
  cfg.min_bytes = *std::min_element(c.sizes.begin(), c.sizes.end());
  cfg.max_bytes = *std::max_element(c.sizes.begin(), c.sizes.end());
  cfg.iters = c.iterations;
  cfg.warmup = c.warmup;
  cfg.check = 1;
  cfg.bitwise = c.bitwise;
  cfg.timeout_s = c.timeout_s;
  cfg.timeout_exit_code = kExitUsage;
  cfg.link_rate = c.link_rate, cfg.link_rate_gbps = c.link_rate_gbps, cfg.nics_per_node = c.nics_per_node;
  cfg.timing = TimingMode::pipelined;
  if (c.times_stragglers()) cfg.stragglers = true, cfg.timing = TimingMode::both;  // each rank timed per iteration
  cfg.table = false;
  cfg.progress = ProgressMode::off;
  cfg.argv = {"ccbench", "accept", spec_file, "check=" + c.name};
  return cfg;
}

namespace {

constexpr const char* kAcceptHelp =
    R"HELP(usage: ccbench accept SPEC.yaml [--out DIR] [--color auto|always|never] [--simulate CLUSTER.yaml]
                      [--launcher auto|mpi|slurm] [--drain] [--resume] [--node-check]
                      [--history DB] [--prom FILE]

Runs the checks of an acceptance spec across every node of this MPI job
(launch it like a run: mpirun/srun, all ranks of all nodes), judges each
group of nodes against the spec's gates and names defective nodes. Inside
a Slurm allocation (sbatch, salloc) started as one process, it is instead
a controller: every group of a round runs as its own job step, at once.

OPTIONS

Patterns: all (every node together), per-node (each node alone, all at
once), pairwise (every pair of nodes, round-robin: concurrent pairs, n-1
rounds), ring (node i with i+1), bisect (group testing: failing groups split
in halves, all at once, until pairs; about log2(n) + 3 rounds). After a
pairwise or ring pass, suspects are re-paired with good nodes (second pass)
so that the verdict names nodes. Nothing is blamed on one measurement: a
suspect is DEFECTIVE only when it fails with two different references, a
pair of two cleared nodes fails again before its link is named, a failing
group whose halves pass is re-tested whole (bisect), a failing node is
measured again (per-node); a failure that does not repeat is reported as
noise, not as a verdict. Nodes are told apart by host name; the spec's
switches: names each host's switch (bisect splits along them and names a
switch whose hosts all fail). Every verdict says its margin (how far
the median was from the bar).
Numbers: busbw/algbw in GB/s (1e9 B/s), time in us, out-of-place, time =
pipelined mean over the group's ranks, as a plain run prints them.
Exit codes: 0 accepted, 1 rejected, 2 spec or run error (one line on
stderr names file, line and key), 130/143 interrupted.
)HELP";

// The options, declared once (commands/option_table.hpp).
std::vector<CommandOption> accept_options(AcceptArgs& a, bool& help) {
  return {
      option("--out", "DIR",
             fmt::format(
                 "where the verdicts and raw results go (default {}): verdict.json (the answer first), verdict.md, "
                 "report.html, groups.jsonl (every judged group, one line each), raw/CHECK/*.jsonl (one "
                 "ccbench JSON Lines file per group and repeat)",
                 a.out_dir),
             a.out_dir),
      option("--color", "WHEN",
             fmt::format("colour in the terminal summary: auto, always, never (default {}: on a TTY, unless NO_COLOR "
                         "or under mpirun/srun, where a rank's stdout may be a pseudo-terminal)",
                         a.color),
             a.color),
      option("--simulate", "CLUSTER.yaml",
             "run the same schedule and verdict code against a cluster model instead of MPI (no mpirun): nodes, "
             "defective nodes, links and switches, noise, time per test, seed; verdict.json gets the rounds and the "
             "simulated wall time",
             a.simulate),
      option("--launcher", "L",
             fmt::format("auto, mpi or slurm (default {}: Slurm job steps inside an allocation when not started by "
                         "mpirun or srun, else one MPI job). Under Slurm a group's step (srun --nodelist ... ccbench "
                         "accept SPEC --run-group CHECK --group-out FILE) that does not finish within the check's "
                         "step_timeout_s (default (repeats + 1) x timeout_s + 60 s) is cancelled: its nodes failed "
                         "that group (\"timed out\"), the acceptance goes on; tasks per node from "
                         "SLURM_NTASKS_PER_NODE",
                         a.launcher),
             a.launcher),
      flag("--drain",
           "Slurm: drain each DEFECTIVE node (scontrol update ... state=drain reason=\"ccbench: CHECK "
           "margin -52% (job ID)\"); without it the report lists the commands",
           a.drain),
      flag("--resume",
           "Slurm: return to service the nodes that passed every check and were drained by ccbench "
           "(reason \"ccbench:\"), never another tool's",
           a.resume),
      flag("--node-check",
           fmt::format("this node alone, as Slurm's HealthCheckProgram: checks of pattern all or per-node on one "
                       "process, no report on the terminal, one line per failing check on stderr (\"ccbench node "
                       "check: HOST: CHECK: why\"), exit 0/1, ended after {} s; with --drain/--resume it drains or "
                       "returns this node (SLURMD_NODENAME). --out defaults to $TMPDIR/ccbench-node-check",
                       kNodeCheckSeconds),
           a.node_check),
      option("--history", "DB",
             "when it ends, add every raw run (OUT/raw) to this history database (ccbench history; "
             "docs/history.md): one series per check, size and group of hosts (a pair's link); gates with "
             "`baseline: history` judge each group against its last runs there",
             a.history_db),
      option("--prom", "FILE",
             "when it ends, Prometheus text: ccbench_accept_node_pass{check, host} 1 (passed or cleared) or 0, "
             "ccbench_accept_node_margin of a defective node, ccbench_accept_accepted{spec} 1/0",
             a.prom_path),
      option("--run-group", "CHECK", "", a.run_group),  // the Slurm step controller's, with --group-out
      option("--group-out", "FILE", "", a.group_out),
      flag("-h,--help", "this text", help),
  };
}

}  // namespace

std::string accept_help() {
  AcceptArgs defaults;
  bool help = false;
  std::string s = kAcceptHelp;
  s.replace(s.find("OPTIONS\n"), 8, option_list(accept_options(defaults, help)));
  return s;
}

std::optional<AcceptArgs> parse_accept(int argc, const char* const* argv) {
  AcceptArgs a;
  bool help = false;
  std::vector<std::string> positional;
  CLI::App app{"ccbench accept"};
  app.set_help_flag();
  app.allow_extras(false);
  declare_options(app, accept_options(a, help));
  app.add_option("spec", positional);
  parse_or_usage_error(app, argc, argv, "accept", "accept");
  if (help) {
    return std::nullopt;
  }
  if (positional.size() != 1) throw UsageError("accept: give exactly one spec file (ccbench accept SPEC.yaml)");
  if (a.out_dir.empty()) throw UsageError("accept: --out: empty folder name");
  if (a.color != "auto" && a.color != "always" && a.color != "never")
    throw UsageError(fmt::format("accept: --color '{}': unknown (allowed: auto, always, never)", a.color));
  if (app.count("--simulate") && a.simulate.empty()) throw UsageError("accept: --simulate: empty file name");
  if (a.launcher != "auto" && a.launcher != "mpi" && a.launcher != "slurm")
    throw UsageError(fmt::format("accept: --launcher '{}': unknown (allowed: auto, mpi, slurm)", a.launcher));
  if (!a.simulate.empty() && a.launcher == "slurm")
    throw UsageError("accept: --simulate and --launcher slurm: choose one");
  if (a.run_group.empty() != a.group_out.empty())
    throw UsageError("accept: --run-group and --group-out come together (the Slurm step controller gives both)");
  a.spec_text = yamlf::read_text(positional[0]);
  a.spec = parse_spec(a.spec_text, positional[0]);
  if (!a.run_group.empty() &&
      std::none_of(a.spec.checks.begin(), a.spec.checks.end(), [&](const Check& c) { return c.name == a.run_group; }))
    throw UsageError(fmt::format("accept: --run-group '{}': {} has no such check", a.run_group, a.spec.file));
  if (a.node_check) {
    if (!a.simulate.empty() || a.launcher == "slurm" || !a.run_group.empty())
      throw UsageError(
          "accept: --node-check runs on this node alone: not with --simulate, --launcher slurm or --run-group");
    for (const Check& c : a.spec.checks)
      if (c.pattern != GroupPattern::all && c.pattern != GroupPattern::per_node)
        throw UsageError(
            fmt::format("{}:{}: checks: {}: pattern {} needs several nodes; a node check runs checks of "
                        "pattern all or per-node on this node alone",
                        a.spec.file, c.line, c.name, name(c.pattern)));
    if (!app.count("--out")) a.out_dir = (std::filesystem::temp_directory_path() / "ccbench-node-check").string();
  }
  if ((a.drain || a.resume) && !a.node_check && !uses_slurm_steps(a))
    throw UsageError(
        fmt::format("accept: {} acts on Slurm nodes: run inside a Slurm allocation (sbatch, salloc) as one "
                    "process, or give --launcher slurm",
                    a.drain ? "--drain" : "--resume"));
  for (const Check& c : a.spec.checks)
    if (c.io) io_check_args(c, a.spec.file);  // refused here, before anything runs
  // Nothing the run reads may be replaced by what it writes: the spec, the
  // cluster model, the gates' baselines against the verdict files, and none
  // of them inside --out/raw, which the run fills.
  std::vector<std::pair<std::string, std::string>> inputs{{"spec", positional[0]}, {"--simulate", a.simulate}};
  for (const Check& c : a.spec.checks)
    for (const Gate& g : c.gates)
      if (!g.baseline.empty()) inputs.emplace_back(fmt::format("{}: baseline", c.name), g.baseline);
  const std::filesystem::path out(a.out_dir);
  check_distinct_paths({{"--out (verdict.json)", (out / "verdict.json").string()},
                        {"--out (verdict.md)", (out / "verdict.md").string()},
                        {"--out (report.html)", (out / "report.html").string()}},
                       inputs);
  if (a.simulate.empty()) check_inputs_outside("--out", (out / "raw").string(), inputs);
  if (!a.group_out.empty()) check_distinct_paths({{"--group-out", a.group_out}}, inputs);
  return a;
}

bool uses_slurm_steps(const AcceptArgs& args) {
  if (!args.run_group.empty() || !args.simulate.empty() || args.node_check || args.launcher == "mpi") return false;
  if (args.launcher == "slurm") return true;
  // Not started by a launcher: mpirun's and an srun step's variables unset.
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_STEP_NUM_TASKS"})
    if (std::getenv(var)) return false;
  return std::getenv("SLURM_JOB_ID") != nullptr;
}

}  // namespace ccb
