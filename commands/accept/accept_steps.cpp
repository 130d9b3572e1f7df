// `ccbench accept` inside a Slurm allocation: this one process plans the
// rounds (CheckRounds) and starts every group of a round as its own job step
// (srun ... ccbench accept SPEC --run-group CHECK), all at once; a step that
// does not finish within the check's step_timeout_s is cancelled and its
// nodes failed that group ("timed out"), so a hang is a verdict and the
// acceptance goes on. Judging is the MPI engine's and the simulator's
// (judge_round). Rules and commands: docs/running.md "Under Slurm".
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <random>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <set>
#include <thread>

#include "common/errors.hpp"
#include "common/redact.hpp"
#include "common/terminal_text.hpp"
#include "commands/accept/accept_command.hpp"
#include "commands/accept/accept_parts.hpp"
#include "harness/slurm.hpp"
#include "harness/stop_signals.hpp"
#include "results/output_file.hpp"
#include "harness/run_info.hpp"

namespace ccb {
namespace {

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The last line of a step's log that is not blank (why srun or the step failed).
std::string last_line(const std::string& log) {
  std::istringstream in(read_all(log));
  std::string last;
  for (std::string line; std::getline(in, line);)
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  return last.empty() ? "no output" : terminal_safe(last);
}

// Why a step failed, from its log: ccbench's own error line when a task
// printed one, else the first line that says "error" (srun's "task 0: Exited
// with exit code 1"), else the last line.
std::string failure_line(const std::string& log) {
  std::istringstream in(read_all(log));
  std::string ours, error;
  for (std::string line; std::getline(in, line);) {
    if (ours.empty() && line.rfind("ccbench: ", 0) == 0 && line.rfind("ccbench: warning:", 0) != 0 &&
        line.rfind("ccbench: progress:", 0) != 0)
      ours = line;
    if (error.empty() && line.find("error") != std::string::npos) error = line;
  }
  return !ours.empty() ? terminal_safe(ours) : !error.empty() ? terminal_safe(error) : last_line(log);
}

// One group's job step.
struct Step {
  NodeGroup nodes;
  std::string hosts, out_file, log_file, started_file;
  pid_t pid = -1;
  double started = 0, cancel_sent = 0;
  int sigints = 0;
  bool running = false, timed_out = false;
  bool started_seen = false;     // its ranks all finished MPI start-up (group_started_file)
  bool hung_at_startup = false;  // cancelled before they did
  int status = 0;
  int reruns = 0;  // 1 once it ran again (no result, or hung at start-up)
};

std::string group_file(const AcceptArgs& args, const Check& c, const PlannedRound& round, const std::string& hosts,
                       const char* suffix) {
  std::string safe;
  for (char ch : hosts) safe += std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' ? ch : '_';
  return (std::filesystem::path(args.out_dir) / "raw" / c.name /
          fmt::format("p{}-r{}-{}{}", round.pass, round.round + 1, safe.substr(0, 64), suffix))
      .string();
}

// srun's --time: whole minutes, one more than the controller's bound (which
// cancels the step first; Slurm's limit is the backstop when it cannot).
std::string slurm_minutes(double seconds) { return std::to_string(static_cast<long>(std::ceil(seconds / 60)) + 1); }

class StepController {
 public:
  StepController(const AcceptArgs& args, SlurmAllocation alloc) : args_(args), alloc_(std::move(alloc)) {
    self_ = step_program();
    spec_ = std::filesystem::absolute(args.spec.file).string();
  }

  const SlurmAllocation& allocation() const { return alloc_; }
  const std::vector<std::string>& reruns() const { return reruns_; }
  int interrupted() const { return interrupted_; }
  std::vector<std::string>& run_errors() { return run_errors_; }

