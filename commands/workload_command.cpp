#include "commands/workload_command.hpp"
#include "common/redact.hpp"

#include <fmt/format.h>

#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <optional>

#include "common/errors.hpp"
#include "common/terminal_text.hpp"
#include "common/sizes.hpp"
#include "commands/cli_errors.hpp"
#include "commands/option_table.hpp"
#include "analysis/compare/cost.hpp"
#include "analysis/decide/decision.hpp"
#include "results/import/importer.hpp"
#include "results/output_file.hpp"
#include "analysis/workload/goodput.hpp"
#include "analysis/workload/model_curves.hpp"
#include "results/yaml_fields.hpp"
#include "analysis/workload/prediction_file.hpp"
#include "analysis/workload/step_prediction.hpp"
#include "analysis/workload/training_step.hpp"

namespace ccb {
namespace {

struct WorkloadArgs {
  std::string verb, workload, json_path;
  int ranks = 0, per_node = 0;
  std::vector<std::string> curves, costs, models;
  bool help = false;
};

// The options, declared once (commands/option_table.hpp).
std::vector<CommandOption> workload_options(WorkloadArgs& a) {
  return {
      option_in("--ranks", "R", "the job's ranks (default: the file's target:)", a.ranks, 1, 10000000),
      option_in("--ranks-per-node", "K", "its ranks per node (default: the file's target:)", a.per_node, 1, 100000),
      option("--curves", "[LABEL=]RUN", "predict: measured sweeps (repeat; a label per option side by side)", a.curves),
      option("--cost", "LABEL=PROFILE", "predict: a cost profile (compare's) of a labelled option", a.costs),
      option("--model", "[LABEL=]MODEL.json", "predict: the scale model for groups no sweep measured", a.models),
      option("--json", "FILE", "predict: one option's prediction as JSON (replay --prediction reads it)", a.json_path),
      flag("-h,--help", "this text", a.help),
  };
}

std::string workload_help() {
  WorkloadArgs defaults;
  return R"(ccbench workload show WORKLOAD.yaml [--ranks R --ranks-per-node K]
ccbench workload predict WORKLOAD.yaml --ranks R --ranks-per-node K --curves RUN... [--json FILE]
ccbench workload predict WORKLOAD.yaml --ranks R --ranks-per-node K --curves A=RUN... --curves B=RUN...
                         [--cost A=PROFILE --cost B=PROFILE] [--model A=MODEL.json]

A workload file describes one training step (docs/workload.md): the model's
shape, its parallelism (tp, pp, dp, ep, ZeRO stage, gradient buckets) and
its compute time. show prints the communication ccbench derives from it for
R ranks, K per node (default: the file's target:): per phase its group, collective, size of one call and
calls per step. predict reads each phase's time off measured sweeps (RUN:
ccbench JSON Lines, nccl-tests, OSU or IMB files or folders holding a curve
for each phase's collective at its group's ranks and nodes) and simulates
the step: step time, compute, exposed communication per dimension, tokens
per second, and goodput when the file gives goodput: inputs. Labelled
curves (LABEL=RUN) are options side by side (a cluster, an instance type):
each one's step, and with --cost LABEL=PROFILE (compare's cost profiles) its
price per million useful tokens (step x ranks x price per GPU-hour / tokens
per step / goodput's useful share); the first two are called faster and
cheaper only when the ratio's interval excludes equal (compare's rule).
--model [LABEL=]MODEL.json (ccbench model fit): a phase whose group has no
measured curve (a dp group of 128 nodes) is read off the model's prediction
at its ranks and nodes (what the library chooses), its 90% interval as the
low and high times; the table names it "scale model: ...".

Columns of show (per rank): phase, dim (tp, pp, dp, ep), group (its ranks
and nodes), collective, size (the size column of a sweep: nccl-tests'
convention), calls (per step, busiest stage), per step (size x calls).
Columns of predict: the same with k (groups of the phase side by side on a
node, sharing its links: the curve is read at k x the size; a curve of k groups
measured side by side, `ccbench --split`, is read at the size and named
"k groups side by side"), one call's time (ms, the mean of the curve's
per-iteration samples, its reported time where it has none, read at that
size: a step sums many calls; low-high: its 10th-90th percentiles) and the
curve it came from (a pipeline message: pingpong, one way, with sendrecv,
both ways at once, as its high end; sendrecv alone without one); "beyond" marks a size above the curve's largest
(bandwidth held). The step: middle = mean times, phases side by side; interval = low times
side by side .. high times with every inter-node phase queued behind the
others (contention bound).

Options:
)" + option_list(workload_options(defaults)) +
         R"(Exit codes: 0 fine, 2 bad input (a parallelism that does not fit, a phase
