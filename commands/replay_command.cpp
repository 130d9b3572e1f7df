#include "commands/replay_command.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "common/errors.hpp"
#include "common/terminal_text.hpp"
#include "common/sizes.hpp"
#include "commands/cli_errors.hpp"
#include "commands/option_table.hpp"
#include "harness/every_rank_passes.hpp"
#include "harness/run_info.hpp"
#include "results/json_records.hpp"
#include "results/noise.hpp"
#include "results/output_file.hpp"
#include "results/stats.hpp"
#include "analysis/workload/prediction_file.hpp"
#include "analysis/workload/replay_record.hpp"
#include "analysis/workload/training_step.hpp"
#if CCBENCH_HAVE_MPI
#include "harness/comm_mpi.hpp"
#include "harness/replay_engine.hpp"
#include "harness/stop_signals.hpp"
#include "harness/watchdog.hpp"
#include "commands/replay_outputs.hpp"
#endif

namespace ccb {

namespace {

// The options, declared once (commands/option_table.hpp).
std::vector<CommandOption> replay_options(ReplayArgs& a, std::string& max_buffer, std::string& timeout, bool& help) {
  return {
      option_in("-n,--steps", "N", fmt::format("timed steps (default {})", a.steps), a.steps, 1, 100000),
      option_in("-w,--warmup", "N",
                fmt::format("untimed steps first, the first one verified (default {}, at least 1)", a.warmup), a.warmup,
                1, 100000),
      option("-J,--json", "FILE", "JSON Lines: a replay record, one record per step, an end record", a.json_path),
      option("--prediction,--check", "FILE",
             "compare with a prediction (ccbench workload predict --json FILE; --check is its old spelling)",
             a.prediction_path),
      option("-T,--timeout", "SECONDS",
             fmt::format("end the run when a rank's step makes no progress (no operation completes outside "
                         "its compute waits) for this long: the end record is written and the job exits {} "
                         "within T + 3.1 s (default {:g} s + one step's compute; 0: no watchdog)",
                         kExitTimeout, kReplayTimeoutSeconds),
             timeout),
      option("--max-buffer", "SIZE",
             fmt::format("refuse a step that needs more buffers per rank (default {})", max_buffer), max_buffer),
      flag("-h,--help", "this text", help),
  };
}

}  // namespace

std::string replay_help() {
  ReplayArgs defaults;
  std::string max_buffer = size_as_typed(defaults.max_buffer_bytes), timeout;
  bool help = false;
  return fmt::format(R"(ccbench replay WORKLOAD.yaml [options]   (under mpirun or srun)

Runs one training step's communication as the workload file derives it
(docs/workload.md): tensor-parallel all_reduce inside a node, pipeline
messages between stages, data-parallel gradient buckets overlapped with
backward compute, MoE alltoall, each on its group's communicator,
concurrently; compute is a wait of the stated length. Every result of the
first warm-up step is verified.

Options:
{}
Output, per timed step, of the rank whose step took longest (milliseconds,
MPI_Wtime from the step's start, after a barrier, to its last wait):
  step        that rank's step time: the step's time
  compute     its compute waits (as measured: they may overrun by ~0.1 ms each)
  exposed     its waits for communication, all dimensions
  tp pp dp ep the same per dimension (pp includes the pipeline bubble: waiting
              for the previous stage's compute)
  slowest     that rank
The summary line gives the median over the timed steps of each column.
A "# note:" names ranks that outnumber their CPUs: on one host, or across
hosts that share one machine's kernel (containers, network namespaces);
their waits include waiting for a CPU (the -J replay record's "noise").
Exit codes: 0 fine, 1 MPI failed, 2 bad input (a -J file another run holds),
3 wrong data, 4 -T timeout, 5 an output could not be written (stopped after
the step in progress), 128 + the signal on SIGHUP/SIGINT/SIGTERM (the steps
so far and an end record are written: docs/failures.md).
)",
                     option_list(replay_options(defaults, max_buffer, timeout, help)));
}

std::optional<ReplayArgs> parse_replay(int argc, const char* const* argv) {
  ReplayArgs a;
  bool help = false;
  std::string max_buffer = size_as_typed(a.max_buffer_bytes), timeout;
  CLI::App app{"ccbench replay"};
  app.set_help_flag();
  app.allow_extras(false);
  app.add_option("workload", a.workload);
  declare_options(app, replay_options(a, max_buffer, timeout, help));
  parse_or_usage_error(app, argc, argv, "replay", "replay");
  if (help) return std::nullopt;
  if (a.workload.empty()) throw UsageError("replay: give the workload file (ccbench replay WORKLOAD.yaml)");
  const auto mb = parse_size(max_buffer);
  if (!mb || *mb == 0) throw UsageError("replay: --max-buffer " + size_error(max_buffer));
  a.max_buffer_bytes = *mb;
  if (!timeout.empty()) a.timeout_s = parse_seconds("replay: -T/--timeout", timeout);
  if (!a.json_path.empty()) check_output_writable("-J/--json", a.json_path);
  check_distinct_paths({{"-J/--json", a.json_path}}, {{"workload", a.workload}, {"--prediction", a.prediction_path}});
  return a;
}

#if CCBENCH_HAVE_MPI
namespace {

// Ranks must fill nodes in order (rank / ranks_per_node = node): the layout
// the groups assume. "" when they do.
std::string placement_problem(const std::vector<std::string>& hosts, int per_node) {
  for (std::size_t r = 0; r < hosts.size(); ++r) {
    const std::size_t first = r / static_cast<std::size_t>(per_node) * static_cast<std::size_t>(per_node);
    if (hosts[r] != hosts[first])
      return fmt::format(
          "replay: ranks must fill nodes in order, {} per node (mpirun --map-by slot, srun's default "
          "block distribution): rank {} is on {}, rank {} on {}",
          per_node, r, hosts[r], first, hosts[first]);
  }
  return "";
}

// Every rank's times to rank 0: the slowest rank's row.
StepRow gather_step(const ReplayStepTimes& t, MPI_Comm world, int ranks) {
  std::array<double, 2 + kDims> mine{t.step_s, t.compute_s};
  for (std::size_t d = 0; d < kDims; ++d) mine[2 + d] = t.exposed_s[d];
  std::vector<double> all(mine.size() * static_cast<std::size_t>(ranks));
  MPI_Gather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), static_cast<int>(mine.size()),
             MPI_DOUBLE, 0, world);
  StepRow row;
  for (int r = 0; r < ranks; ++r) {
    const double* v = all.data() + static_cast<std::size_t>(r) * mine.size();
    if (r > 0 && v[0] <= row.step_s) continue;
    row.step_s = v[0], row.compute_s = v[1], row.slowest = r;
    for (std::size_t d = 0; d < kDims; ++d) row.exposed_s[d] = v[2 + d];
  }
  return row;
}

std::string check_text(const PredictedStep& p, const StepRow& med, double med_exposed, bool shared_cpus) {
  std::string text =
      fmt::format("# check against the prediction ({} ranks, {} per node):\n", p.ranks, p.ranks_per_node);
  if (shared_cpus)
    text +=
        "# note: the replay's ranks outnumber their machine's CPUs (above): its waits include waiting for a "
        "CPU, which curves measured with fewer ranks per CPU do not hold\n";
  text += fmt::format("#   {:<10} {:>10} {:>10} {:>21} {:>8}  {}\n", "", "measured", "predicted", "interval", "error",
                      "inside");
  const auto line = [&](const std::string& what, double meas, const Estimate& e) {
    const bool inside = meas >= e.lo * (1 - 1e-9) && meas <= e.hi * (1 + 1e-9);
    const std::string err = meas > 0 ? fmt::format("{:+.1f}%", (e.mid - meas) / meas * 100) : "-";
    text += fmt::format("#   {:<10} {:>10} {:>10} {:>21} {:>8}  {}\n", what, format_ms(meas), format_ms(e.mid),
                        fmt::format("{}-{}", format_ms(e.lo), format_ms(e.hi)), err, inside ? "yes" : "no");
  };
  line("step", med.step_s, p.step_s);
  line("exposed", med_exposed, p.exposed_s);
  for (std::size_t d = 0; d < kDims; ++d)
    if (p.by_dim[d].hi > 0 || med.exposed_s[d] > 0)
      line(std::string(setting_name(static_cast<Dim>(d))), med.exposed_s[d], p.by_dim[d]);
  return text;
}

// The workload's programs for this world and the prediction --prediction compares with; UsageError when they do not fit.
void plan_replay(const ReplayArgs& args, const Comm& world, const std::vector<std::string>& hosts, TrainingWorkload& w,
                 StepProgram& prog, std::optional<PredictedStep>& prediction) {
  w = load_training_workload(args.workload);
  const std::string problem = placement_problem(hosts, world.local_size());
  if (!problem.empty()) throw UsageError(problem);
  prog = derive_step(w, world.size(), world.local_size());
  if (args.prediction_path.empty()) return;
  prediction = read_prediction(args.prediction_path);
  if (prediction->ranks != prog.ranks || prediction->ranks_per_node != prog.ranks_per_node)
    throw UsageError(fmt::format(
        "replay --prediction {}: the prediction is for {} ranks, {} per node; this run has {}, {} per node",
        args.prediction_path, prediction->ranks, prediction->ranks_per_node, prog.ranks, prog.ranks_per_node));
}

// One replay on this rank, from the plan to the end record.
class Replay {
 public:
  Replay(const ReplayArgs& args, const MpiComm& world) : args_(args), world_(world), root_(world.rank() == 0) {}
  int run();

 private:
  int prepare();
  void start_watchdog();
  int stop_at_boundary(int steps_done);
  std::string header_text() const;
  std::string summary_text() const;

  const ReplayArgs& args_;
  const MpiComm& world_;
  const bool root_;
  TrainingWorkload w_;
  StepProgram prog_;
  std::optional<PredictedStep> prediction_;
  std::vector<std::string> hosts_, noise_;
  std::optional<ReplayEngine> engine_;
  std::unique_ptr<ReplayOutputs> out_;  // rank 0's; outlives the watchdog, whose last words write there
  std::unique_ptr<Watchdog> watchdog_;
  std::uint64_t wrong_ = 0;
};

int Replay::prepare() {
  std::vector<RankPlacement> placement;
  for (const std::string& text : world_.all_strings(placement_to_json(this_process(world_, {})))) {
    placement.push_back(placement_from_json(text));
    hosts_.push_back(placement.back().host);
  }
  noise_ = oversubscription(placement);
  for (std::string& s : shared_machines(placement)) noise_.push_back(std::move(s));
  if (const int code =
          exit_code_of_every_rank(world_, [&] { plan_replay(args_, world_, hosts_, w_, prog_, prediction_); }))
    return code;
  if (const int code =
          exit_code_of_every_rank(world_, [&] { engine_.emplace(prog_, world_.handle(), args_.max_buffer_bytes); }))
    return code;
  // A -J file locked by another run: exit 2 on every rank; one that cannot be created: 5.
  int code = kExitOk;
  std::string error;
  if (root_) try {
      out_ = std::make_unique<ReplayOutputs>(args_.json_path);
    } catch (const UsageError& e) {
      code = exit_code_of(e), error = e.what();
    }
  world_.broadcast(&code, sizeof code);
  if (code != kExitOk && root_) fmt::print(stderr, "ccbench: {}\n", terminal_safe(error));
  return code;
}

// -T: a rank whose step makes no progress for the timeout ends the job (exit
// 4), rank 0's end record first; a stop signal not acted on within
// Watchdog::kSignalMillis (a step that does not return) ends it the same way.
void Replay::start_watchdog() {
  const double timeout_s = args_.timeout_s.value_or(kReplayTimeoutSeconds + prog_.compute_per_step_s());
  watchdog_ = std::make_unique<Watchdog>(timeout_s, world_.rank(), hosts_[static_cast<std::size_t>(world_.rank())]);
  watchdog_->set_iteration_name("operation");
  if (out_)
    watchdog_->set_last_words(
        [out = out_.get()](const std::string& status, int code) { out->last_words(status, code); });
  if (watchdog_->enabled()) engine_->watch(watchdog_.get());
  install_stop_signals();
}

// After each step, every rank: a stop signal on any rank, or an output rank 0
// cannot write, stops them all here. -1: go on; else the exit code.
int Replay::stop_at_boundary(int steps_done) {
  std::vector<double> v{static_cast<double>(stop_signal()), root_ && !out_->error().empty() ? 1.0 : 0.0};
  world_.max_inplace(v);
  if (v[1] > 0) {
    if (root_) {
      const std::string error = out_->error();
      fmt::print(stderr, "ccbench: cannot write {}; stopped after {} steps\n", terminal_safe(error), steps_done);
      out_->end("failed: output " + error, kExitOutput);
    }
    return kExitOutput;
  }
  if (v[0] == 0) return -1;
  const int sig = static_cast<int>(v[0]);
  const std::string status = fmt::format("interrupted: {}", signal_name(sig));
  if (root_) {
    fmt::print(stderr, "ccbench: {} after {} steps; the steps so far are written\n", status, steps_done);
    out_->end(status, kExitSignal + sig);
  }
  return kExitSignal + sig;
}

std::string Replay::header_text() const {
  const int nodes = world_.nodes();
  std::string text = fmt::format(
      "# ccbench replay: {} ({}) on {} ranks, {} node{}: tp {}, pp {}, dp {}, ep {}; {} micro-batches per "
      "step{}\n",
      terminal_safe(w_.name), terminal_safe(args_.workload), prog_.ranks, nodes, nodes == 1 ? "" : "s",
      prog_.group_size(Dim::tp), prog_.group_size(Dim::pp), prog_.group_size(Dim::dp), prog_.group_size(Dim::ep),
      prog_.micro_batches, w_.pp > 1 ? ", " + schedule_words(w_) : "");
  text += fmt::format(
      "# compute per step {} ms (forward {} ms + backward {} ms per micro-batch, waits); buffers {} per rank\n",
      format_ms(prog_.compute_per_step_s()), format_ms(prog_.forward_s), format_ms(prog_.backward_s),
      format_size(static_cast<double>(engine_->buffer_bytes())));
  for (const std::string& s : noise_) text += fmt::format("# note: {}: the waits include waiting for a CPU\n", s);
  return text;
}

std::string Replay::summary_text() const {
  const auto [med, med_exposed] = medians_of(out_->rows());
  std::string dims;
  for (std::size_t d = 0; d < kDims; ++d)
    dims += fmt::format("{}{} {}", d ? ", " : "", setting_name(static_cast<Dim>(d)), format_ms(med.exposed_s[d]));
  std::string text =
      fmt::format("# median of {} steps: step {} ms, compute {} ms, exposed {} ms ({}); {:.0f} tokens/s\n",
                  out_->rows().size(), format_ms(med.step_s), format_ms(med.compute_s), format_ms(med_exposed), dims,
                  prog_.tokens_per_step / med.step_s);
  if (prediction_) text += check_text(*prediction_, med, med_exposed, !noise_.empty());
  return text;
}

int Replay::run() {
  if (const int code = prepare(); code != kExitOk) return code;
  start_watchdog();
  if (root_) {
    out_->print(header_text());
    out_->record(replay_header_json(w_, prog_, args_.workload, world_.nodes(), hosts_, noise_, utc_now_iso8601()));
  }
  const MPI_Comm comm = world_.handle();
  for (int i = 0; i < args_.warmup; ++i) {
    watchdog_->set_activity(fmt::format("warm-up step {} of {}{}", i + 1, args_.warmup, i == 0 ? " (verified)" : ""));
    MPI_Barrier(comm);
    engine_->run_step(i == 0);
    if (const int code = stop_at_boundary(0); code >= 0) return code;
  }
  watchdog_->set_activity("the count of wrong elements");
  wrong_ = world_.sum(engine_->wrong());
  if (root_) {
    out_->set_wrong(wrong_);
    std::string dims;
    for (std::size_t d = 0; d < kDims; ++d)
      dims += fmt::format(" {:>9}", fmt::format("{}_ms", setting_name(static_cast<Dim>(d))));
    out_->print(fmt::format("# data: every result of the first step checked, {} wrong element{}\n", wrong_,
                            wrong_ == 1 ? "" : "s") +
                fmt::format("# {:>5} {:>10} {:>10} {:>10}{} {:>8}\n", "step", "step_ms", "compute_ms", "exposed_ms",
                            dims, "slowest"));
  }
  for (int i = 0; i < args_.steps; ++i) {
    watchdog_->set_activity(fmt::format("timed step {} of {}", i + 1, args_.steps));
    MPI_Barrier(comm);
    const StepRow r = gather_step(engine_->run_step(false), comm, world_.size());
    if (root_) out_->step(r);
    if (const int code = stop_at_boundary(i + 1); code >= 0) return code;
  }
  const int data_code = wrong_ ? kExitWrongData : kExitOk;
  int code = data_code;
  if (root_) {
    out_->print(summary_text());
    if (const std::string error = out_->error(); error.empty()) out_->end("completed", data_code);
    else out_->end("failed: output " + error, kExitOutput);
    if (const std::string error = out_->error(); !error.empty()) {
      fmt::print(stderr, "ccbench: cannot write {}\n", terminal_safe(error));
      code = kExitOutput;
    }
  }
  watchdog_->set_activity("the end of the run");
  world_.broadcast(&code, sizeof code);
  return code;
}

}  // namespace

int run_replay(const ReplayArgs& args, const Comm& world) {
  const auto* mpi = dynamic_cast<const MpiComm*>(&world);
  if (!mpi) throw UsageError("replay: needs MPI");
  Replay replay(args, *mpi);
  return replay.run();
}
#else
int run_replay(const ReplayArgs&, const Comm&) {
  throw UsageError("replay: this ccbench was built without MPI; replay runs on MPI ranks");
}
#endif

}  // namespace ccb
