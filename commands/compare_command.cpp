#include "commands/cli_errors.hpp"
#include "common/redact.hpp"
#include "commands/option_table.hpp"
#include "commands/compare_command.hpp"
#include "commands/history_command.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <cmath>
#include <map>
#include <tuple>
#include <set>

#include "collectives/collective.hpp"
#include "common/environment.hpp"
#include "common/errors.hpp"
#include "analysis/compare/comparison.hpp"
#include "analysis/compare/peer_time.hpp"
#include "analysis/compare/reference.hpp"
#include "analysis/decide/replay_comparison.hpp"
#include "analysis/history/history_set.hpp"
#include "analysis/model/projection.hpp"
#include "results/import/importer.hpp"
#include "results/import/text_input.hpp"
#include "analysis/report/charts_gnuplot.hpp"
#include "analysis/report/render.hpp"
#include "analysis/workload/model_curves.hpp"
#include "analysis/workload/training_step.hpp"
#include "results/writers.hpp"

namespace ccb {
namespace {

struct CompareArgs {
  std::vector<std::string> runs, references, costs, ranks, collectives;
  std::string baseline, workload, ignore, color = "auto", md, csv, json, html, alpha, scale;
  bool quiet = false, help = false;
};

// The options, declared once (commands/option_table.hpp).
std::vector<CommandOption> compare_options(CompareArgs& a) {
  const ComparisonOptions d;
  return {
      option("--run", "LABEL=PATH",
             "a result set (repeat); the first is the baseline. PATH @history[:KEY=VALUE,...]: past runs out of the "
             "history database (keys db, collective, size, node, link A+B, since, until, run; docs/history.md)",
             a.runs),
      option("--baseline", "LABEL", "compare against this set instead", a.baseline),
      option("--reference", "ID|all", "add a published figure as a column (--reference list)", a.references),
      option("--cost", "LABEL=FILE", "cost profile (YAML) of a set: cloud or bare_metal", a.costs),
      option("--workload", "FILE",
             "the decision at scale (summary sentences at the top): a training step (ccbench workload --help: each "
             "set's step predicted from its curves, tokens/s, goodput, cost per million useful tokens, break-even), "
             "or a one-collective profile (parameters, gpus: cost per step)",
             a.workload),
      option("--scale", "RxN",
             "project every set to R ranks on N nodes through the model (ccbench model --help): the report compares "
             "the predictions (marked \"predicted\", 90% intervals on the charts) and any points measured at exactly "
             "that scale",
             a.scale),
      option("--alpha", "A", fmt::format("significance level of the Mann-Whitney U test (default {})", d.alpha),
             a.alpha),
      option("--ignore-key", "LIST",
             "key fields to leave out of the alignment, comma separated: dtype,op,ranks,nodes,in_place,path,memory",
             a.ignore),
      option("--ranks", "LABEL=N", "rank count for files that do not record it (OSU)", a.ranks),
      option("--collective", "LABEL=NAME",
             "the collective of nccl-tests text files of that set whose content and file name do not say it (names "
             "are guessed only when a file name names exactly one: allreduce.log, all-reduce.txt, AllReduce_8n.out, "
             "ar.txt)",
             a.collectives),
      option("--md", "FILE", "write the Markdown report", a.md),
      option("--csv", "FILE", "write every aligned point as CSV", a.csv),
      option("--json", "FILE", "write the comparison as JSON", a.json),
      option("--html", "FILE", "write the HTML report (charts with gnuplot)", a.html),
      option(
          "--color", "auto|always|never",
          fmt::format("colour on the terminal (default {}: on a TTY, unless NO_COLOR or under mpirun/srun)", a.color),
          a.color),
      flag("-q,--quiet", "no terminal report", a.quiet),
      flag("-h,--help", "this text", a.help),
  };
}

std::string compare_help() {
  CompareArgs defaults;
  return "usage: ccbench compare --run LABEL=PATH [--run LABEL=PATH ...] [options]\n\n" +
         std::string(R"(Reads two or more result sets, lines them up point by point and reports how
each compares with the baseline. PATH is a file or a folder (every file in
it, recursively). Formats are detected: ccbench JSON Lines, nccl-tests stdout
or -J JSON, OSU micro-benchmarks, IMB-MPI1, NCCL Inspector records of a
production job (per collective, ranks, nodes and power-of-two size bucket;
the Summary says where production ran slower than a measured set: see
docs/compare.md "Production figures"). Replay records (ccbench replay
-J) are compared with each other: median step time, exposed communication
per dimension, the ratio's interval and a Mann-Whitney test on the steps.

)") + option_list(compare_options(defaults)) +
         R"(
Numbers: busbw in GB/s (1e9 B/s) and times in microseconds as the inputs
report them (nccl-tests: max over ranks per -a; ccbench: see --help of a run;
OSU/IMB: average latency, bandwidth converted to time per message). Ratios
are other / baseline. The terminal report wraps text at 100 columns and keeps
tables within 160 (long labels cut with "...", a table that still does not
fit printed one block per row); the files have everything. Exit codes: 0
done, 2 bad input (one line on stderr).
)";
}

std::string reference_list() {
  std::string out = "Published figures (--reference ID; not measured by ccbench):\n";
  for (const PublishedFigure& f : published_figures())
    out += fmt::format("  {:<20} {} {} ranks, {} node(s), {} busbw {} GB/s\n  {:<20} source: {}\n", f.id, f.collective,
                       f.ranks, f.nodes, format_size(static_cast<double>(f.bytes)), f.busbw_gbps, "", f.source);
  return out;
}

// Writes `text` to `path` through a temporary file renamed into place: a
// failure leaves no half-written report.

// "1024x128" -> (1024, 128).
std::pair<int, int> parse_scale(const std::string& v) {
  const std::size_t x = v.find('x');
  const auto r = x == std::string::npos ? std::nullopt : parse_uint(v.substr(0, x));
  const auto n = x == std::string::npos ? std::nullopt : parse_uint(v.substr(x + 1));
  if (!r || !n || *r < 2 || *n < 1 || *r > (1u << 24) || *n > *r || *r % *n != 0)
    throw UsageError(fmt::format(
        "--scale '{}': expected RANKSxNODES, e.g. 1024x128 (ranks >= 2, a multiple of the nodes)", terminal_safe(v)));
  return {static_cast<int>(*r), static_cast<int>(*n)};
}

// Communication per step of each set at the decision's scale: the model's
// prediction for projected sets, the measured curve otherwise.
// A set measured at the target scale stands for its source there; its
// prediction is then left out (a set is never decided against itself).
Decision decide_workload(const Comparison& c, const CostInputs& cost, const std::vector<std::optional<Model>>& models,
                         const std::vector<std::size_t>& source, int ranks, int nodes) {
  const Workload& w = *cost.workload;
  std::vector<StepAtScale> steps;
  const auto measured_at_scale = [&](std::size_t i) {
    for (std::size_t j = 0; j < c.sets.size() && j < models.size() && j < source.size(); ++j)
      if (j != i && source[j] == source[i] && !models[j]) return true;
    return false;
  };
  for (std::size_t i = 0; i < c.sets.size(); ++i) {
    if (!c.sets[i].published_source.empty()) continue;
    if (i < models.size() && models[i] && measured_at_scale(i)) continue;
    StepAtScale s;
    s.label = c.sets[i].label;
    s.cost = i < cost.profiles.size() && cost.profiles[i] ? &*cost.profiles[i] : nullptr;
    if (i < models.size() && models[i]) {
      const auto t = scaled_time(*models[i], w.collective, ranks, nodes, w.bytes_per_step());
      if (!t) continue;
      s.comm_s = t->time_us * 1e-6, s.comm_lo_s = t->lo_us * 1e-6, s.comm_hi_s = t->hi_us * 1e-6;
      s.predicted = true, s.extrapolated = t->extrapolated, s.basis = "model: " + t->series;
      s.refused = t->unusable;
      if (t->unbounded) {
        s.unbounded = fmt::format("{} at {} ranks", w.collective, ranks);
        s.comm_lo_s = 0, s.comm_hi_s = INFINITY;
      }
    } else {
      const auto e = estimate_workload(w, *c.chart_tables[i], nullptr);
      if (!e) continue;
      s.basis = "measured: " + e->curve->label() + (e->basis.empty() ? "" : " (" + e->basis + ")");
      s.refused = e->refused;
      s.comm_s = e->time_per_step_s, s.comm_lo_s = e->time_lo_s, s.comm_hi_s = e->time_hi_s;
      s.extrapolated = e->extrapolated;
    }
    if (c.sets[i].oversubscribed && s.refused.empty())
      s.refused =
          "it was measured oversubscribed (more ranks than CPUs on a host): its times include waiting for a CPU";
    steps.push_back(std::move(s));
  }
  Decision d = decide(w, std::move(steps), nodes, ranks > 0);
  check_against_tables(d.faster, c, w.collective);
  check_against_tables(d.cheaper, c, w.collective);
  return d;
}

CompareArgs parse(int argc, const char* const* argv) {
  CompareArgs a;
  CLI::App app{"ccbench compare"};
  app.set_help_flag();
  app.allow_extras(false);
  declare_options(app, compare_options(a));
  parse_or_usage_error(app, argc, argv, "compare", "compare");
  return a;
}

using Assignments = std::vector<std::pair<std::string, std::string>>;

// --alpha, --ignore-key and --color, checked.
ComparisonOptions comparison_options(const CompareArgs& a) {
  ComparisonOptions options;
  if (!a.alpha.empty()) {
    const auto v = parse_double(a.alpha);
    if (!v || *v <= 0 || *v >= 1)
      throw UsageError(fmt::format("--alpha '{}': expected a number between 0 and 1", terminal_safe(a.alpha)));
    options.alpha = *v;
  }
  if (!a.ignore.empty()) {
    std::string bad;
    const auto mask = parse_key_fields(a.ignore, &bad);
    if (!mask)
      throw UsageError(
          fmt::format("--ignore-key '{}': unknown field (allowed: dtype, op, ranks, nodes, in_place, path, memory)",
                      terminal_safe(bad)));
    options.ignored = *mask;
  }
  if (a.color != "auto" && a.color != "always" && a.color != "never")
    throw UsageError(fmt::format("--color '{}': unknown (allowed: auto, always, never)", terminal_safe(a.color)));
  return options;
}

// No output file names an input, and each output can be written.
void check_compare_paths(const CompareArgs& a, const Assignments& runs) {
  Assignments inputs;
  for (const auto& [label, path] : runs) inputs.emplace_back("--run " + label, path);
  for (const auto& c : a.costs) {
    const auto [label, path] = split_assignment("--cost", c);
    inputs.emplace_back("--cost " + label, path);
  }
  if (!a.workload.empty()) inputs.emplace_back("--workload", a.workload);
  const Assignments outputs{{"--md", a.md}, {"--csv", a.csv}, {"--json", a.json}, {"--html", a.html}};
  check_distinct_paths(outputs, inputs);
  for (const auto& [flag, path] : outputs)
    if (!path.empty()) check_output_writable(flag, path);
}

// --ranks LABEL=N: the rank count of a file that does not record it.
std::map<std::string, int> rank_overrides(const CompareArgs& a) {
  std::map<std::string, int> ranks;
  for (const auto& r : a.ranks) {
    const auto [label, value] = split_assignment("--ranks", r);
    if (ranks.count(label))
      throw UsageError(fmt::format("--ranks {}: given twice for that label", terminal_safe(label)));
    const auto n = parse_uint(value);
    if (!n || *n < 1 || *n > (1u << 24))
      throw UsageError(fmt::format("--ranks {}: '{}' is not a rank count", terminal_safe(label), terminal_safe(value)));
    ranks[label] = static_cast<int>(*n);
  }
  return ranks;
}

// --collective LABEL=NAME: the collective of a file that does not name it.
std::map<std::string, std::string> collective_overrides(const CompareArgs& a, const Assignments& runs) {
  std::map<std::string, std::string> named;
  for (const auto& c : a.collectives) {
    const auto [label, value] = split_assignment("--collective", c);
    if (named.count(label))
      throw UsageError(fmt::format("--collective {}: given twice for that label", terminal_safe(label)));
    if (!find_collective(value) || value == "pingpong" || value == "uni_bw" || value == "bi_bw")
      throw UsageError(
          fmt::format("--collective {}: '{}' is not an nccl-tests collective (all_reduce, all_gather, "
                      "reduce_scatter, alltoall, broadcast, reduce, gather, scatter, sendrecv)",
                      terminal_safe(label), terminal_safe(value)));
    bool known = false;
    for (const auto& r : runs) known = known || r.first == label;
    if (!known) throw UsageError(fmt::format("--collective {}: no --run has that label", terminal_safe(label)));
    named[label] = value;
  }
  return named;
}

// One result set per --run (a file, a folder or @history:...), each with points.
std::vector<ResultSet> load_runs(const Assignments& runs, const std::map<std::string, int>& ranks,
                                 const std::map<std::string, std::string>& named) {
  std::vector<ResultSet> sets;
  for (const auto& [label, path] : runs) {
    for (const ResultSet& s : sets)
      if (s.label == label) throw UsageError(fmt::format("--run {}: the label is used twice", terminal_safe(label)));
    ImportOptions io;
    if (ranks.count(label)) io.ranks = ranks.at(label);
    if (named.count(label)) io.collective = named.at(label);
    try {
      if (is_history_reference(path)) {
        try {
#if CCBENCH_HAVE_SQLITE
          sets.push_back(load_history_set(label, path, default_history_db()));
#else
          throw UsageError(fmt::format("@history: {}", kBuiltWithoutSqlite));
#endif
        } catch (const OutputError&) {
          throw;
        } catch (const UsageError& e) {
          throw UsageError(fmt::format("--run {}: {}", terminal_safe(label), terminal_safe(e.what())));
        }
      } else {
        sets.push_back(load_result_set(label, path, io));
      }
    } catch (const ImportError& e) {
      throw UsageError(fmt::format("--run {}: {}", terminal_safe(label), terminal_safe(e.what())));
    }
    if (sets.back().points.empty())
      throw UsageError(
          fmt::format("--run {}: no measured points could be read from {}{}", terminal_safe(label), terminal_safe(path),
                      sets.back().unread.empty() ? "" : " (" + terminal_safe(sets.back().unread.front()) + ")"));
  }
  for (const auto& [label, n] : ranks) {
    bool known = false;
    for (const auto& s : sets) known = known || s.label == label;
    if (!known) throw UsageError(fmt::format("--ranks {}: no --run has that label", terminal_safe(label)));
  }
  return sets;
}

// The sets compared: each --run's (with --scale RxN: its projection, and
// what it measured at that scale), then the --reference figures.
struct ComparedSets {
  std::vector<ResultSet> sets;
  std::vector<ResultSet> measured;           // with a training step: each --run as read (its curves)
  std::vector<std::size_t> source;           // per set: the --run it comes from
  std::vector<std::optional<Model>> models;  // with --scale: the model that projected it
  int scale_ranks = 0, scale_nodes = 0;
  std::string baseline_label;
};

ComparedSets scaled_sets(const CompareArgs& a, std::vector<ResultSet> sets, std::vector<std::string>& notes) {
  ComparedSets out;
  out.baseline_label = !a.baseline.empty() ? a.baseline : sets.empty() ? "" : sets.front().label;
  if (!a.workload.empty() && is_training_step_file(a.workload)) out.measured = sets;
  if (a.scale.empty()) {
    for (std::size_t i = 0; i < sets.size(); ++i) out.source.push_back(i);
    out.models.resize(sets.size());
    out.sets = std::move(sets);
    return out;
  }
  std::tie(out.scale_ranks, out.scale_nodes) = parse_scale(a.scale);
  const auto keep = [&](ResultSet set, std::size_t from, std::optional<Model> model) {
    out.sets.push_back(std::move(set)), out.source.push_back(from), out.models.push_back(std::move(model));
  };
  for (std::size_t i = 0; i < sets.size(); ++i) {
    std::string why;
    std::optional<Projection> p = project_set(sets[i], out.scale_ranks, out.scale_nodes, &why);
    if (sets[i].label == out.baseline_label) {
      if (!p)
        throw UsageError(
            fmt::format("--scale: the baseline '{}' cannot be projected: {}", terminal_safe(sets[i].label), why));
      out.baseline_label = p->set.label;
    }
    if (p) keep(std::move(p->set), i, std::move(p->model));
    else
      notes.push_back(fmt::format("'{}' cannot be projected to {} ranks on {} nodes: {}", sets[i].label,
                                  out.scale_ranks, out.scale_nodes, why));
    ResultSet at_scale = std::move(sets[i]);
    std::erase_if(at_scale.points, [&](const ImportedPoint& q) {
      return q.ranks != out.scale_ranks || (q.nodes != 0 && q.nodes != out.scale_nodes);
    });
    if (!at_scale.points.empty()) {
      at_scale.label += " (measured)";
      keep(std::move(at_scale), i, std::nullopt);
    }
  }
  // With fewer than two sets left (and no --reference to add one) the
  // projection's reason is the one error, not a note and then another.
  if (out.sets.size() + a.references.size() < 2 && !notes.empty())
    throw UsageError(
        fmt::format("--scale {}: {}; compare needs two result sets", a.scale, terminal_safe(notes.front())));
  for (const auto& n : notes) fmt::print(stderr, "ccbench compare: {}\n", terminal_safe(n));
  return out;
}

void add_references(const CompareArgs& a, std::vector<ResultSet>& sets) {
  const auto figures = published_figures();
  for (const auto& id : a.references) {
    bool found = false;
    for (const PublishedFigure& f : figures)
      if (id == "all" || id == f.id) sets.push_back(published_set(f)), found = true;
    if (!found) throw UsageError(fmt::format("--reference '{}': unknown (see --reference list)", terminal_safe(id)));
  }
}

// A training step's decision: every --run is an option, its step predicted
// from its own curves (with --scale, its scale model fills the groups no
// sweep measured) at --scale or the workload's target.
Decision decide_training_step_at(const std::string& path, const ComparedSets& c, const CostInputs& cost) {
  const TrainingWorkload w = load_training_workload(path);
  int ranks = c.scale_ranks, per_node = c.scale_ranks > 0 ? c.scale_ranks / c.scale_nodes : 0;
  if (ranks == 0) ranks = w.target_ranks, per_node = w.target_ranks_per_node;
  if (ranks == 0)
    throw UsageError(fmt::format(
        "--workload {}: a training step is decided at a scale: give --scale RANKSxNODES or target: {{ranks, "
        "ranks_per_node}} in the file",
        terminal_safe(path)));
  const StepProgram prog = derive_step(w, ranks, per_node);
  const StepFacts f = step_facts(w, prog, path);
  std::vector<StepAtScale> sets;
  for (std::size_t j = 0; j < c.measured.size(); ++j) {
    StepAtScale s;
    s.label = c.measured[j].label;
    const Model* model = nullptr;
    for (std::size_t i = 0; i < c.source.size(); ++i) {  // c.sets has gone to the comparison
      if (c.source[i] != j) continue;
      if (i < cost.profiles.size() && cost.profiles[i] && !s.cost) s.cost = &*cost.profiles[i];
      if (i < c.models.size() && c.models[i]) model = &*c.models[i];
    }
    s.predicted = true;
    if (c.measured[j].oversubscribed) {
      s.refused =
          "it was measured oversubscribed (more ranks than CPUs on a host): its times include waiting for a CPU";
      sets.push_back(std::move(s));
      continue;
    }
    try {
      const OptionStep os = predict_option_step(w, prog, c.measured[j], model);
      s.step = os.step, s.bubble_s = os.detail.bubble_s, s.modelled = os.modelled;
      for (const PhaseTime& ph : os.detail.phases) s.extrapolated = s.extrapolated || ph.extrapolated;
      s.basis = os.modelled.empty()
                    ? "predicted: measured curves"
                    : fmt::format("predicted: measured curves, {} from the scale model",
                                  os.modelled.size() == 1 ? std::string("1 curve")
                                                          : fmt::format("{} curves", os.modelled.size()));
      if (s.extrapolated) s.basis += " (a size beyond a curve's largest: its bandwidth held)";
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("--workload {}: set '{}': {}", terminal_safe(path), terminal_safe(s.label),
                                   terminal_safe(e.what())));
    }
    sets.push_back(std::move(s));
  }
  return decide_training_step(f, std::move(sets), (ranks + per_node - 1) / per_node, c.scale_ranks > 0);
}