without a curve), 5 an output could not be written.
)";
}

std::string group_text(const StepProgram& prog, const CommOp& op) {
  const RankPlace pl = place_rank(prog, 0);
  if (op.p2p != P2p::none) return op.direction > 0 ? "the next stage" : "the previous stage";
  const auto& g = pl.groups[static_cast<std::size_t>(op.dim)];
  const int nodes = nodes_of(g, prog.ranks_per_node);
  return fmt::format("{} ranks, {} node{}", g.size(), nodes, nodes == 1 ? "" : "s");
}

void print_header(const TrainingWorkload& w, const StepProgram& prog) {
  fmt::print("# {} ({}){}\n", terminal_safe(w.name), terminal_safe(w.file),
             w.source.empty() ? "" : "; shapes: " + terminal_safe(w.source));
  fmt::print(
      "# {} ranks, {} per node: tp {}, pp {}, dp {}, ep {}, zero {}; {} micro-batch{} per step{}, {:.4g} tokens per "
      "step\n",
      prog.ranks, prog.ranks_per_node, prog.group_size(Dim::tp), prog.group_size(Dim::pp), prog.group_size(Dim::dp),
      prog.group_size(Dim::ep), w.zero, prog.micro_batches, prog.micro_batches == 1 ? "" : "es",
      w.pp > 1 ? " (" + schedule_words(w) + ")" : "", prog.tokens_per_step);
  fmt::print("# compute per micro-batch and stage: forward {} ms, backward {} ms ({}); per step {} ms\n",
             format_ms(prog.forward_s), format_ms(prog.backward_s),
             w.mfu > 0 ? fmt::format("mfu {} of {} TFLOP/s", w.mfu, w.peak_tflops) : std::string("given"),
             format_ms(prog.compute_per_step_s()));
  for (const std::string& n : prog.notes) fmt::print("# note: {}\n", n);
}

int show(const TrainingWorkload& w, const StepProgram& prog) {
  print_header(w, prog);
  fmt::print("{:<48} {:<4} {:<18} {:<15} {:>10} {:>6} {:>10}\n", "phase", "dim", "group", "collective", "size", "calls",
             "per step");
  for (const PhaseTime& ph : phase_shapes(prog)) {
    const CommOp& op = prog.ops[static_cast<std::size_t>(ph.op)];
    const int calls = ph.calls;
    fmt::print("{:<48} {:<4} {:<18} {:<15} {:>10} {:>6} {:>10}\n", op.phase, setting_name(op.dim), group_text(prog, op),
               collective(op.coll).name, format_size(static_cast<double>(op.bytes)), calls,
               format_size(static_cast<double>(op.bytes) * calls));
  }
  for (const CommOp& op : prog.ops)  // model.routing: what the skew does to the busiest rank
    if (op.traffic)
      fmt::print("# {}: {}; the busiest rank moves {} ({:.3g}x the size), read off the uniform alltoall there\n",
                 op.phase, op.traffic->text(), format_size(static_cast<double>(op.busiest_bytes)),
                 static_cast<double>(op.busiest_bytes) / static_cast<double>(op.bytes));
  return kExitOk;
}

