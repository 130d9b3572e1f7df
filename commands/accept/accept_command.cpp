#include "results/json_text.hpp"
#include "common/redact.hpp"
#include "commands/accept/accept_command.hpp"
#include "analysis/compare/catalogue.hpp"
#include "analysis/compare/expectation.hpp"
#include "commands/run_exports.hpp"
#include "commands/accept/accept_parts.hpp"
#include "commands/accept/accept_history.hpp"
#include "commands/io_command.hpp"

#include <fmt/format.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <algorithm>
#include <csignal>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <nlohmann/json.hpp>

#include "collectives/nccl/nccl_env.hpp"
#include "harness/require_gpu.hpp"
#include "harness/every_rank_passes.hpp"
#include "harness/faults.hpp"
#include "harness/run_info.hpp"
#include "harness/stop_signals.hpp"
#include "harness/sweep.hpp"
#include "harness/watchdog.hpp"
#include "common/errors.hpp"
#include "common/terminal_text.hpp"
#if CCBENCH_HAVE_MPI
#include "harness/mpi_path.hpp"
#endif
#include "analysis/accept/accept_report.hpp"
#include "analysis/accept/baseline.hpp"
#include "analysis/accept/check_rounds.hpp"
#include "analysis/accept/simulate.hpp"
#include "analysis/history/history_db.hpp"
#include "analysis/history/history_run.hpp"
#include "results/import/importer.hpp"
#include "results/import/text_input.hpp"
#include "results/json_records.hpp"
#include "analysis/report/render.hpp"
#include "results/yaml_fields.hpp"

