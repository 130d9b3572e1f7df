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
#endif

namespace ccb {

namespace {

// The options, declared once (commands/option_table.hpp).
std::vector<CommandOption> replay_options(ReplayArgs& a, std::string& max_buffer, bool& help) {
  return {
      option_in("-n,--steps", "N", fmt::format("timed steps (default {})", a.steps), a.steps, 1, 100000),
      option_in("-w,--warmup", "N",
                fmt::format("untimed steps first, the first one verified (default {}, at least 1)", a.warmup), a.warmup,
                1, 100000),
      option("-J,--json", "FILE", "JSON Lines: a replay record, one record per step, an end record", a.json_path),
      option("--prediction,--check", "FILE",
             "compare with a prediction (ccbench workload predict --json FILE; --check is its old spelling)",
             a.prediction_path),
      option("--max-buffer", "SIZE",
             fmt::format("refuse a step that needs more buffers per rank (default {})", max_buffer), max_buffer),
      flag("-h,--help", "this text", help),
  };
}

}  // namespace

std::string replay_help() {
  ReplayArgs defaults;
  std::string max_buffer = size_as_typed(defaults.max_buffer_bytes);
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
Exit codes: 0 fine, 2 bad input, 3 wrong data, 1 MPI failed.
)",
                     option_list(replay_options(defaults, max_buffer, help)));
}

std::optional<ReplayArgs> parse_replay(int argc, const char* const* argv) {
  ReplayArgs a;
  bool help = false;
  std::string max_buffer = size_as_typed(a.max_buffer_bytes);
  CLI::App app{"ccbench replay"};
  app.set_help_flag();
  app.allow_extras(false);
  app.add_option("workload", a.workload);
  declare_options(app, replay_options(a, max_buffer, help));
  parse_or_usage_error(app, argc, argv, "replay", "replay");
  if (help) return std::nullopt;
  if (a.workload.empty()) throw UsageError("replay: give the workload file (ccbench replay WORKLOAD.yaml)");
  const auto mb = parse_size(max_buffer);
  if (!mb || *mb == 0) throw UsageError("replay: --max-buffer " + size_error(max_buffer));
  a.max_buffer_bytes = *mb;
  if (!a.json_path.empty()) check_output_writable("-J/--json", a.json_path);
  check_distinct_paths({{"-J/--json", a.json_path}}, {{"workload", a.workload}, {"--prediction", a.prediction_path}});
  return a;
}

#if CCBENCH_HAVE_MPI
namespace {

using json = nlohmann::json;

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

struct StepRow {
  double step_s = 0, compute_s = 0;
  std::array<double, kDims> exposed_s{};
  int slowest = 0;
  double exposed() const {
    double sum = 0;
    for (double e : exposed_s) sum += e;
    return sum;
  }
};

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

void print_check(const PredictedStep& p, const StepRow& med, double med_exposed, bool shared_cpus) {
  fmt::print("# check against the prediction ({} ranks, {} per node):\n", p.ranks, p.ranks_per_node);
  if (shared_cpus)
    fmt::print(
        "# note: the replay's ranks outnumber their machine's CPUs (above): its waits include waiting for a "
        "CPU, which curves measured with fewer ranks per CPU do not hold\n");
  fmt::print("#   {:<10} {:>10} {:>10} {:>21} {:>8}  {}\n", "", "measured", "predicted", "interval", "error", "inside");
  const auto line = [](const char* what, double meas, const Estimate& e) {
    const bool inside = meas >= e.lo * (1 - 1e-9) && meas <= e.hi * (1 + 1e-9);
    const std::string err = meas > 0 ? fmt::format("{:+.1f}%", (e.mid - meas) / meas * 100) : "-";
    fmt::print("#   {:<10} {:>10} {:>10} {:>21} {:>8}  {}\n", what, format_ms(meas), format_ms(e.mid),
               fmt::format("{}-{}", format_ms(e.lo), format_ms(e.hi)), err, inside ? "yes" : "no");
  };
  line("step", med.step_s, p.step_s);
  line("exposed", med_exposed, p.exposed_s);
  for (std::size_t d = 0; d < kDims; ++d)
    if (p.by_dim[d].hi > 0 || med.exposed_s[d] > 0)
      line(std::string(setting_name(static_cast<Dim>(d))).c_str(), med.exposed_s[d], p.by_dim[d]);
}

}  // namespace