// "73.1 min", "73 h", "12 s": a duration in the unit that reads best.
std::string format_duration(double s) {
  if (s >= 2 * 3600) return fmt::format("{:.3g} h", s / 3600);
  if (s >= 120) return fmt::format("{:.3g} min", s / 60);
  return fmt::format("{:.3g} s", s);
}

void print_goodput(const TrainingWorkload& w, const StepProgram& prog, double step_s) {
  if (w.node_mtbf_hours <= 0 || w.checkpoint_s <= 0) {
    fmt::print("# goodput: not computed (the workload's goodput: gives no node_mtbf_hours and checkpoint_s)\n");
    return;
  }
  const int nodes = (prog.ranks + prog.ranks_per_node - 1) / prog.ranks_per_node;
  const double step = std::isfinite(step_s) && step_s > 0 ? step_s : 0;
  const Goodput g = young_goodput(w.node_mtbf_hours, nodes, w.checkpoint_s, std::max(0.0, w.restart_s), step);
  fmt::print(
      "# goodput (Young's interval, Daly's expectation): {} node{}, job MTBF {:.1f} h, checkpoint every {}{}: useful "
      "{:.1f}% (first order: checkpoints {:.1f}%, rework {:.1f}%, restarts {:.1f}%); {:.3g} useful tokens/s\n",
      nodes, nodes == 1 ? "" : "s", g.job_mtbf_s / 3600, format_duration(g.interval_s),
      g.interval_is_steps ? " (every step: Young's interval is shorter than one)" : "", g.useful * 100,
      g.lost_checkpoint * 100, g.lost_rework * 100, g.lost_restart * 100, prog.tokens_per_step / step_s * g.useful);
  if (g.step_beyond_mtbf)
    fmt::print(
        "# goodput: WARNING: a checkpoint interval of {} is not shorter than the job's MTBF ({:.1f} h): most "
        "intervals are cut by a failure; the share above counts the work they lose\n",
        format_duration(g.interval_s), g.job_mtbf_s / 3600);
  // Sensitivity: the useful share when the inputs are off by these factors.
  const double mtbf_factors[] = {0.25, 0.5, 1, 2}, checkpoint_factors[] = {0.5, 1, 2, 4};
  fmt::print("# goodput sensitivity: useful share for node MTBF (rows) and checkpoint time (columns) x factor\n");
  fmt::print("#   {:>16}", "MTBF \\ ckpt");
  for (double c : checkpoint_factors) fmt::print(" {:>11}", fmt::format("x{:g} {:.0f} s", c, w.checkpoint_s * c));
  fmt::print("\n");
  for (double m : mtbf_factors) {
    fmt::print("#   {:>16}", fmt::format("x{:g} {:.0f} h", m, w.node_mtbf_hours * m));
    for (double c : checkpoint_factors)
      fmt::print(
          " {:>10.1f}%",
          young_goodput(w.node_mtbf_hours * m, nodes, w.checkpoint_s * c, std::max(0.0, w.restart_s), step).useful *
              100);
    fmt::print("\n");
  }
}

// One option of a decision: its curves and its price.
struct Option {
  std::string label;
  std::vector<std::string> curves;
  std::optional<CostProfile> cost;
  std::optional<Model> model;
  PredictedStep step;
};

// "--curves LABEL=PATH" or "--curves PATH" (label ""): a label is a word
// before the first '=' of something that is not itself a path.
std::pair<std::string, std::string> labelled(const std::string& v) {
  const std::size_t eq = v.find('=');
  struct stat st {};
  if (eq == std::string::npos || eq == 0 || ::stat(v.c_str(), &st) == 0) return {"", v};
  const std::string label = v.substr(0, eq);
  if (label.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != std::string::npos)
    return {"", v};
  return {label, v.substr(eq + 1)};
}