namespace ccb {
namespace {

class CollectingWriter final : public Writer {
 public:
  std::string text;
  void begin(const RunInfo& r) override { text += json_text(run_to_json(r)) + "\n"; }
  void point(const PointRecord& p) override { text += json_text(point_to_json(p)) + "\n"; }
  void end(const EndInfo& e) override { text += json_text(end_to_json(e)) + "\n"; }
};

std::string file_safe(const std::string& s) {
  std::string out;
  for (char ch : s)
    out += std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' || ch == '_' ? ch : '_';
  return out.substr(0, 64);
}

// A repeat's JSON Lines, read by the comparator's reader of ccbench records
// (results/import/ccbench_jsonl.cpp): the one place that knows their shape.
RepeatResult parse_repeat(int code, const std::string& jsonl) {
  RepeatResult r;
  ResultSet set;
  set.files.push_back("repeat");
  ImportContext ctx{set, 0, "repeat", ImportOptions{}};
  import_ccbench_jsonl(jsonl, ctx);
  const auto zero_if_nan = [](double v) { return std::isnan(v) ? 0.0 : v; };
  for (const ImportedPoint& i : set.points) {
    if (i.in_place != 0) continue;  // gates judge the out-of-place run
    MeasuredPoint p;
    p.requested_bytes = i.requested_bytes;
    p.bytes = i.bytes;
    p.busbw_gbps = zero_if_nan(i.busbw_gbps);
    p.algbw_gbps = zero_if_nan(i.algbw_gbps);
    p.time_us = zero_if_nan(i.time_us);
    p.wrong = i.wrong.value_or(0);
    p.noisy = i.noise > 0 || set.oversubscribed;
    p.skew_us = i.straggler_skew_us;
    p.straggler_host = i.straggler_host;
    r.points.push_back(p);
  }
  // The path's limit and the published figure, as its own record resolves
  // them (share gates; docs/expect.md): the out-of-place series' where there is one.
  const std::vector<Expectation> all = expectations(set, path_facts(set, 0, 0), reference_catalogue());
  for (const Expectation& e : all)
    if (e.series.ends_with("out-of-place") || &e == &all.back()) {
      r.figures = std::make_shared<const ResolvedFigures>(ResolvedFigures{e.ceiling, e.reference});
      break;
    }
  if (code != kExitOk && code != kExitWrongData) {
    const auto status = set.environment.find("run.end_status");
    r.error = fmt::format("exit {}{}", code,
                          status == set.environment.end() ? " (its stderr says why)" : ": " + status->second);
  }
  return r;
}

}  // namespace

// Every repeat of one group's check. A sweep's repeats share one backend
// (one set of NCCL communicators: ncclCommInitRank costs seconds to tens of
// seconds at 1,000 GPUs), torn down after the last repeat under a watchdog
// of the check's timeout.
nlohmann::json group_repeats(const AcceptArgs& args, const Check& c, Config& cfg, const Comm& group,
                             const std::string& nccl_log) {
  nlohmann::json repeats = nlohmann::json::array();
  std::unique_ptr<Backend> backend;
  if (!c.io) {
    backend = agreed_backend(cfg, group, nccl_log);
    if (!backend) {
      if (group.rank() == 0) repeats.push_back({{"code", kExitUsage}, {"jsonl", ""}});
      return repeats;
    }
  }
  for (int k = 0; k < c.repeats; ++k) {
    cfg.observe_path = k == 0;
    cfg.observe_path_note = "observed on the first repeat of this group (raw file rep1)";
    CollectingWriter collect;
    const int code = c.io ? run_io(io_check_args(c, args.spec.file), group, &collect)
                          : run_sweep_on(*backend, cfg, group, nccl_log, &collect);
    if (group.rank() == 0) repeats.push_back({{"code", code}, {"jsonl", collect.text}});
    if (code == kExitSignal + SIGINT || code == kExitSignal + SIGTERM || code == kExitSignal + SIGHUP) break;
  }
  if (backend) {  // signals stay with the accept loop, which writes the verdicts
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    Watchdog teardown(cfg.timeout_s, group.rank(), host, {}, Watchdog::Watches::control_plane);
    teardown.set_exit_code(cfg.timeout_exit_code);
    teardown.teardown_begins();
    backend.reset();
  }
  return repeats;
}

GroupRun group_run_from_json(const Check& c, const PlannedRound& round, const NodeGroup& nodes, const nlohmann::json& j,
                             const std::vector<std::string>& hosts, const std::string& out_dir,
                             std::vector<std::string>& run_errors) {
  GroupRun run;
  run.nodes = nodes;
  run.pass = round.pass;
  run.round = round.round;
  run.ranks = j.at("ranks").get<int>();
  const std::string group = group_hosts(nodes, hosts);
  int k = 0;
  for (const auto& rep : j.at("repeats")) {
    const int code = rep.at("code").get<int>();
    const std::string jsonl = rep.at("jsonl").get<std::string>();
    run.repeats.push_back(parse_repeat(code, jsonl));
    const std::filesystem::path raw =
        std::filesystem::path(out_dir) / "raw" / c.name /
        fmt::format("p{}-r{}-{}-rep{}.jsonl", round.pass, round.round + 1, file_safe(group), ++k);
    write_file_atomically("--out", raw.string(), jsonl);
    if (code == kExitUsage)
      run_errors.push_back(
          fmt::format("{}: {} could not run ({}; see stderr)", c.name, group, run.repeats.back().error));
  }
  return run;
}

namespace {

// One acceptance run: its arguments, nodes, baselines, and what its checks
// have found so far (every pass of every check reads and adds to it).
struct AcceptanceRun {
  const AcceptArgs& args;
  const Comm& world;
  const std::string& nccl_log;
  std::vector<std::string> hosts{};  // node -> host
  std::vector<int> ranks_per_node{};
  int my_node = 0;
  GateBaselines baselines{};                  // rank 0
  std::vector<std::string> run_errors{};      // rank 0
  std::unique_ptr<GroupDetailFile> detail{};  // rank 0
  int interrupted = 0;                        // signal that stopped the run
  Population population{};                    // rank 0: the current check's groups (population gates)
  Watchdog* control = nullptr;                // the current check's control-plane watchdog
  Faults faults{};                            // test-only (CCBENCH_FAULT=control_hang)
  int rounds_shared = 0;                      // over the whole run

  std::string group_name(const NodeGroup& g) const { return group_hosts(g, hosts); }