  // A round's groups, each its own step, at once; the judged groups.
  std::vector<GroupVerdict> run_round(const Check& c, const PlannedRound& round, Population& population,
                                      const BaselineLookup& lookup) {
    std::vector<Step> steps;
    std::string names;
    for (const NodeGroup& g : round.groups) {
      Step s;
      s.nodes = g;
      s.hosts = group_hosts(g, alloc_.hosts);
      s.out_file = group_file(args_, c, round, s.hosts, ".json");
      s.log_file = group_file(args_, c, round, s.hosts, ".log");
      s.started_file = group_started_file(s.out_file);
      std::filesystem::remove(s.out_file);
      names += (names.empty() ? "" : ", ") + s.hosts;
      steps.push_back(std::move(s));
    }
    fmt::print(stderr, "ccbench accept: {} ({}) pass {} round {}: {} step{}: {}\n", c.name, name(c.pattern), round.pass,
               round.round + 1, steps.size(), steps.size() == 1 ? "" : "s", names);
    const double started = seconds_now();
    for (Step& s : steps) start(c, s);
    wait_for(c, steps);
    if (rerun_failed(c, round, steps)) wait_for(c, steps);
    fmt::print(stderr, "ccbench accept:   round {} took {:.1f} s\n", round.round + 1, seconds_now() - started);
    std::vector<GroupRun> runs;
    std::size_t failed = 0;
    for (const Step& s : steps) {
      runs.push_back(read_step(c, round, s));
      failed += !s.timed_out && !interrupted_ && !std::filesystem::exists(s.out_file);
    }
    // Every step failing to start or to write its result is the run's
    // problem (srun, the spec, the file system), not the nodes'.
    if (failed == steps.size() && !steps.empty())
      run_errors_.push_back(fmt::format("{}: every job step of pass {} round {} failed ({})", c.name, round.pass,
                                        round.round + 1, runs.front().repeats.front().error));
    return judge_round(c, runs, population, lookup);
  }

 private:
  // A step that ended without a result (a task that died at start-up, srun
  // or PMIx failing: seen once in CI, "srun: Force Terminated" 0.5 s into a
  // step) or whose ranks hung in MPI start-up runs once more, its first log
  // kept as .try1.log and the rerun said in the verdict; failing again, it
  // fails its group. Not a hang while measuring nor a refused spec (exit 2):
  // those would again, and are verdicts. True when any runs again.
  bool rerun_failed(const Check& c, const PlannedRound& round, std::vector<Step>& steps) {
    bool any = false;
    for (Step& s : steps) {
      if ((s.timed_out && !s.hung_at_startup) || interrupted_ || s.reruns > 0 || std::filesystem::exists(s.out_file) ||
          (WIFEXITED(s.status) && WEXITSTATUS(s.status) == kExitUsage))
        continue;
      const std::string first_log = group_file(args_, c, round, s.hosts, ".try1.log");
      std::error_code ec;
      std::filesystem::rename(s.log_file, first_log, ec);
      const std::string log = ec ? s.log_file : first_log;
      const std::string why =
          s.hung_at_startup ? startup_hang_text(c)
                            : fmt::format("ended without a result ({}: {})", srun_status(s.status), failure_line(log));
      fmt::print(stderr, "ccbench accept:   {}: the job step {}: once more\n", s.hosts, why);
      reruns_.push_back(fmt::format("{} pass {} round {}: {}: the job step {} (log {}) and ran once more", c.name,
                                    round.pass, round.round + 1, s.hosts, why, log));
      ++s.reruns;
      start(c, s);
      any = true;
    }
    return any;
  }

  // A step's ranks have this long to finish MPI start-up: half its bound.
  static double startup_bound_s(const Check& c) { return c.step_timeout_s / 2; }
  static std::string startup_hang_text(const Check& c) {
    return fmt::format("hung at start-up (its ranks had not all finished MPI start-up after {:.0f} s)",
                       startup_bound_s(c));
  }

  static std::string srun_status(int status) {
    return WIFEXITED(status) ? fmt::format("srun exit {}", WEXITSTATUS(status)) : "srun killed by a signal";
  }

  void start(const Check& c, Step& s) {
    std::string nodelist;
    for (int n : s.nodes) nodelist += (nodelist.empty() ? "" : ",") + alloc_.hosts[static_cast<std::size_t>(n)];
    const std::vector<std::string> argv{
        "srun", "--nodelist=" + nodelist, fmt::format("--nodes={}", s.nodes.size()),
        // --ntasks too: the allocation's SLURM_NTASKS (sbatch -n, or
        // -N 4 --ntasks-per-node=1) would otherwise ask for its count
        // ("can't honor --ntasks-per-node") and crowd a group's nodes.
        fmt::format("--ntasks={}", s.nodes.size() * alloc_.tasks_per_node),
        fmt::format("--ntasks-per-node={}", alloc_.tasks_per_node), "--time=" + slurm_minutes(c.step_timeout_s),
        "--job-name=ccbench-accept-" + c.name, "--kill-on-bad-exit=1", self_, "accept", spec_, "--out", args_.out_dir,
        "--run-group", c.name, "--group-out", s.out_file};
    std::error_code ec;
    std::filesystem::remove(s.started_file, ec);
    s.pid = spawn_logged(argv, s.log_file);
    s.started = seconds_now();
    s.running = true;
    s.timed_out = s.started_seen = s.hung_at_startup = false;
    s.sigints = 0;
    s.status = 0;
  }