std::vector<Option> options_of(const WorkloadArgs& a) {
  std::vector<Option> out;
  const auto find = [&](const std::string& label) -> Option* {
    for (Option& o : out)
      if (o.label == label) return &o;
    return nullptr;
  };
  for (const std::string& c : a.curves) {
    const auto [label, path] = labelled(c);
    Option* o = find(label);
    if (!o) o = &out.emplace_back(Option{label, {}, std::nullopt, std::nullopt, {}});
    o->curves.push_back(path);
  }
  for (const std::string& m : a.models) {
    const auto [label, path] = labelled(m);
    Option* o = find(label);
    if (!o) o = &out.emplace_back(Option{label, {}, std::nullopt, std::nullopt, {}});
    if (o->model)
      throw UsageError(fmt::format("--model {}: given twice for that option", label.empty() ? path : label));
    o->model = model_from_json(yamlf::read_text(path, 64 << 20), path);
  }
  if (out.size() > 1 && find(""))
    throw UsageError("workload predict: --curves: label every option (LABEL=PATH) when there are several");
  for (const std::string& c : a.costs) {
    const auto [label, path] = out.size() == 1 && out[0].label.empty() ? std::pair<std::string, std::string>{"", c}
                                                                       : split_assignment("--cost", c);
    Option* o = find(label);
    if (!o) throw UsageError(fmt::format("--cost {}: no --curves has that label", label));
    if (o->cost) throw UsageError(fmt::format("--cost {}: given twice", label.empty() ? path : label));
    o->cost = load_cost_profile(path);
  }
  if (!a.json_path.empty() && out.size() > 1)
    throw UsageError("workload predict: --json writes one option's prediction (the one replay --prediction reads)");
  return out;
}

PredictedStep predict_option(const Option& o, const TrainingWorkload& w, const StepProgram& prog) {
  ResultSet all;
  std::vector<std::string> oversubscribed;
  if (!o.curves.empty())
    for (const ResultSet& s : load_measured_runs(o.curves, "workload predict")) {
      all.points.insert(all.points.end(), s.points.begin(), s.points.end());
      if (s.oversubscribed) oversubscribed.push_back(s.label);
    }
  // compare --workload refuses such curves (no estimate); predict says why its
  // step cannot be taken as the cluster's (docs/workload.md).
  for (const std::string& label : oversubscribed)
    fmt::print(
        "# WARNING: {} was measured oversubscribed (more ranks than CPUs on a host): its times include waiting for a "
        "CPU, so this step is not the cluster's (compare --workload gives such curves no estimate)\n",
        terminal_safe(label));
  const OptionStep os = predict_option_step(w, prog, std::move(all), o.model ? &*o.model : nullptr);
  const StepPrediction& p = os.detail;
  const std::vector<std::string>& modelled = os.modelled;
  if (!o.label.empty()) fmt::print("## {}\n", o.label);
  for (const std::string& m : modelled) fmt::print("# not measured, from the scale model: {}\n", m);
  fmt::print("{:<48} {:<4} {:<18} {:>10} {:>6} {:>3} {:>10} {:>19}  {}\n", "phase", "dim", "group", "size", "calls",
             "k", "call_ms", "low-high_ms", "curve");
  for (const PhaseTime& ph : p.phases) {
    const CommOp& op = prog.ops[static_cast<std::size_t>(ph.op)];
    fmt::print("{:<48} {:<4} {:<18} {:>10} {:>6} {:>3} {:>10} {:>19}  {}{}\n", op.phase, setting_name(op.dim),
               group_text(prog, op), format_size(static_cast<double>(op.bytes)), ph.calls, ph.sharing, format_ms(ph.s),
               ph.unbounded ? "unbounded" : fmt::format("{}-{}", format_ms(ph.lo_s), format_ms(ph.hi_s)), ph.curve,
               ph.extrapolated ? " (beyond)" : "");
  }
  const auto blocking =
      std::count_if(p.phases.begin(), p.phases.end(), [](const PhaseTime& ph) { return ph.blocking_mpi; });
  if (blocking > 0)
    fmt::print(
        "# note: {} of {} phases read off curves of MPI's blocking calls; a step (and ccbench replay) issues "
        "nonblocking ones, which MPI may run with another algorithm (docs/workload.md \"Validation\"): sweep with "
        "--mpi-calls nonblocking\n",
        blocking, p.phases.size());
  const PredictedStep& sum = os.step;
  if (!sum.unbounded.empty())
    fmt::print(
        "# step: {} ms (interval unbounded: the scale model cannot bound {}), compute {} ms, exposed communication "
        "{} ms\n",
        format_ms(sum.step_s.mid), fmt::join(sum.unbounded, ", "), format_ms(sum.compute_s),
        format_ms(sum.exposed_s.mid));
  else
    fmt::print("# step: {} ms ({}-{}), compute {} ms, exposed communication {} ms ({}-{})\n", format_ms(sum.step_s.mid),
               format_ms(sum.step_s.lo), format_ms(sum.step_s.hi), format_ms(sum.compute_s),
               format_ms(sum.exposed_s.mid), format_ms(sum.exposed_s.lo), format_ms(sum.exposed_s.hi));
  std::string dims;
  for (std::size_t d = 0; d < kDims; ++d)
    if (sum.by_dim[d].hi > 0)
      dims += fmt::format("{}{} {} ms ({}-{})", dims.empty() ? "" : ", ", setting_name(static_cast<Dim>(d)),
                          format_ms(sum.by_dim[d].mid), format_ms(sum.by_dim[d].lo), format_ms(sum.by_dim[d].hi));
  fmt::print("# exposed by dimension (slowest stage): {}{}\n", dims.empty() ? "none" : dims,
             prog.group_size(Dim::pp) > 1
                 ? fmt::format("; pp includes the pipeline bubble, {} ms by (pp - 1){} x (forward + backward)",
                               format_ms(p.bubble_s),
                               prog.virtual_stages > 1 ? fmt::format(" / {} virtual stages", prog.virtual_stages) : "")
                 : "");
  return sum;
}