  static std::string step(const Check& c, const PlannedRound& round, std::string_view what) {
    return fmt::format("ccbench accept's control plane ({} pass {} round {}: {})", c.name, round.pass, round.round + 1,
                       what);
  }

  // Runs one round of groups at once; on rank 0 returns the judged groups.
  std::vector<GroupVerdict> run_round(const Check& c, const PlannedRound& round) {
    Config cfg = check_config(c, args.spec.file);
    const BaselineLookup lookup = baseline_lookup(baselines, hosts);
    const double started = world.now();
    if (world.rank() == 0 && !args.node_check) {  // a node check prints its failures alone
      std::string groups;
      for (const NodeGroup& g : round.groups) groups += (groups.empty() ? "" : ", ") + group_name(g);
      fmt::print(stderr, "ccbench accept: {} ({}) pass {} round {}: {}\n", c.name, name(c.pattern), round.pass,
                 round.round + 1, groups);
    }
    control->set_activity(step(c, round, "forming the round's groups"));
    const std::string mine = run_my_group(c, round, cfg);
    std::vector<double> stop{static_cast<double>(stop_signal())};
    world.max_inplace(stop);  // waits for the slowest group: its sweep's watchdog bounds that
    control->resume();
    control->set_activity(step(c, round, "gathering and judging the round's results"));
    interrupted = static_cast<int>(stop[0]);
    const std::vector<std::string> all = world.gather_strings(mine);
    if (world.rank() == 0 && !args.node_check)
      fmt::print(stderr, "ccbench accept:   round {} took {:.1f} s\n", round.round + 1, world.now() - started);
    return judge_round(c, collect_group_runs(c, round, all), population, lookup);
  }

  // This node's group of the round runs the check's repeats on its own
  // communicator; its rank 0 returns them as JSON ("" elsewhere).
  std::string run_my_group(const Check& c, const PlannedRound& round, Config& cfg) {
    int color = -1;
    for (std::size_t g = 0; g < round.groups.size(); ++g)
      if (std::find(round.groups[g].begin(), round.groups[g].end(), my_node) != round.groups[g].end())
        color = static_cast<int>(g);
    const std::unique_ptr<Comm> sub = world.split(color);
    control->pause();  // the sweeps have watchdogs of their own (timeout_s)
    if (!sub) return "";
    const nlohmann::json repeats = group_repeats(args, c, cfg, *sub, nccl_log);
    return sub->rank() == 0 ? json_text(nlohmann::json{{"group", color}, {"ranks", sub->size()}, {"repeats", repeats}})
                            : "";
  }