// --cost LABEL=FILE per set (one currency), --workload, and the notes.
CostInputs cost_inputs(const CompareArgs& a, const ComparedSets& c, const Assignments& runs,
                       std::vector<std::string> notes) {
  CostInputs cost;
  cost.profiles.resize(c.sets.size());
  std::set<std::string> costed;
  for (const auto& p : a.costs)
    if (const std::string label = split_assignment("--cost", p).first; !costed.insert(label).second)
      throw UsageError(
          fmt::format("--cost {}: given twice for that label (one cost profile per result set)", terminal_safe(label)));
  for (const auto& p : a.costs) {
    const auto [label, file] = split_assignment("--cost", p);
    bool found = false;
    for (std::size_t i = 0; i < c.sets.size(); ++i)
      if (i < c.source.size() && runs[c.source[i]].first == label)
        cost.profiles[i] = load_cost_profile(file), found = true;
    if (!found) throw UsageError(fmt::format("--cost {}: no result set has that label", terminal_safe(label)));
  }
  // Prices in different currencies cannot be compared without a rate, and ccbench has none.
  const CostProfile* first_priced = nullptr;
  for (const auto& p : cost.profiles) {
    if (!p) continue;
    if (first_priced && p->currency != first_priced->currency)
      throw UsageError(fmt::format("--cost: {} is in {} and {} in {}: give every profile in one currency",
                                   terminal_safe(first_priced->file), first_priced->currency, terminal_safe(p->file),
                                   p->currency));
    if (!first_priced) first_priced = &*p;
  }
  if (!a.workload.empty() && c.measured.empty()) cost.workload = load_workload(a.workload);
  if (cost.workload && c.scale_ranks > 0 && cost.workload->gpus != c.scale_ranks) {
    notes.push_back(fmt::format("the workload names {} GPUs; --scale {} decides at {} GPUs", cost.workload->gpus,
                                a.scale, c.scale_ranks));
    cost.workload->gpus = c.scale_ranks;
  }
  cost.notes = std::move(notes);
  return cost;
}