// Per option: tokens per second and, with a price, the cost of a million
// useful tokens (goodput's share when the workload gives its inputs).
// The options side by side, and the calls: decide_training_step's (analysis/decide/decision.hpp),
// as compare --workload makes them. With more than two options the calls are between the two lowest.
void print_options(const std::vector<Option>& opts, const TrainingWorkload& w, const StepProgram& prog,
                   const std::string& file) {
  print_goodput(w, prog, opts.front().step.step_s.mid);
  std::vector<StepAtScale> sets;
  for (const Option& o : opts) {
    StepAtScale& s = sets.emplace_back();
    s.label = o.label, s.cost = o.cost ? &*o.cost : nullptr, s.step = o.step, s.predicted = true;
  }
  const Decision d = decide_training_step(step_facts(w, prog, file), std::move(sets),
                                          (prog.ranks + prog.ranks_per_node - 1) / prog.ranks_per_node, false);
  fmt::print("{:<12} {:>10} {:>21} {:>10} {:>21} {:>12}  {}\n", "option", "step_ms", "interval", "tokens/s",
             "per M useful tokens", "interval", "basis");
  for (const StepAtScale& s : d.sets)
    fmt::print("{:<12} {:>10} {:>21} {:>10.0f} {:>21} {:>12}  {}\n", s.label.empty() ? "-" : s.label,
               format_ms(s.step_s),
               s.unbounded.empty() ? fmt::format("{}-{}", format_ms(s.step_lo_s), format_ms(s.step_hi_s))
                                   : std::string("unbounded"),
               prog.tokens_per_step / s.step_s,
               s.cost ? fmt::format("{:.4g} {}", s.unit_cost, s.cost->currency) : std::string("-"),
               !s.cost               ? std::string("-")
               : s.unbounded.empty() ? fmt::format("{:.4g}-{:.4g}", s.cost_lo, s.cost_hi)
                                     : std::string("unbounded"),
               s.cost ? "predicted step x price of " + s.cost->name : "predicted step; no --cost");
  if (opts.size() < 2) return;
  const auto said = [](const RatioCall& c, std::string_view what) {
    if (c.kind == RatioCall::none) return std::string("not compared (fewer than two options with a step)");
    return c.kind == RatioCall::winner
               ? fmt::format("'{}' by {:.2f}x (interval {})", c.lower, c.ratio, interval_text(c))
               : cannot_tell(c, what);
  };
  fmt::print("# faster: {}\n", said(d.faster, "faster"));
  std::vector<std::string> currencies;
  for (const Option& o : opts)
    if (o.cost && std::find(currencies.begin(), currencies.end(), o.cost->currency) == currencies.end())
      currencies.push_back(o.cost->currency);
  if (currencies.size() > 1)
    fmt::print("# cheaper: not compared (prices in {} and {})\n", currencies[0], currencies[1]);
  else if (d.cheaper.kind != RatioCall::none)
    fmt::print("# cheaper per useful token: {}\n", said(d.cheaper, "cheaper"));
}