  // Rank 0: every group's repeats read back, each kept as a raw file.
  std::vector<GroupRun> collect_group_runs(const Check& c, const PlannedRound& round,
                                           const std::vector<std::string>& all) {
    std::vector<GroupRun> runs;
    for (const std::string& text : all) {
      if (text.empty()) continue;
      const auto j = nlohmann::json::parse(text);
      runs.push_back(group_run_from_json(c, round, round.groups.at(j.at("group").get<std::size_t>()), j, hosts,
                                         args.out_dir, run_errors));
    }
    return runs;
  }
};

// Rank 0's next round (or none), on every process.
std::optional<PlannedRound> share_round(const Comm& world, const std::optional<PlannedRound>& mine) {
  std::vector<int> flat;
  if (world.rank() == 0 && mine) {
    flat = {mine->pass, mine->round, static_cast<int>(mine->groups.size())};
    for (const NodeGroup& g : mine->groups) {
      flat.push_back(static_cast<int>(g.size()));
      flat.insert(flat.end(), g.begin(), g.end());
    }
  }
  int n = static_cast<int>(flat.size());
  world.broadcast(&n, sizeof n);
  if (n == 0) return std::nullopt;
  flat.resize(static_cast<std::size_t>(n));
  world.broadcast(flat.data(), flat.size() * sizeof(int));
  if (world.rank() == 0) return mine;
  PlannedRound r;
  r.pass = flat[0];
  r.round = flat[1];
  r.groups.resize(static_cast<std::size_t>(flat[2]));
  std::size_t at = 3;
  for (NodeGroup& g : r.groups) {
    g.assign(static_cast<std::size_t>(flat[at]), 0);
    ++at;
    for (int& x : g) x = flat[at++];
  }
  return r;
}

}  // namespace

std::vector<std::string> switch_labels(const AcceptSpec& spec, const std::vector<std::string>& hosts) {
  std::vector<std::string> labels;
  if (spec.switch_of.empty()) return labels;
  for (const std::string& h : hosts) {
    const auto it = spec.switch_of.find(h);
    labels.push_back(it == spec.switch_of.end() ? "unlisted" : it->second);
  }
  return labels;
}

namespace {

// A spec with GPU checks stops here, before the first check, on a node without a GPU.
void require_gpus_for(const AcceptSpec& spec) {
  std::string gpu_checks;
  std::size_t count = 0;
  for (const Check& c : spec.checks)
    if (!c.io && (c.backend == BackendKind::nccl || c.memory == MemoryKind::device))
      gpu_checks += (count++ ? ", " : "") + c.name;
  if (count > 0)
    require_gpu(
        fmt::format("{}: check{} {} need{} a GPU", spec.file, count > 1 ? "s" : "", gpu_checks, count > 1 ? "" : "s"));
}

}  // namespace

void validate_for_nodes(const AcceptSpec& spec, const std::vector<int>& ranks_per_node) {
  require_gpus_for(spec);
  const int nodes = static_cast<int>(ranks_per_node.size());
  const int fewest = *std::min_element(ranks_per_node.begin(), ranks_per_node.end());
  for (const Check& c : spec.checks) {
    if ((c.pattern == GroupPattern::pairwise || c.pattern == GroupPattern::ring || c.pattern == GroupPattern::bisect) &&
        nodes < 2)
      throw UsageError(
          fmt::format("{}:{}: checks: {}: pattern {} needs at least 2 nodes; this job has 1 (launch it "
                      "across nodes, e.g. mpirun --hostfile)",
                      spec.file, c.line, c.name, name(c.pattern)));
    if (c.collective && c.collective->point_to_point && c.pattern == GroupPattern::per_node &&
        fewest * c.gpus_per_process < 2)
      throw UsageError(fmt::format("{}:{}: checks: {}: {} needs 2 ranks per group, but a node has {}", spec.file,
                                   c.line, c.name, c.collective->name, fewest));
  }
}

GroupDetailFile::GroupDetailFile(const AcceptArgs& args)
    : file_(std::make_unique<OutputFile>("--out", (std::filesystem::path(args.out_dir) / kGroupDetailFile).string())) {}

CheckRounds::GroupSink GroupDetailFile::sink(const Check& c, const std::vector<std::string>& hosts) {
  return [this, &c, &hosts](const GroupVerdict& g) {
    if (file_->write(group_detail_line(c, g, hosts)) || warned_) return;
    warned_ = true;
    fmt::print(stderr, "ccbench: warning: {}: groups from here on are not written ({}); the verdicts are\n",
               kGroupDetailFile, terminal_safe(file_->error()));
  };
}

void check_verdict_paths(const AcceptArgs& args) {
  const std::filesystem::path out(args.out_dir);
  for (const char* f : {"verdict.json", "verdict.md", "report.html", kGroupDetailFile})
    check_output_writable(fmt::format("--out ({})", f), (out / f).string());
  check_run_exports({args.history_db, args.prom_path, ""});
}

void write_verdicts(const AcceptArgs& args, const AcceptOutcome& outcome) {
  Report report = build_accept_report(outcome);
  const std::filesystem::path out(args.out_dir);
  write_file_atomically("--out", (out / "verdict.json").string(), accept_to_json(outcome));
  write_file_atomically("--out", (out / "verdict.md").string(), render_markdown(report));
  write_file_atomically("--out", (out / "report.html").string(), render_html(report, ChartImages{}));
}

void write_checks_so_far(const AcceptArgs& args, AcceptOutcome& outcome) {
  if (outcome.checks.size() >= args.spec.checks.size()) return;
  withhold_blame_on_errors(outcome);
  outcome.finished = false;
  outcome.ended_at = utc_now_iso8601();
  write_verdicts(args, outcome);
  outcome.finished = true;
}

BaselineLookup baseline_lookup(const GateBaselines& loaded, const std::vector<std::string>& hosts) {
  return [&loaded, &hosts](const Check& ch, const Gate& g, int ranks, const NodeGroup& group) {
    std::set<std::string> names;
    if (g.history)
      for (int n : group)
        if (n >= 0 && static_cast<std::size_t>(n) < hosts.size()) names.insert(hosts[static_cast<std::size_t>(n)]);
    return baseline_median(loaded, ch, g, ranks, static_cast<int>(group.size()), hosts_text(names));
  };
}

int write_and_print(const AcceptArgs& args, const AcceptOutcome& outcome, const std::string& raw, int code) {
  write_verdicts(args, outcome);
  if (outcome.simulated.empty()) export_accept({args.history_db, args.prom_path, ""}, outcome, args.out_dir);
  const Report report = build_accept_report(outcome, AcceptView::terminal);
  // The last line says the verdict and what the exit code means: under
  // mpirun a non-zero exit is followed by mpirun's "process returned a
  // non-zero exit code ... job has been aborted" block (docs/acceptance.md).
  const std::string meaning = code == kExitOk         ? "exit 0: accepted"
                              : code == kExitRejected ? "exit 1: rejected (the cluster did not pass; not a crash)"
                              : code >= kExitSignal   ? fmt::format("exit {}: interrupted", code)
                                                      : fmt::format("exit {}: the run had errors (see above)", code);
  return print_or_fail(
      render_terminal(report, use_color(args.color)) +
      fmt::format("verdicts: {}/verdict.json, verdict.md, report.html, groups.jsonl; {}\n", args.out_dir, raw) +
      fmt::format("ccbench accept: {}\n", meaning));
}

std::string request_accept_paths(const AcceptSpec& spec) {
  std::string log;
  bool nccl = false, mpi = false;
  for (const Check& c : spec.checks) {
    if (c.backend == BackendKind::nccl && !nccl) {
      nccl = true;
      log = request_nccl_path(c.path, "");
    }
    if (c.backend == BackendKind::mpi && !mpi) {
      mpi = true;
#if CCBENCH_HAVE_MPI
      request_mpi_path(c.path);
#endif
    }
  }
  return log;
}

namespace {

std::string host_name() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return host;
}

// A watchdog of ccbench accept's steps outside the sweeps (docs/failures.md).
std::unique_ptr<Watchdog> control_plane_watchdog(double timeout_s, const Comm& world) {
  auto w = std::make_unique<Watchdog>(timeout_s, world.rank(), host_name(), std::function<std::string()>{},
                                      Watchdog::Watches::control_plane);
  w->set_exit_code(kExitUsage);
  return w;
}

// Throws UsageError on a process whose spec text differs from rank 0's.
void check_same_spec(const AcceptArgs& args, const Comm& world) {
  std::string rank0 = args.spec_text;
  std::size_t len = rank0.size();
  world.broadcast(&len, sizeof len);
  rank0.resize(len);
  world.broadcast(rank0.data(), len);
  if (rank0 == args.spec_text) return;
  throw UsageError(fmt::format("{}: differs on {} (rank {}) from rank 0's copy: every node must read the same spec",
                               args.spec.file, host_name(), world.rank()));
}

// Nodes are told apart by host name: each host once, in rank order, with its rank count.
void map_nodes(const Comm& world, AcceptanceRun& s) {
  const std::string host = host_name();
  for (const std::string& h : world.all_strings(host)) {
    const auto it = std::find(s.hosts.begin(), s.hosts.end(), h);
    if (it == s.hosts.end()) {
      s.hosts.push_back(h);
      s.ranks_per_node.push_back(1);
    } else {
      ++s.ranks_per_node[static_cast<std::size_t>(it - s.hosts.begin())];
    }
  }
  s.my_node = static_cast<int>(std::find(s.hosts.begin(), s.hosts.end(), host) - s.hosts.begin());
}

}  // namespace