// The report on stdout (unless --quiet) and in the files asked for; a
// stdout that fails is said after the files are written (exit 5). `json`
// makes --json's text; `csv` writes --csv's rows (sweeps only: null for replays).
int write_compare_outputs(const CompareArgs& a, const Report& report, const std::function<std::string()>& json,
                          const std::function<void(std::FILE*)>& csv) {
  std::string stdout_error;
  if (!a.quiet) {
    write_stdout(render_terminal(report, use_color(a.color)), &stdout_error);
  }
  const auto text = [](std::string s) {
    return [s = std::move(s)](std::FILE* f) { std::fwrite(s.data(), 1, s.size(), f); };
  };
  if (!a.md.empty()) write_file_atomically("--md", a.md, text(render_markdown(report)));
  if (!a.csv.empty() && csv) write_file_atomically("--csv", a.csv, csv);
  if (!a.json.empty()) write_file_atomically("--json", a.json, text(json()));
  if (!a.html.empty()) {
    const char* gp = env_value(EnvVar::gnuplot);
    const ChartImages charts = render_charts(report.charts, gp && *gp ? gp : "gnuplot");
    if (!charts.unavailable.empty())
      fmt::print(stderr, "ccbench compare: charts unavailable: {}\n", charts.unavailable);
    write_file_atomically("--html", a.html, text(render_html(report, charts)));
  }
  if (!stdout_error.empty()) {
    fmt::print(stderr, "ccbench: cannot write the report to {} (the report files are written)\n", stdout_error);
    return kExitOutput;
  }
  return kExitOk;
}