  // srun cancels its step on two SIGINTs within a second; SIGKILL when srun
  // itself does not end 20 s later (Slurm's --time ends the step then).
  static void cancel(Step& s, double now) {
    if (s.sigints == 0 || (s.sigints == 1 && now - s.cancel_sent > 0.3)) {
      kill(s.pid, SIGINT);
      if (s.sigints++ == 0) s.cancel_sent = now;
    } else if (now - s.cancel_sent > 20) {
      kill(s.pid, SIGKILL);
    }
  }

  void wait_for(const Check& c, std::vector<Step>& steps) {
    for (;;) {
      bool any = false;
      const double now = seconds_now();
      if (stop_signal() && !interrupted_) interrupted_ = stop_signal();
      for (Step& s : steps) {
        if (!s.running) continue;
        int status = 0;
        const pid_t r = waitpid(s.pid, &status, WNOHANG);
        if (r == s.pid) {
          s.running = false;
          s.status = status;
          continue;
        }
        any = true;
        if (!s.timed_out && !interrupted_ && now - s.started > c.step_timeout_s) {
          s.timed_out = true;
          fmt::print(stderr, "ccbench accept:   {}: no completion in {:.0f} s (step_timeout_s): cancelling its step\n",
                     s.hosts, c.step_timeout_s);
        } else if (!s.timed_out && !interrupted_ && !s.started_seen && now - s.started > startup_bound_s(c)) {
          s.started_seen = std::filesystem::exists(s.started_file);
          if (!s.started_seen) {
            s.timed_out = s.hung_at_startup = true;
            fmt::print(stderr, "ccbench accept:   {}: {}: cancelling its step\n", s.hosts, startup_hang_text(c));
          }
        }
        if (s.timed_out || interrupted_) cancel(s, now);
      }
      if (!any) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  GroupRun read_step(const Check& c, const PlannedRound& round, const Step& s) {
    if (!s.timed_out && std::filesystem::exists(s.out_file)) {
      try {
        return group_run_from_json(c, round, s.nodes, nlohmann::json::parse(read_all(s.out_file)), alloc_.hosts,
                                   args_.out_dir, run_errors_);
      } catch (const nlohmann::json::exception& e) {
        run_errors_.push_back(
            fmt::format("{}: {}: unreadable step result {} ({})", c.name, s.hosts, s.out_file, e.what()));
      }
    }
    if (!s.timed_out && !interrupted_ && WIFEXITED(s.status) && WEXITSTATUS(s.status) == kExitUsage)
      run_errors_.push_back(
          fmt::format("{}: {}: the job step refused to run (exit 2): {}", c.name, s.hosts, last_line(s.log_file)));
    GroupRun run;
    run.nodes = s.nodes;
    run.pass = round.pass;
    run.round = round.round;
    run.ranks = static_cast<int>(s.nodes.size()) * alloc_.tasks_per_node;
    const std::string why =
        s.hung_at_startup ? startup_hang_text(c) +
                                (s.reruns ? " twice (the job step was cancelled)" : " (the job step was cancelled)")
        : s.timed_out
            ? fmt::format("timed out: no completion in {:.0f} s (a hang: the job step was cancelled)", c.step_timeout_s)
        : interrupted_ ? fmt::format("interrupted by {}", signal_name(interrupted_))
                       : fmt::format("job step failed{} ({}): {} (log {})", s.reruns ? " twice" : "",
                                     srun_status(s.status), failure_line(s.log_file), s.log_file);
    run.repeats.assign(static_cast<std::size_t>(c.repeats), RepeatResult{{}, why, {}});
    return run;
  }

  const AcceptArgs& args_;
  SlurmAllocation alloc_;
  std::string self_, spec_;
  int interrupted_ = 0;
  std::vector<std::string> run_errors_, reruns_;
};

// "ccbench: pairs margin -52% (job 12)"; a node without a margin says why
// its run failed instead ("ccbench: pairs timed out: no completion in 10 s (job 12)").
std::string drain_reason(const CheckVerdict& v, const NodeVerdict& n, const std::string& job) {
  std::string why = n.reason;
  if (std::isfinite(n.margin)) why = margin_text(n.margin);
  else if (const std::size_t at = why.find("run failed: "); at != std::string::npos) why = why.substr(at + 12);
  why = why.substr(0, why.find(" ("));
  return fmt::format("ccbench: {} {} (job {})", v.check->name, why.substr(0, 60), job);
}

// --drain / --resume, or the commands that would do it.
void act_on_nodes(const AcceptArgs& args, AcceptOutcome& outcome, const std::string& job) {
  std::map<std::string, std::string> defective;  // host -> reason
  std::set<std::string> good(outcome.hosts.begin(), outcome.hosts.end());
  for (const CheckVerdict& v : outcome.checks)
    for (const NodeVerdict& n : v.nodes) {
      if (n.status == NodeStatus::defective && !defective.count(n.host)) defective[n.host] = drain_reason(v, n, job);
      if (n.status != NodeStatus::pass && n.status != NodeStatus::cleared) good.erase(n.host);
    }
  if (!outcome.run_errors.empty() || !outcome.finished) {
    if (args.drain || args.resume) outcome.actions.push_back("no node drained or resumed: the run had errors");
    return;
  }
  for (const auto& [host, reason] : defective) {
    const std::vector<std::string> cmd = drain_command(host, reason);
    if (!args.drain) {
      outcome.actions.push_back("to drain " + host + " (--drain does it): " + shell_words(cmd));
      continue;
    }
    try {
      command_output(cmd, "accept: --drain");
      outcome.actions.push_back(fmt::format("drained {}: reason \"{}\"", host, reason));
    } catch (const UsageError& e) {
      outcome.actions.push_back(fmt::format("could not drain {}: {}", host, e.what()));
    }
  }
  if (!args.resume || good.empty()) return;
  // Only a drain whose reason is ccbench's is undone (another tool's never).
  for (const auto& [host, state] : slurm_node_states({good.begin(), good.end()})) {
    if (state.state.find("drain") == std::string::npos || state.reason.rfind("ccbench:", 0) != 0) continue;
    try {
      command_output(resume_command(host), "accept: --resume");
      outcome.actions.push_back(
          fmt::format("resumed {} (passed every check; it was drained: \"{}\")", host, state.reason));
    } catch (const UsageError& e) {
      outcome.actions.push_back(fmt::format("could not resume {}: {}", host, e.what()));
    }
  }
}

// Every job step writes its result under --out and the controller reads it
// there: a folder that is not the same on every node (each node's own /tmp)
// made steps fail or hang and blamed healthy nodes. Before the first check,
// one task per node reads a file the controller wrote into --out; a node
// that cannot is named and the run refused (exit 2), nothing run.
void check_out_is_shared(const AcceptArgs& args, const SlurmAllocation& alloc) {
  namespace fs = std::filesystem;
  const fs::path token = fs::absolute(args.out_dir) / fmt::format(".ccbench-shared-{}-{}", alloc.job_id, ::getpid());
  const std::string nonce = fmt::format("{:x}{:x}", std::random_device{}(), std::random_device{}());
  write_file_atomically("--out", token.string(), nonce + "\n");
  std::string nodelist;
  for (const std::string& h : alloc.hosts) nodelist += (nodelist.empty() ? "" : ",") + h;
  const std::string log = token.string() + ".log";
  const std::vector<std::string> argv{
      "srun", "--nodelist=" + nodelist, fmt::format("--nodes={}", alloc.hosts.size()),
      fmt::format("--ntasks={}", alloc.hosts.size()), "--ntasks-per-node=1", "--chdir=/", "--time=2",
      "--job-name=ccbench-accept-out-check", "/bin/sh", "-c",
      // "NODE NONCE" from every node, the nonce empty where the file is not there
      "printf 'ccbench-out-check %s %s\\n' \"${SLURMD_NODENAME:-$(hostname)}\" \"$(cat \"$0\" 2>/dev/null)\"",
      token.string()};
  const pid_t pid = spawn_logged(argv, log);
  int status = 0;
  const double deadline = seconds_now() + 120;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (seconds_now() > deadline || stop_signal()) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::set<std::string> seen;
  std::istringstream in(read_all(log));
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string tag, node, got;
    if (words >> tag >> node >> got && tag == "ccbench-out-check" && got == nonce) seen.insert(node);
  }
  const std::string srun_said = last_line(log);
  std::error_code ec;
  fs::remove(token, ec);
  fs::remove(log, ec);
  std::vector<std::string> blind;
  for (const std::string& h : alloc.hosts)
    if (!seen.count(h)) blind.push_back(h);
  if (blind.empty()) return;
  if (seen.empty() && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
    throw UsageError(
        fmt::format("accept: --out {}: could not check that every node sees it (srun: {})", args.out_dir, srun_said));
  throw UsageError(fmt::format(
      "accept: --out {}: not the same folder on every node: {} cannot read a file written there (each job step "
      "writes its result under --out): put it on a file system every node mounts, not a node's own /tmp",
      args.out_dir, name_list(blind, 4)));
}

}  // namespace

int run_accept_steps(const AcceptArgs& args) {
  try {
    install_stop_signals();
    StepController steps(args, slurm_allocation());
    const SlurmAllocation& alloc = steps.allocation();
    validate_for_nodes(args.spec, std::vector<int>(alloc.hosts.size(), alloc.tasks_per_node));
    const GateBaselines baselines = prepare_outputs(args);
    check_out_is_shared(args, alloc);
    const BaselineLookup lookup = baseline_lookup(baselines, alloc.hosts);
    std::vector<std::string> switches = switch_labels(args.spec, alloc.hosts);
    if (switches.empty()) switches = slurm_switches(alloc.hosts);
    AcceptOutcome outcome;
    outcome.spec = &args.spec;
    outcome.hosts = alloc.hosts;
    outcome.ranks_per_node.assign(alloc.hosts.size(), alloc.tasks_per_node);
    outcome.engine = "Slurm job " + alloc.job_id;
    outcome.started_at = utc_now_iso8601();
    GroupDetailFile detail(args);
    fmt::print(stderr, "ccbench accept: Slurm job {}: {} nodes, {} task{} each; every group its own job step\n",
               alloc.job_id, alloc.hosts.size(), alloc.tasks_per_node, alloc.tasks_per_node == 1 ? "" : "s");
    for (const Check& c : args.spec.checks) {
      if (steps.interrupted()) break;
      CheckRounds plan(c, static_cast<int>(alloc.hosts.size()), switches);
      plan.set_sink(detail.sink(c, alloc.hosts));
      Population population;
      const double started = seconds_now();
      while (!steps.interrupted()) {
        const std::optional<PlannedRound> round = plan.next();
        if (!round) break;
        std::vector<GroupVerdict> judged = steps.run_round(c, *round, population, lookup);
        if (steps.interrupted()) break;  // a round cut short decides nothing
        plan.record(judged);
      }
      CheckVerdict v = plan.finish(alloc.hosts);
      v.wall_s = seconds_now() - started;
      outcome.checks.push_back(std::move(v));
      outcome.reruns = steps.reruns();
      write_checks_so_far(args, outcome);
    }
    outcome.ended_at = utc_now_iso8601();
    if (steps.interrupted())
      outcome.run_errors.push_back(
          fmt::format("interrupted by {} after {} checks", signal_name(steps.interrupted()), outcome.checks.size()));
    outcome.run_errors.insert(outcome.run_errors.end(), steps.run_errors().begin(), steps.run_errors().end());
    int code = steps.interrupted() ? kExitSignal + steps.interrupted() : outcome.exit_code();
    withhold_blame_on_errors(outcome);
    act_on_nodes(args, outcome, alloc.job_id);
    const int printed =
        write_and_print(args, outcome, fmt::format("raw results and step logs: {}/raw/", args.out_dir), code);
    if (printed != kExitOk && code == kExitOk) code = printed;
    return code;
  } catch (const UsageError& e) {
    fmt::print(stderr, "ccbench: {}\n", printable_error(e.what()));
    return exit_code_of(e);
  }
}

}  // namespace ccb