GateBaselines prepare_outputs(const AcceptArgs& args) {
  std::error_code ec;
  // Before anything is created: a bad --history or --prom leaves --out as it was.
  if (!args.history_db.empty() && !is_postgres_url(args.history_db)) {
    const auto raw = std::filesystem::weakly_canonical(std::filesystem::path(args.out_dir) / "raw", ec);
    const auto db = std::filesystem::weakly_canonical(args.history_db, ec);
    const auto [mismatch, _] = std::mismatch(raw.begin(), raw.end(), db.begin(), db.end());
    if (mismatch == raw.end())
      throw UsageError(
          fmt::format("accept: --history {}: inside --out's raw/ folder, whose files are the runs it "
                      "adds; keep the database elsewhere",
                      args.history_db));
  }
  check_run_exports({args.history_db, args.prom_path, ""});
  std::filesystem::create_directories(std::filesystem::path(args.out_dir) / "raw", ec);
  if (ec) throw UsageError(fmt::format("accept: --out {}: cannot create the folder ({})", args.out_dir, ec.message()));
  check_verdict_paths(args);
  for (const Check& c : args.spec.checks) {
    std::filesystem::create_directories(std::filesystem::path(args.out_dir) / "raw" / c.name, ec);
    if (ec)
      throw UsageError(fmt::format("accept: --out {}: cannot create raw/{} ({})", args.out_dir, c.name, ec.message()));
  }
  GateBaselines loaded = load_gate_baselines(args.spec);
  loaded.history = read_history_past(args.spec, args.history_db);
  return loaded;
}