// Replay records (ccbench replay -J) are compared with replays only: null
// when no --run is one, UsageError when some are and some are not, or when an
// option of sweeps is given.
std::optional<std::vector<ReplayRun>> replay_runs(const CompareArgs& a, const Assignments& runs) {
  std::vector<ReplayRun> out;
  std::string sweep;
  for (const auto& [label, path] : runs) {
    if (!is_replay_file(path)) {
      if (sweep.empty()) sweep = label;
      continue;
    }
    for (const ReplayRun& r : out)
      if (r.label == label) throw UsageError(fmt::format("--run {}: the label is used twice", terminal_safe(label)));
    out.push_back(read_replay(label, path));
  }
  if (out.empty()) return std::nullopt;
  if (!sweep.empty())
    throw UsageError(
        fmt::format("--run {}: a replay record and --run {} is not: compare replays with replays, sweeps with sweeps",
                    terminal_safe(out.front().label), terminal_safe(sweep)));
  const std::pair<const char*, bool> sweep_only[] = {
      {"--workload", !a.workload.empty()},      {"--scale", !a.scale.empty()},      {"--cost", !a.costs.empty()},
      {"--reference", !a.references.empty()},   {"--csv", !a.csv.empty()},          {"--ranks", !a.ranks.empty()},
      {"--collective", !a.collectives.empty()}, {"--ignore-key", !a.ignore.empty()}};
  for (const auto& [flag, given] : sweep_only)
    if (given) throw UsageError(fmt::format("{}: applies to sweeps, not to replay records", flag));
  if (out.size() < 2) throw UsageError("compare: needs at least two replay records (--run LABEL=FILE twice)");
  return out;
}