// The medians over the steps of each column, and of the exposed total.
std::pair<StepRow, double> medians_of(const std::vector<StepRow>& rows) {
  const auto median = [&](auto get) {
    std::vector<double> v;
    for (const StepRow& r : rows) v.push_back(get(r));
    return median_of(v);
  };
  StepRow med;
  med.step_s = median([](const StepRow& r) { return r.step_s; });
  med.compute_s = median([](const StepRow& r) { return r.compute_s; });
  for (std::size_t d = 0; d < kDims; ++d) med.exposed_s[d] = median([d](const StepRow& r) { return r.exposed_s[d]; });
  return {med, median([](const StepRow& r) { return r.exposed(); })};
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

int run_replay(const ReplayArgs& args, const Comm& world) {
  const auto* mpi = dynamic_cast<const MpiComm*>(&world);
  if (!mpi) throw UsageError("replay: needs MPI");
  TrainingWorkload w;
  StepProgram prog;
  std::optional<PredictedStep> prediction;
  std::vector<std::string> hosts;
  std::vector<RankPlacement> placement;
  for (const std::string& text : world.all_strings(placement_to_json(this_process(world, {})))) {
    placement.push_back(placement_from_json(text));
    hosts.push_back(placement.back().host);
  }
  std::vector<std::string> noise = oversubscription(placement);
  for (std::string& s : shared_machines(placement)) noise.push_back(std::move(s));
  if (!every_rank_passes(world, [&] { plan_replay(args, world, hosts, w, prog, prediction); })) return kExitUsage;
  std::optional<ReplayEngine> engine;
  if (!every_rank_passes(world, [&] { engine.emplace(prog, mpi->handle(), args.max_buffer_bytes); })) return kExitUsage;
  const bool root = world.rank() == 0;
  std::optional<OutputFile> out;
  if (root && !args.json_path.empty()) out.emplace("-J/--json", args.json_path);
  const int nodes = world.nodes();
  if (root) {
    fmt::print(
        "# ccbench replay: {} ({}) on {} ranks, {} node{}: tp {}, pp {}, dp {}, ep {}; {} micro-batches per "
        "step{}\n",
        terminal_safe(w.name), terminal_safe(args.workload), prog.ranks, nodes, nodes == 1 ? "" : "s",
        prog.group_size(Dim::tp), prog.group_size(Dim::pp), prog.group_size(Dim::dp), prog.group_size(Dim::ep),
        prog.micro_batches, w.pp > 1 ? ", " + schedule_words(w) : "");
    fmt::print(
        "# compute per step {} ms (forward {} ms + backward {} ms per micro-batch, waits); buffers {} per rank\n",
        format_ms(prog.compute_per_step_s()), format_ms(prog.forward_s), format_ms(prog.backward_s),
        format_size(static_cast<double>(engine->buffer_bytes())));
    for (const std::string& s : noise) fmt::print("# note: {}: the waits include waiting for a CPU\n", s);
    if (out)
      out->write(replay_header_json(w, prog, args.workload, nodes, hosts, noise, utc_now_iso8601()).dump() + "\n");
  }
  for (int i = 0; i < args.warmup; ++i) {
    MPI_Barrier(mpi->handle());
    engine->run_step(i == 0);
  }
  const uint64_t wrong = world.sum(engine->wrong());
  if (root) {
    fmt::print("# data: every result of the first step checked, {} wrong element{}\n", wrong, wrong == 1 ? "" : "s");
    std::string dims;
    for (std::size_t d = 0; d < kDims; ++d)
      dims += fmt::format(" {:>9}", fmt::format("{}_ms", setting_name(static_cast<Dim>(d))));
    fmt::print("# {:>5} {:>10} {:>10} {:>10}{} {:>8}\n", "step", "step_ms", "compute_ms", "exposed_ms", dims,
               "slowest");
  }
  std::vector<StepRow> rows;
  for (int i = 0; i < args.steps; ++i) {
    MPI_Barrier(mpi->handle());
    const StepRow r = gather_step(engine->run_step(false), mpi->handle(), world.size());
    if (!root) continue;
    rows.push_back(r);
    std::string dims;
    for (double e : r.exposed_s) dims += fmt::format(" {:>9}", format_ms(e));
    fmt::print("  {:>5} {:>10} {:>10} {:>10}{} {:>8}\n", i + 1, format_ms(r.step_s), format_ms(r.compute_s),
               format_ms(r.exposed()), dims, r.slowest);
    if (out)
      out->write(replay_step_json({r.step_s, r.compute_s, r.exposed(), r.exposed_s}, i + 1, r.slowest).dump() + "\n");
  }
  if (!root) return wrong ? kExitWrongData : kExitOk;
  const auto [med, med_exposed] = medians_of(rows);
  std::string dims;
  for (std::size_t d = 0; d < kDims; ++d)
    dims += fmt::format("{}{} {}", d ? ", " : "", setting_name(static_cast<Dim>(d)), format_ms(med.exposed_s[d]));
  fmt::print("# median of {} steps: step {} ms, compute {} ms, exposed {} ms ({}); {:.0f} tokens/s\n", rows.size(),
             format_ms(med.step_s), format_ms(med.compute_s), format_ms(med_exposed), dims,
             prog.tokens_per_step / med.step_s);
  if (prediction) print_check(*prediction, med, med_exposed, !noise.empty());
  if (out) {
    out->write(replay_end_json(wrong, med.step_s, med_exposed, utc_now_iso8601()).dump() + "\n");
    if (!out->error().empty()) throw OutputError("-J/--json " + out->error());
  }
  return wrong ? kExitWrongData : kExitOk;
}
#else
int run_replay(const ReplayArgs&, const Comm&) {
  throw UsageError("replay: this ccbench was built without MPI; replay runs on MPI ranks");
}
#endif

}  // namespace ccb