namespace {

// One check, round after round as rank 0's plan decides; rank 0 adds its
// verdict to `outcome` and writes what is known so far (it survives a later hang).
void run_check(const Check& c, AcceptanceRun& s, AcceptOutcome& outcome) {
  const Comm& world = s.world;
  std::optional<CheckRounds> plan;  // rank 0 decides every round
  s.population = Population{};
  if (world.rank() == 0) {
    plan.emplace(c, static_cast<int>(s.hosts.size()), switch_labels(s.args.spec, s.hosts));
    plan->set_sink(s.detail->sink(c, s.hosts));
  }
  // Every step between sweeps is bounded by the check's timeout_s, as its
  // operations are: a rank that hangs there (or a control collective that
  // never completes) ends the job with exit 2, the verdicts of the checks
  // before it kept (marked incomplete).
  const std::unique_ptr<Watchdog> watchdog = control_plane_watchdog(c.timeout_s, world);
  Watchdog& control = *watchdog;
  s.control = &control;
  const double started = world.now();
  while (!s.interrupted) {
    control.set_activity(
        fmt::format("ccbench accept's control plane ({}: planning and sharing the next round)", c.name));
    if (s.rounds_shared > 0 && s.faults.hangs_control_plane(world.rank()))
      hang_forever(world.rank(), "in ccbench accept's control plane");
    const std::optional<PlannedRound> round = share_round(world, plan ? plan->next() : std::nullopt);
    if (!round) break;
    ++s.rounds_shared;
    const std::vector<GroupVerdict> judged = s.run_round(c, *round);
    if (plan) plan->record(judged);
  }
  control.pause();  // what follows is rank 0's alone
  if (world.rank() != 0) return;
  CheckVerdict v = plan->finish(s.hosts);
  v.wall_s = world.now() - started;
  outcome.checks.push_back(std::move(v));
  if (outcome.checks.size() == s.args.spec.checks.size()) return;
  outcome.finished = false;
  outcome.ended_at = utc_now_iso8601();
  try {
    write_verdicts(s.args, outcome);
  } catch (const UsageError& e) {
    fmt::print(stderr, "ccbench: warning: {}\n", e.what());
  }
}

}  // namespace