int compare_replay_runs(const CompareArgs& a, std::vector<ReplayRun> runs, double alpha) {
  std::size_t baseline = 0;
  if (!a.baseline.empty()) {
    baseline = runs.size();
    for (std::size_t i = 0; i < runs.size(); ++i)
      if (runs[i].label == a.baseline) baseline = i;
    if (baseline == runs.size())
      throw UsageError(fmt::format("--baseline {}: no result set has that label", terminal_safe(a.baseline)));
  }
  const ReplayComparison c = compare_replays(std::move(runs), baseline, alpha);
  return write_compare_outputs(
      a, replay_report(c), [&] { return replay_comparison_json(c); }, nullptr);
}

int compare(const CompareArgs& a) {
  if (a.help) {
    return print_or_fail(compare_help());
  }
  for (const auto& r : a.references)
    if (r == "list") {
      return print_or_fail(reference_list());
    }
  ComparisonOptions options = comparison_options(a);
  Assignments runs;
  for (const auto& r : a.runs) runs.push_back(split_assignment("--run", r));
  check_compare_paths(a, runs);
  if (auto replays = replay_runs(a, runs)) return compare_replay_runs(a, std::move(*replays), options.alpha);
  const std::map<std::string, int> ranks = rank_overrides(a);
  const std::map<std::string, std::string> named = collective_overrides(a, runs);
  std::vector<ResultSet> measured = load_runs(runs, ranks, named);
  const std::string peer_time_note = match_peer_time_definition(measured);  // before --scale projects the times
  std::vector<std::string> notes;
  ComparedSets c = scaled_sets(a, std::move(measured), notes);
  add_references(a, c.sets);
  if (c.sets.size() < 2)
    throw UsageError("compare: needs at least two result sets (--run LABEL=PATH twice, or one and --reference)");
  if (!a.baseline.empty() || !a.scale.empty()) {
    bool found = false;
    for (std::size_t i = 0; i < c.sets.size(); ++i)
      if (c.sets[i].label == c.baseline_label) options.baseline = i, found = true;
    if (!found) throw UsageError(fmt::format("--baseline {}: no result set has that label", terminal_safe(a.baseline)));
  }
  if (!peer_time_note.empty()) notes.insert(notes.begin(), peer_time_note);
  CostInputs cost = cost_inputs(a, c, runs, notes);
  const Comparison comparison = compare_sets(std::move(c.sets), options);
  if (cost.workload)
    cost.decision = decide_workload(comparison, cost, c.models, c.source, c.scale_ranks, c.scale_nodes);
  else if (!c.measured.empty()) cost.decision = decide_training_step_at(a.workload, c, cost);
  const Report report = build_report(comparison, cost, ReportLimits{});
  return write_compare_outputs(
      a, report, [&] { return render_json(comparison, report); }, [&](std::FILE* f) { write_csv(comparison, f); });
}

}  // namespace

int run_compare(int argc, const char* const* argv) {
  try {
    return compare(parse(argc, argv));
  } catch (const UsageError& e) {
    fmt::print(stderr, "ccbench: {}\n", printable_error(e.what()));
    return exit_code_of(e);
  }
}

}  // namespace ccb