int predict(const WorkloadArgs& a, const TrainingWorkload& w, const StepProgram& prog) {
  if (a.curves.empty() && a.models.empty())
    throw UsageError("workload predict: give the measured curves (--curves RUN...) or a scale model (--model FILE)");
  std::vector<Option> opts = options_of(a);
  print_header(w, prog);
  for (Option& o : opts) o.step = predict_option(o, w, prog);
  print_options(opts, w, prog, a.workload);
  if (!a.json_path.empty()) write_file_atomically("--json", a.json_path, prediction_json(opts.front().step));
  return kExitOk;
}

}  // namespace

int run_workload(int argc, char** argv) {
  try {
    WorkloadArgs a;
    CLI::App app{"ccbench workload"};
    app.set_help_flag();
    app.allow_extras(false);
    app.add_option("verb", a.verb)->check(CLI::IsMember({"show", "predict"}));
    app.add_option("workload", a.workload);
    declare_options(app, workload_options(a));
    parse_or_usage_error(app, argc, argv, "workload", "workload");
    if (a.help || a.verb.empty()) {
      fmt::print("{}", workload_help());
      return a.help ? kExitOk : kExitUsage;
    }
    if (a.workload.empty()) throw UsageError(fmt::format("workload {}: give the workload file", a.verb));
    if (a.verb == "show" && (!a.curves.empty() || !a.json_path.empty() || !a.costs.empty() || !a.models.empty()))
      throw UsageError("workload show: --curves, --model, --cost and --json are predict's");
    if (!a.json_path.empty()) {
      check_output_writable("--json", a.json_path);
      std::vector<std::pair<std::string, std::string>> inputs{{"workload", a.workload}};
      for (const auto& c : a.curves) inputs.emplace_back("--curves", labelled(c).second);
      for (const auto& m : a.models) inputs.emplace_back("--model", labelled(m).second);
      check_distinct_paths({{"--json", a.json_path}}, inputs);
    }
    const TrainingWorkload w = load_training_workload(a.workload);
    if (a.ranks == 0 && a.per_node == 0) a.ranks = w.target_ranks, a.per_node = w.target_ranks_per_node;
    if (a.ranks == 0 || a.per_node == 0)
      throw UsageError(fmt::format("workload {}: give --ranks and --ranks-per-node (or target: in the file)", a.verb));
    const StepProgram prog = derive_step(w, a.ranks, a.per_node);
    return a.verb == "show" ? show(w, prog) : predict(a, w, prog);
  } catch (const UsageError& e) {
    fmt::print(stderr, "ccbench: {}\n", printable_error(e.what()));
    return exit_code_of(e);
  }
}

}  // namespace ccb