int run_accept(const AcceptArgs& args, const Comm& world, const std::string& nccl_log) {
  const AcceptSpec& spec = args.spec;
  AcceptanceRun s{.args = args, .world = world, .nccl_log = nccl_log, .faults = faults_from_environment()};
  // The steps before the first check and after the last are bounded by the
  // spec's timeout_s (each check's steps by its own).
  const std::unique_ptr<Watchdog> control = control_plane_watchdog(spec.timeout_s, world);
  control->set_activity("ccbench accept's control plane (checking the spec, mapping the nodes)");
  // The same spec everywhere: rank 0's text governs.
  if (const int code = exit_code_of_every_rank(world, [&] { check_same_spec(args, world); })) return code;
  map_nodes(world, s);
  if (const int code = exit_code_of_every_rank(world, [&] {
        validate_for_nodes(spec, s.ranks_per_node);
        if (world.rank() == 0) {
          s.baselines = prepare_outputs(args);
          s.detail = std::make_unique<GroupDetailFile>(args);
        }
      }))
    return code;

  AcceptOutcome outcome;
  outcome.spec = &spec;
  outcome.hosts = s.hosts;
  outcome.ranks_per_node = s.ranks_per_node;
  outcome.started_at = utc_now_iso8601();
  control->pause();
  for (const Check& c : spec.checks) {
    if (s.interrupted) break;
    run_check(c, s, outcome);
  }
  control->resume();
  control->set_activity("ccbench accept's control plane (writing the verdicts)");
  outcome.ended_at = utc_now_iso8601();
  outcome.finished = true;
  int code = kExitOk;
  if (world.rank() == 0) {
    if (s.interrupted)
      outcome.run_errors.push_back(
          fmt::format("interrupted by {} after {} checks", signal_name(s.interrupted), outcome.checks.size()));
    outcome.run_errors.insert(outcome.run_errors.end(), s.run_errors.begin(), s.run_errors.end());
    code = s.interrupted ? kExitSignal + s.interrupted : outcome.exit_code();
    withhold_blame_on_errors(outcome);
    try {
      if (args.node_check) {
        std::string unwritten;
        try {
          write_verdicts(args, outcome);
        } catch (const UsageError& e) {
          unwritten = e.what();
        }
        return finish_node_check(args, outcome, code, unwritten);
      }
      const int printed = write_and_print(args, outcome, fmt::format("raw results: {}/raw/", args.out_dir), code);
      if (printed != kExitOk && code == kExitOk) code = printed;
    } catch (const UsageError& e) {
      fmt::print(stderr, "ccbench: {}\n", printable_error(e.what()));
      code = exit_code_of(e);
    }
  }
  world.broadcast(&code, sizeof code);
  return code;
}

std::string group_started_file(const std::string& group_out) { return group_out + ".started"; }

int run_accept_group(const AcceptArgs& args, const Comm& world, const std::string& nccl_log) {
  const Check& c = *std::find_if(args.spec.checks.begin(), args.spec.checks.end(),
                                 [&](const Check& ch) { return ch.name == args.run_group; });
  int code = kExitOk;  // the controller validated the spec for the allocation
  world.barrier();
  if (world.rank() == 0) {  // the controller's start-up flag: made here, never through a link planted in its place
    const std::string flag = group_started_file(args.group_out);
    const int fd = ::open(flag.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
      fmt::print(stderr, "ccbench: {}: cannot make the start-up flag ({})\n", terminal_safe(flag),
                 std::strerror(errno));
    else ::close(fd);
  }
  Config cfg = check_config(c, args.spec.file);
  const nlohmann::json repeats = group_repeats(args, c, cfg, world, nccl_log);
  if (world.rank() == 0) {
    try {
      write_file_atomically("--group-out", args.group_out,
                            json_text(nlohmann::json{{"ranks", world.size()}, {"repeats", repeats}}) + "\n");
    } catch (const UsageError& e) {
      fmt::print(stderr, "ccbench: {}\n", printable_error(e.what()));
      code = exit_code_of(e);
    }
  }
  world.broadcast(&code, sizeof code);
  return code;
}

// Groups a simulation may keep, over all its checks (1,448 nodes pairwise;
// bisect and the other patterns keep about one group per node).
constexpr std::uint64_t kMaxSimulatedGroups = 1u << 20;

int run_accept_simulated(const AcceptArgs& args) {
  try {
    const ClusterModel model = load_cluster(args.simulate);
    AcceptOutcome outcome;
    outcome.spec = &args.spec;
    outcome.hosts = model.names;
    outcome.ranks_per_node.assign(model.names.size(), 1);
    outcome.simulated = args.simulate;
    outcome.started_at = utc_now_iso8601();
    std::error_code ec;
    std::filesystem::create_directories(args.out_dir, ec);
    if (ec)
      throw UsageError(fmt::format("accept: --out {}: cannot create the folder ({})", args.out_dir, ec.message()));
    check_verdict_paths(args);
    std::mt19937_64 rng(model.seed);
    // Refused up front, before the first check: what the simulation cannot
    // model, and plans whose groups it cannot keep (every group's verdict is
    // kept for the report: 4,096 nodes pairwise are 8.4 million groups).
    std::uint64_t total = 0;
    for (const Check& c : args.spec.checks) {
      if (c.collective && c.collective->point_to_point && c.pattern == GroupPattern::per_node)
        throw UsageError(fmt::format("{}:{}: checks: {}: {} needs 2 ranks per group; a simulated node has 1",
                                     args.spec.file, c.line, c.name, c.collective->name));
      const std::uint64_t n = model.names.size();
      const std::uint64_t groups = c.pattern == GroupPattern::pairwise ? n * (n - 1) / 2 : n;
      if (groups > kMaxSimulatedGroups)
        throw UsageError(
            fmt::format("{}:{}: checks: {}: pattern {} on {} nodes runs {} groups, more than a simulation "
                        "keeps ({}): use pattern bisect, or fewer nodes",
                        args.spec.file, c.line, c.name, name(c.pattern), n, groups, kMaxSimulatedGroups));
      total += groups;
    }
    if (total > kMaxSimulatedGroups)
      throw UsageError(
          fmt::format("{}: {} checks on {} nodes run about {} groups together, more than a simulation keeps "
                      "({}): simulate fewer checks or nodes at a time",
                      args.spec.file, args.spec.checks.size(), model.names.size(), total, kMaxSimulatedGroups));
    // The spec's switches and baselines, as a real run reads them.
    if (!args.spec.switch_of.empty() && std::none_of(model.names.begin(), model.names.end(), [&](const std::string& n) {
          return args.spec.switch_of.count(n);
        }))
      throw UsageError(
          fmt::format("{}: switches: lists none of the simulated nodes ({} ... {}); a simulation's hosts are "
                      "named as in its cluster model",
                      args.spec.file, model.names.front(), model.names.back()));
    const GateBaselines baselines = load_gate_baselines(args.spec);
    const SimulatedSpec from_spec{switch_labels(args.spec, model.names), baseline_lookup(baselines, model.names)};
    GroupDetailFile detail(args);
    for (const Check& c : args.spec.checks) {
      outcome.checks.push_back(simulate_check(c, model, rng, from_spec, detail.sink(c, model.names)));
      fmt::print(stderr, "ccbench accept: {} ({}) simulated: {} rounds, {:.0f} s of cluster time\n", c.name,
                 name(c.pattern), outcome.checks.back().rounds, outcome.checks.back().wall_s);
      write_checks_so_far(args, outcome);
    }
    outcome.ended_at = utc_now_iso8601();
    const int printed = write_and_print(args, outcome, "simulated, no raw results", outcome.exit_code());
    return outcome.exit_code() != kExitOk ? outcome.exit_code() : printed;
  } catch (const UsageError& e) {
    fmt::print(stderr, "ccbench: {}\n", printable_error(e.what()));
    return exit_code_of(e);
  }
}

}  // namespace ccb
