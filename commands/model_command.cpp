#include "commands/cli_errors.hpp"
#include "common/redact.hpp"
#include "commands/option_table.hpp"
#include "common/user_file.hpp"
#include "results/json_text.hpp"
#include "commands/model_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/sweep_sizes.hpp"
#include "common/errors.hpp"
#include "kernels/dtype.hpp"
#include "results/import/importer.hpp"
#include "results/import/text_input.hpp"
#include "analysis/model/comm_model.hpp"
#include "analysis/model/library_rules.hpp"
#include "analysis/model/skewed_alltoall.hpp"
#include "results/output_file.hpp"
#include "results/stats.hpp"
#include "common/terminal_text.hpp"

namespace ccb {
namespace {

constexpr const char* kModelText = R"(usage: ccbench model fit RUN... --out MODEL.json [-q]
       ccbench model predict MODEL.json --ranks N [--nodes M] [-b MIN -e MAX -f F] [--json FILE] [--force] [-q]
       ccbench model check MODEL.json RUN... [--targets LARGE,SMALL,COVER]

fit: reads ccbench results (files or folders; nccl-tests, OSU and IMB output
too) measured at two or more rank counts and fits, per series (collective,
dtype, op, path, memory, in-place; single-node and multi-node apart, the
latter per ranks per node):
    time(n, s) = steps(n) x g(bytes per step)
An algorithm family gives the steps of an operation of s bytes at n ranks
and the bytes each step moves: ring (n-1 steps of s/n), tree (log2 n of s),
halving_doubling (log2 n of s(n-1)/(n log2 n)), linear (n-1 of s), constant
(1 of s). g, the cost of one step (its latency, bandwidth and protocol
switches), is learned from all points: a kernel regression in log-log
coordinates. The family is the library's usual algorithm (ring; constant for
point-to-point) unless another predicts left-out rank counts clearly better:
fit without one count, predict it, for each count; a median |log(predicted/
measured)| below {0}x the usual family's (and {1} lower) switches. The
model file keeps every point, score and left-out error, and NCCL's algorithm
per point when the runs recorded it (--nccl-algorithms); a note names a
series whose rank counts ran different algorithms at one size.
Runs that forced the library's algorithm (mpirun --mca
coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm N; with
--mpi-calls nonblocking --mca coll_libnbc_iallreduce_algorithm N; or
NCCL_ALGO: the run record's environment says so) are fitted apart, one
series per algorithm, with that algorithm's steps when it is known (Open MPI
all_reduce: basic_linear linear, nonoverlapping and libnbc's binomial tree,
recursive_doubling and rabenseifner with their folding of a
non-power-of-two count, ring and segmented_ring ring). Blocking and
nonblocking runs are fitted one kind at a time.

predict: the predicted table at N ranks on M nodes (marked PREDICTED): time
in microseconds with its 90% prediction interval [lo, hi], algbw = bytes /
time (GB/s, 1e9 B/s), busbw = algbw x the collective's bus factor at N ranks
(as nccl-tests). Interval: time x exp(+-w), w = sqrt((h x)^2 + noise^2), h
the 90th percentile of the left-out errors at step sizes within 2x of the
target's, x = log(N/nmax) / log(nmax/nprev) (at least 1: how much further N
lies than the step between the two largest counts), noise log(p90/p50) of
the measured iterations nearby. Flags: N beyond 8x the largest measured
count, a multi-node target from single-node fits or another ranks per node,
two counts only (no left-out check: h = 0.25 per step beyond the largest
count); "extr" marks a step size outside the measured ones; an interval
wider than 100x either way prints "unbounded" (JSON null). Sizes: the grid of
-b -e -f (factor 2 by default), else the sizes the fit's largest count was
asked for, rounded per collective as a sweep at N ranks rounds them (count:
elements per rank, as the sweep prints it); sizes under one element per rank
are left out and counted. A series whose median left-out error is above 50%
is an unusable fit (it does not predict its own rank counts): it is left out
with a note, and when every series is, predict exits 1 with one line;
--force prints them, every row marked UNUSABLE. --json FILE: the points with
the measured points' field names (bytes, count, time_us, algbw_gbps,
busbw_gbps) plus time_lo_us, time_hi_us, interval and the series' unusable.
The library's own choice: when a series has only forced fits and the runs'
library has tabulated fixed decision rules (Open MPI 4.1.x all_reduce:
coll/tuned's for blocking calls, coll/libnbc's for nonblocking ones), a
first table predicts what the library does unforced: each size from the fit
of the algorithm its rules choose at N ranks, the rule printed ("# assumes
...") and the algorithm named at the end of each row; a size whose algorithm
was not fitted prints nan and NOT FITTED (JSON: assumes, why, fitted).

check: predicts every point of the measured RUNs (at their own rank and node
counts) and prints, per point, measured and predicted time, the error
(predicted - measured) / measured and whether the 90% interval holds the
measurement ("unb.": the interval is unbounded and counts as not holding;
0-byte points are not scored); then the median |error| for sizes >= 1 MiB and below, and the
share of points inside their interval, against --targets (default 15,30,70:
<= 15% and <= 30% median error, >= 70% covered). Exit 1 when a target is
missed (like a rejected acceptance). "[switch]": NCCL ran another algorithm
at this point than the fit saw at the same size at its largest rank count
(both recorded with --nccl-algorithms); the summary names the switch, which
the model does not know. Those points count toward the targets too. A run
that forced nothing is checked against the library's-choice prediction when
the model has no unforced fit; the summary counts the points per algorithm
and rule, and a point whose algorithm was not fitted misses the targets.

Options of fit:
{2}Options of predict:
{3}Options of check:
{4}
Exit codes: 0 done, 1 model check: a target missed, model predict: every fit
unusable; 2 bad input (one line on stderr), 5 output not written.
docs/model.md has the formulas and the validation on the emulated cluster.
)";

// Each verb's options, declared once (commands/option_table.hpp).
struct FitArgs {
  std::vector<std::string> inputs;
  std::string out;
  bool quiet = false;
};
std::vector<CommandOption> fit_options(FitArgs& a) {
  return {option("--out", "MODEL.json", "the model file (required)", a.out),
          flag("-q,--quiet", "no table of the fits", a.quiet)};
}

struct PredictArgs {
  std::string file, ranks, nodes, min_b, max_b, factor, json_out, traffic;
  bool quiet = false, force = false, nodes_given = false;
};
std::vector<CommandOption> predict_options(PredictArgs& a) {
  return {option("--ranks,-N", "N", "the rank count to predict at (required)", a.ranks),
          {"--nodes", "M", "the node count (default 1: the ranks on one node)",
           [&a](CLI::App& app) {
             return app.add_option("--nodes", a.nodes)->each([&a](const std::string&) { a.nodes_given = true; });
           }},
          option("-b,--minbytes", "SIZE", "smallest size of the predicted grid", a.min_b),
          option("-e,--maxbytes", "SIZE", "largest size of the predicted grid", a.max_b),
          option("-f,--stepfactor", "F", "the grid's factor (default 2)", a.factor),
          option("--json", "FILE", "the predicted points as JSON", a.json_out),
          option("--traffic", "MODEL",
                 "predict alltoallv under this traffic model (ccbench alltoallv --traffic) from the model's alltoall "
                 "fits: each size at the alltoall time of its busiest rank's bytes (docs/alltoallv.md)",
                 a.traffic),
          flag("--force", "print unusable fits too, every row marked UNUSABLE", a.force),
          flag("-q,--quiet", "no table", a.quiet)};
}

struct CheckArgs {
  std::vector<std::string> args;
  std::string targets = "15,30,70";
};
std::vector<CommandOption> check_options(CheckArgs& a) {
  return {option("--targets", "LARGE,SMALL,COVER",
                 fmt::format("median |error| in percent at >= 1 MiB and below, and the share of points inside their "
                             "interval (default {})",
                             a.targets),
                 a.targets)};
}

std::string model_help() {
  FitArgs fit;
  PredictArgs predict;
  CheckArgs check;
  return fmt::format(kModelText, kFamilyClearlyBetter, kFamilyMargin, option_list(fit_options(fit)),
                     option_list(predict_options(predict)), option_list(check_options(check)));
}

std::string read_model_file(const std::string& file) { return read_user_file(file, "model:"); }

std::string fit_summary(const Model& m, const std::string& out) {
  std::string s = fmt::format("# ccbench model fit: {} series from {} file(s), backend {}\n", m.series.size(),
                              m.inputs.size(), m.backend.empty() ? "unknown" : m.backend);
  s += fmt::format("# {:<72} {:>10} {:>16} {:>6} {:>9}\n", "series", "ranks", "family", "points", "left-out");
  for (const ModelSeries& x : m.series) {
    double left = kNaN;
    for (const FamilyScore& f : x.scores)
      if (f.family == x.family) left = f.median_left_out;
    std::string counts;
    for (int c : x.counts) counts += (counts.empty() ? "" : ",") + std::to_string(c);
    s += fmt::format("  {:<72} {:>10} {:>16} {:>6} {:>9}\n", x.key(), counts, family_name(x.family), x.points.size(),
                     std::isnan(left) ? "n/a" : fmt::format("{:.1f}%", 100 * (std::exp(left) - 1)));
  }
  s += "# left-out: median error predicting each rank count from the others (ccbench model --help: how the family is "
       "chosen)\n";
  for (const std::string& n : m.notes) s += fmt::format("# note: {}\n", n);
  s += fmt::format("# written: {}\n", out);
  return s;
}

// One subcommand's command line: `add` declares its options; CLI11's errors
// become one usage line.
template <class Add>
void parse_subcommand(const char* name, int argc, const char* const* argv, Add&& add) {
  CLI::App app{fmt::format("ccbench model {}", name)};
  app.set_help_flag();
  app.allow_extras(false);
  add(app);
  parse_or_usage_error(app, argc, argv, fmt::format("model {}", name), "model");
}

int fit(int argc, const char* const* argv) {
  FitArgs a;
  parse_subcommand("fit", argc, argv, [&](CLI::App& app) {
    app.add_option("inputs", a.inputs);
    declare_options(app, fit_options(a));
  });
  const std::vector<std::string>& inputs = a.inputs;
  const std::string& out = a.out;
  const bool quiet = a.quiet;
  if (inputs.empty()) throw UsageError("model fit: give the result files or folders to fit (see ccbench model --help)");
  if (out.empty()) throw UsageError("model fit: --out MODEL.json is required");
  std::vector<std::pair<std::string, std::string>> in;
  for (const auto& p : inputs) in.emplace_back("input", p);
  check_distinct_paths({{"--out", out}}, in);
  check_output_writable("--out", out);
  const Model m = fit_model(load_measured_runs(inputs, "model fit"));
  write_file_atomically("--out", out, model_to_json(m));
  return quiet ? kExitOk : print_or_fail(terminal_safe_lines(fit_summary(m, out)));
}

std::string left_out_text(const ModelSeries& x) {
  return fmt::format("{:.0f}%", 100 * (std::exp(x.left_out_median()) - 1));
}

std::string interval_cell(double v, bool unbounded) { return unbounded ? "unbounded" : fmt::format("{:.2f}", v); }

std::string prediction_table(const Model& m, const std::string& file, const std::vector<Prediction>& preds,
                             const std::vector<std::string>& notes) {
  std::string s;
  for (const Prediction& p : preds) {
    const ModelSeries& x = *p.series;
    const bool unusable = x.unusable();
    s += fmt::format("# PREDICTED (not measured): {}, {} ranks{}\n", x.collective, p.ranks,
                     p.nodes > 0 ? fmt::format(" on {} node{}", p.nodes, p.nodes == 1 ? "" : "s") : "");
    s += fmt::format("# model {} (backend {}), fitted at {} to {} ranks\n", file, m.backend, x.counts.front(),
                     x.counts.back());
    if (p.by_rules) {
      ModelSeries group = x;
      group.forced.clear();
      s += fmt::format("# series: {}, the library's choice\n", group.key());
      s += fmt::format("# algorithm per size: {}'s fixed decision rules{}; each from the fit of runs that forced it\n",
                       terminal_safe(m.library.substr(0, m.library.find(','))),
                       m.mpi_calls == "nonblocking" ? " for nonblocking calls (coll/libnbc)" : "");
      std::vector<std::string> seen;
      for (const PredictedPoint& q : p.points) {
        const std::string line = fmt::format(
            "# assumes {}: {}{}", q.assumes, q.why,
            q.from ? fmt::format(" (family {})", family_name(q.from->family)) : ": NOT FITTED: force it in sweeps");
        if (std::find(seen.begin(), seen.end(), line) == seen.end()) seen.push_back(line);
      }
      for (const std::string& line : seen) s += line + "\n";
    } else {
      s += fmt::format("# series: {}\n", x.key());
      s += fmt::format("# family {}: {}\n", family_name(x.family), x.chosen_by);
    }
    if (unusable)
      s += fmt::format(
          "# flag: UNUSABLE fit: its median left-out error is {} (bound {:.0f}%): printed because of --force\n",
          left_out_text(x), 100 * (std::exp(ModelSeries::kUnusableLeftOut) - 1));
    for (const std::string& f : p.flags) s += fmt::format("# flag: {}\n", f);
    s += fmt::format("# {:>10} {:>12} {:>8} {:>6} {:>11} {:>11} {:>11} {:>8} {:>8} {:>5}\n", "size", "count", "type",
                     "redop", "time", "lo(90%)", "hi(90%)", "algbw", "busbw", "step");
    s += fmt::format("# {:>10} {:>12} {:>8} {:>6} {:>11} {:>11} {:>11} {:>8} {:>8} {:>5}\n", "(B)", "(elements)", "",
                     "", "(us)", "(us)", "(us)", "(GB/s)", "(GB/s)", "");
    for (const PredictedPoint& q : p.points)
      s +=
          fmt::format("  {:>10} {:>12} {:>8} {:>6} {:>11.2f} {:>11} {:>11} {:>8.2f} {:>8.2f} {:>5}{}\n", q.bytes,
                      q.count, x.dtype.empty() ? "-" : terminal_safe(x.dtype), x.op.empty() ? "-" : terminal_safe(x.op),
                      q.time_us, interval_cell(q.lo_us, q.unbounded), interval_cell(q.hi_us, q.unbounded), q.algbw_gbps,
                      q.busbw_gbps, q.size_extrapolated ? "extr" : "",
                      unusable            ? " UNUSABLE"
                      : q.assumes.empty() ? ""
                                          : " " + q.assumes.substr(0, q.assumes.find(' ')));
    s += "\n";
  }
  for (const std::string& n : notes) s += fmt::format("# left out: {}\n", n);
  s += fmt::format(
      "# time: predicted microseconds per operation; lo/hi: 90% prediction interval (\"unbounded\": wider\n"
      "# than {:g}x either way, the data cannot bound it); count: elements per rank, as the sweep prints it;\n"
      "# step extr: the algorithm's per-step message at this rank count lies outside the per-step messages the fit\n"
      "# measured (read off the fit beyond its data, even at a size the sweeps ran); a last word names the\n"
      "# algorithm the library's rules choose there.\n",
      kUnboundedFactor);
  return s;
}

// model predict --traffic: alltoallv read off the alltoall (and sendrecv) fits.
std::string skewed_table(const std::string& file, const std::vector<SkewedPrediction>& preds) {
  std::string s;
  for (const SkewedPrediction& p : preds) {
    const ModelSeries& x = *p.series;
    s += fmt::format("# PREDICTED (not measured): alltoallv, traffic {}, {} ranks{}\n", terminal_safe(p.traffic),
                     p.ranks, p.nodes > 0 ? fmt::format(" on {} node{}", p.nodes, p.nodes == 1 ? "" : "s") : "");
    s += fmt::format("# from {} of {} (fitted at {} to {} ranks)\n", x.key(), file, x.counts.front(), x.counts.back());
    s += p.link ? fmt::format(
                      "# and {} (the link bound): each size at the larger of the alltoall at its size and\n"
                      "# the sendrecv at its busiest rank's bytes across its link (docs/alltoallv.md)\n",
                      p.link->key())
                : "# each size at the alltoall time of its busiest rank's bytes (no sendrecv fit for the link bound:\n"
                  "# docs/alltoallv.md)\n";
    for (const ModelSeries* f : {p.series, p.link})
      if (f && f->unusable())
        s += fmt::format("# flag: UNUSABLE fit {}: its median left-out error is {}: printed because of --force\n",
                         f->collective, left_out_text(*f));
    for (const std::string& f : p.flags) s += fmt::format("# flag: {}\n", f);
    s += fmt::format("# {:>10} {:>7} {:>12} {:>12} {:>8} {:>11} {:>11} {:>11} {:>8} {:>8}\n", "size", "busiest",
                     "its bytes", "link bytes", "bound", "time", "lo(90%)", "hi(90%)", "algbw", "busbw");
    s += fmt::format("# {:>10} {:>7} {:>12} {:>12} {:>8} {:>11} {:>11} {:>11} {:>8} {:>8}\n", "(B)", "(rank)", "(B)",
                     "(B)", "", "(us)", "(us)", "(us)", "(GB/s)", "(GB/s)");
    const double factor = p.ranks > 1 ? (p.ranks - 1.0) / p.ranks : 1.0;
    for (const SkewedPoint& q : p.points) {
      const double algbw = static_cast<double>(q.busiest_bytes) / (q.at.time_us * 1e3);
      s += fmt::format("  {:>10} {:>7} {:>12} {:>12} {:>8} {:>11.2f} {:>11} {:>11} {:>8.3g} {:>8.3g}\n", q.bytes,
                       q.busiest_rank, q.busiest_bytes, p.link ? std::to_string(q.link_bytes) : "-",
                       q.bound.empty() ? "-" : q.bound, q.at.time_us, interval_cell(q.at.lo_us, q.at.unbounded),
                       interval_cell(q.at.hi_us, q.at.unbounded), algbw, algbw * factor);
    }
    s += "\n";
  }
  s += "# size: bytes a rank sends on average (moe: the bytes of a rank's tokens); busiest: the rank that\n"
       "# moves the most and its bytes (sent or received, the larger); link bytes: the most any rank moves across its "
       "link (its own left out); bound:\n"
       "# which fit set the time; time: predicted microseconds, lo/hi its 90% interval; algbw = its bytes /\n"
       "# time, busbw = algbw x (n-1)/n, as ccbench alltoallv and nccl-tests' alltoallv print them.\n";
  return s;
}

std::string prediction_json(const Model& m, const std::string& file, const std::vector<Prediction>& preds) {
  using nlohmann::ordered_json;
  ordered_json j;
  j["predicted"] = true;
  j["model"] = file;
  j["backend"] = m.backend;
  j["series"] = ordered_json::array();
  for (const Prediction& p : preds) {
    const ModelSeries& x = *p.series;
    ordered_json o{{"collective", x.collective},
                   {"dtype", x.dtype},
                   {"op", x.op},
                   {"path", x.path},
                   {"memory", x.memory},
                   {"in_place", x.in_place},
                   {"ranks", p.ranks},
                   {"nodes", p.nodes},
                   {"family", family_name(x.family)},
                   {"forced_algorithm", p.forced},
                   {"by_library_rules", p.by_rules},
                   {"fitted_ranks", x.counts},
                   {"flags", p.flags}};
    o["points"] = ordered_json::array();
    for (const PredictedPoint& q : p.points)
      o["points"].push_back({{"bytes", q.bytes},
                             {"count", q.count},
                             {"time_us", q.time_us},
                             {"time_lo_us", q.unbounded ? ordered_json() : ordered_json(q.lo_us)},
                             {"time_hi_us", q.unbounded ? ordered_json() : ordered_json(q.hi_us)},
                             {"interval", q.unbounded ? "unbounded" : "90%"},
                             {"algbw_gbps", q.algbw_gbps},
                             {"busbw_gbps", q.busbw_gbps},
                             {"extrapolated", q.size_extrapolated}});
    for (std::size_t i = 0; i < p.points.size(); ++i)
      if (const PredictedPoint& q = p.points[i]; !q.assumes.empty())
        o["points"][i]["assumes"] = q.assumes, o["points"][i]["why"] = q.why,
        o["points"][i]["fitted"] = q.from != nullptr;
    o["unusable"] = x.unusable();
    j["series"].push_back(std::move(o));
  }
  return json_text(j, 1) + "\n";
}

int count_flag(const std::string& flag, const std::string& v, long max) {
  const auto n = parse_uint(v);
  if (!n || *n < 1 || static_cast<long>(*n) > max)
    throw UsageError(
        fmt::format("model predict: {} '{}': expected a whole number from 1 to {}", flag, terminal_safe(v), max));
  return static_cast<int>(*n);
}

// The sizes a series is predicted at, as a sweep at `ranks` would measure
// them: the requested grid (-b -e -f, else the sizes the fit's largest rank
// count asked for), rounded per collective (plan_points); sizes under one
// element per rank are left out, their requested sizes kept in `below`.
std::vector<PlannedSize> planned_sizes(const ModelSeries& x, const std::vector<std::size_t>& grid, int ranks,
                                       std::set<std::size_t>& below) {
  std::vector<std::size_t> requested = grid;
  if (requested.empty()) {
    for (const ModelPoint& p : x.points)
      if (p.ranks == x.counts.back()) requested.push_back(p.requested_bytes ? p.requested_bytes : p.bytes);
    std::sort(requested.begin(), requested.end());
    requested.erase(std::unique(requested.begin(), requested.end()), requested.end());
  }
  const Collective* c = find_collective(x.collective);
  const auto d = parse_dtype(x.dtype);
  std::vector<PlannedSize> out;
  if (!c || !d) {  // a series ccbench cannot plan (an imported name): the sizes as given
    for (std::size_t r : requested) out.push_back({r, d ? r / info(*d).size : 0});
    return out;
  }
  for (const SizePoint& sp : plan_points(requested, *c, *d, ranks, false)) {
    if (sp.chunk == 0) {
      below.insert(sp.requested_bytes);
      continue;
    }
    if (out.empty() || out.back().bytes != sp.bytes) out.push_back({sp.bytes, sp.shown_count()});
  }
  return out;
}

int predict_cmd(int argc, const char* const* argv) {
  PredictArgs a;
  parse_subcommand("predict", argc, argv, [&](CLI::App& app) {
    app.add_option("model", a.file);
    declare_options(app, predict_options(a));
  });
  const std::string &file = a.file, &ranks_s = a.ranks, &nodes_s = a.nodes, &b = a.min_b, &e = a.max_b, &f = a.factor,
                    &json_out = a.json_out;
  const bool quiet = a.quiet, force = a.force, nodes_given = a.nodes_given;
  if (file.empty()) throw UsageError("model predict: give the model file (from ccbench model fit)");
  if (ranks_s.empty()) throw UsageError("model predict: --ranks N is required");
  const int ranks = count_flag("--ranks", ranks_s, 1 << 24);
  if (ranks < 2) throw UsageError("model predict: --ranks 1: one rank does not communicate");
  const int nodes = nodes_s.empty() && !nodes_given ? 0 : count_flag("--nodes", nodes_s, ranks);
  if (nodes > 0 && ranks % nodes != 0)
    throw UsageError(fmt::format("model predict: --ranks {} is not a multiple of --nodes {}", ranks, nodes));
  std::vector<std::size_t> sizes;
  if (!b.empty() || !e.empty()) {
    const auto lo = parse_size(b.empty() ? e : b), hi = parse_size(e.empty() ? b : e);
    if (!lo || !hi || *lo < 1 || *hi < *lo)
      throw UsageError("model predict: -b/-e: expected sizes with -b <= -e (8, 64K, 1M, 2G)");
    long factor = 2;
    if (!f.empty()) {
      const auto v = parse_uint(f);
      if (!v || *v < 2 || *v > 1024)
        throw UsageError(fmt::format("model predict: -f '{}': a factor from 2 to 1024", terminal_safe(f)));
      factor = static_cast<long>(*v);
    }
    sizes = sweep_sizes(*lo, *hi, 0, factor);
  }
  if (!json_out.empty()) {
    check_distinct_paths({{"--json", json_out}}, {{"model", file}});
    check_output_writable("--json", json_out);
  }
  const Model m = model_from_json(read_model_file(file), file);
  if (!a.traffic.empty()) {
    if (!json_out.empty())
      throw UsageError("model predict: --json with --traffic: the alltoallv table has no JSON yet");
    const TrafficModel traffic = parse_traffic(a.traffic);
    if (sizes.empty())  // the alltoall fits' measured sizes
      for (const ModelSeries& x : m.series)
        if (x.collective == "alltoall")
          for (const ModelPoint& q : x.points) sizes.push_back(q.bytes);
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    std::vector<SkewedPrediction> skewed = predict_alltoallv(m, ranks, nodes, traffic, sizes);
    if (!force) std::erase_if(skewed, [](const SkewedPrediction& p) { return p.series->unusable(); });
    if (skewed.empty())
      throw UsageError(fmt::format(
          "model predict --traffic: {} has no usable out-of-place alltoall fit to read alltoallv off: fit sweeps of "
          "ccbench alltoall at two or more rank counts",
          file));
    return quiet ? kExitOk : print_or_fail(terminal_safe_lines(skewed_table(file, skewed)));
  }
  std::set<std::size_t> below;
  std::vector<Prediction> preds =
      predict_planned(m, ranks, nodes, [&](const ModelSeries& x) { return planned_sizes(x, sizes, ranks, below); });
  // A fit that does not predict its own rank counts predicts nothing else either.
  std::vector<std::string> notes;
  std::size_t unusable = 0;
  for (const Prediction& p : preds) unusable += p.series->unusable() ? 1 : 0;
  if (unusable > 0 && !force) {
    const auto worst = std::max_element(preds.begin(), preds.end(), [](const Prediction& x, const Prediction& y) {
      return x.series->left_out_median() < y.series->left_out_median();
    });
    if (unusable == preds.size()) {
      fmt::print(stderr,
                 "ccbench: model predict: {}: every fit is unusable: median left-out error up to {} (bound {:.0f}%): "
                 "they do not predict the rank counts they were fitted on; refit on quieter runs, or --force to print "
                 "anyway\n",
                 terminal_safe(file), left_out_text(*worst->series),
                 100 * (std::exp(ModelSeries::kUnusableLeftOut) - 1));
      return kExitRejected;
    }
    for (const Prediction& p : preds)
      if (p.series->unusable())
        notes.push_back(fmt::format("{}: unusable fit (median left-out error {}, bound {:.0f}%); --force prints it",
                                    terminal_safe(p.series->key()), left_out_text(*p.series),
                                    100 * (std::exp(ModelSeries::kUnusableLeftOut) - 1)));
    std::erase_if(preds, [](const Prediction& p) { return p.series->unusable(); });
  }
  if (!below.empty())
    notes.push_back(
        fmt::format("{} size(s) under one element per rank at {} ranks (the sweep would measure 0 bytes there)",
                    below.size(), ranks));
  if (!json_out.empty()) write_file_atomically("--json", json_out, prediction_json(m, file, preds));
  return quiet ? kExitOk : print_or_fail(terminal_safe_lines(prediction_table(m, file, preds, notes)));
}

struct Checked {
  std::string series;
  int ranks, nodes;
  std::uint64_t bytes;
  double measured, predicted, lo, hi;
  bool unbounded;            // an unbounded interval holds everything and so proves nothing: it counts as missed
  std::string switched;      // algorithm_switch: NCCL ran another algorithm than the fit saw
  std::string assumes, why;  // by the library's rules: the algorithm they choose here, and the rule
  bool fitted = true;        // false: the rules choose an algorithm the model has no fit of
};

// --targets LARGE,SMALL,COVER in percent: median |error| at >= 1 MiB and
// below, and the share of measurements the 90% intervals must hold.
using CheckTargets = std::array<double, 3>;
CheckTargets parse_check_targets(const std::string& targets) {
  CheckTargets target{};
  std::stringstream in(targets);
  std::string item;
  int i = 0;
  while (std::getline(in, item, ',')) {
    const auto v = parse_double(item);
    if (i >= 3 || !v || *v < 0 || *v > 1000) i = 9;
    else target[static_cast<std::size_t>(i++)] = *v;
  }
  if (!targets.empty() && targets.back() == ',') i = 9;  // "15,30,70,": a fourth, empty target
  if (i != 3)
    throw UsageError(fmt::format("model check: --targets '{}': expected LARGE,SMALL,COVER in percent (15,30,70)",
                                 terminal_safe(targets)));
  return target;
}

// The sizes of measured points, ascending, each once.
std::vector<std::uint64_t> distinct_sizes(const std::vector<const ImportedPoint*>& points) {
  std::vector<std::uint64_t> sizes;
  for (const ImportedPoint* p : points) sizes.push_back(p->bytes);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

// Measured alltoallv points, predicted from the alltoall fits under their
// runs' traffic model (config.traffic; a set of several models is refused).
void checked_alltoallv(const Model& m, const std::vector<ResultSet>& runs, std::vector<Checked>& rows) {
  for (const ResultSet& r : runs) {
    std::map<std::pair<int, int>, std::vector<const ImportedPoint*>> by_scale;
    for (const ImportedPoint& p : r.points)
      if (p.collective == "alltoallv" && p.in_place == 0 && p.ranks >= 2 && p.time_us > 0 && p.bytes > 0)
        by_scale[{p.ranks, p.nodes}].push_back(&p);
    if (by_scale.empty()) continue;
    const auto t = r.environment.find("config.traffic");
    if (t == r.environment.end())
      throw UsageError(fmt::format("model check: {}: alltoallv runs without a recorded traffic model", r.label));
    if (t->second.find(" | ") != std::string::npos)
      throw UsageError(
          fmt::format("model check: {}: alltoallv runs of several traffic models ({}): check them one set at a time",
                      r.label, t->second));
    const TrafficModel traffic = parse_traffic(t->second);
    for (const auto& [scale, points] : by_scale) {
      for (const SkewedPrediction& sp :
           predict_alltoallv(m, scale.first, scale.second, traffic, distinct_sizes(points)))
        for (const ImportedPoint* p : points) {
          const ModelSeries& x = *sp.series;
          if (p->dtype != x.dtype || p->path != x.path || p->memory != x.memory) continue;
          const auto q = std::find_if(sp.points.begin(), sp.points.end(),
                                      [&](const SkewedPoint& z) { return z.bytes == p->bytes; });
          if (q == sp.points.end()) continue;
          rows.push_back({fmt::format("alltoallv {} from {}{}", sp.traffic, x.key(false), sp.link ? " + sendrecv" : ""),
                          scale.first, scale.second, p->bytes, p->time_us, q->at.time_us, q->at.lo_us, q->at.hi_us,
                          q->at.unbounded, "", "", "", true});
        }
    }
  }
}

// Every measured point of `runs` a series of `m` predicts, with its prediction.
std::vector<Checked> checked_rows(const Model& m, const std::vector<ResultSet>& runs,
                                  std::set<std::string>& forced_fits) {
  // Measured points by scale, then each scale predicted at its sizes.
  std::map<std::pair<int, int>, std::vector<const ImportedPoint*>> by_scale;
  for (const ResultSet& r : runs)
    for (const ImportedPoint& p : r.points)
      if (p.ranks >= 2 && p.time_us > 0 && p.bytes > 0)
        by_scale[{p.ranks, p.nodes}].push_back(&p);  // 0 B: nothing to score
  std::vector<Checked> rows;
  for (const auto& [scale, points] : by_scale) {
    for (const Prediction& pred : predict(m, scale.first, scale.second, distinct_sizes(points))) {
      const ModelSeries& x = *pred.series;
      for (const ImportedPoint* p : points) {
        if (p->collective != x.collective || p->dtype != x.dtype || p->op != x.op || p->path != x.path ||
            p->memory != x.memory || p->in_place != x.in_place || p->forced_algorithm != pred.forced)
          continue;
        const auto q = std::find_if(pred.points.begin(), pred.points.end(),
                                    [&](const PredictedPoint& z) { return z.bytes == p->bytes; });
        const ModelSeries& from = q->from ? *q->from : x;
        if (!from.forced.empty()) forced_fits.insert(algorithm_label(from.forced, from.collective));
        rows.push_back({from.key(false), scale.first, scale.second, p->bytes, p->time_us, q->time_us, q->lo_us,
                        q->hi_us, q->unbounded, algorithm_switch(from, p->bytes, p->algorithm), q->assumes, q->why,
                        q->from != nullptr});
      }
    }
  }
  checked_alltoallv(m, runs, rows);
  return rows;
}

// The table and its summary against the targets; met: every target held.
std::string check_report(const std::string& file, const std::vector<Checked>& rows,
                         const std::set<std::string>& forced_fits, const CheckTargets& target, bool& met) {
  std::string out = fmt::format("# ccbench model check: {} against {} measured point(s)\n", file, rows.size());
  if (!forced_fits.empty())
    out += fmt::format("# predicted from the fits of runs that forced {}\n", fmt::join(forced_fits, ", "));
  out += fmt::format("# {:>5} {:>5} {:>10} {:>12} {:>12} {:>8} {:>7}  {}\n", "ranks", "nodes", "size(B)",
                     "measured(us)", "predicted", "error", "in 90%", "series");
  std::vector<double> large, small;
  std::size_t covered = 0;
  std::map<std::string, std::size_t> switches;                                 // algorithm_switch -> rows
  std::map<std::tuple<bool, std::string, std::string>, std::size_t> by_rules;  // (fitted, assumes, why) -> rows
  for (const Checked& r : rows) {
    if (!r.assumes.empty()) ++by_rules[{r.fitted, r.assumes, r.why}];
    if (!r.fitted) {  // nothing predicted: it holds no interval and has no error to count
      out += fmt::format("  {:>5} {:>5} {:>10} {:>12.1f} {:>12} {:>8} {:>7}  {}\n", r.ranks, r.nodes, r.bytes,
                         r.measured, "-", "-", "NO", "not fitted: " + r.assumes);
      continue;
    }
    const double e = (r.predicted - r.measured) / r.measured;
    const bool in = !r.unbounded && r.measured >= r.lo && r.measured <= r.hi;
    covered += in;
    (r.bytes >= (1u << 20) ? large : small).push_back(std::fabs(e));
    out += fmt::format("  {:>5} {:>5} {:>10} {:>12.1f} {:>12.1f} {:>+7.1f}% {:>7}  {}{}\n", r.ranks, r.nodes, r.bytes,
                       r.measured, r.predicted, 100 * e,
                       r.unbounded ? "unb."
                       : in        ? "yes"
                                   : "NO",
                       r.series, r.switched.empty() ? "" : " [switch]");
    if (!r.switched.empty()) ++switches[r.switched];
  }
  const auto median_line = [&](const char* what, std::vector<double> v, double limit) {
    if (v.empty()) return fmt::format("#   {}: no points\n", what);
    std::sort(v.begin(), v.end());
    const double med = 100 * quantile_sorted(v, 0.5);
    met = met && med <= limit;
    return fmt::format("#   {}: median |error| {:.1f}% over {} points (target <= {:g}%): {}\n", what, med, v.size(),
                       limit, med <= limit ? "met" : "MISSED");
  };
  out += "# summary\n";
  out += median_line("sizes >= 1 MiB", large, target[0]);
  out += median_line("sizes <  1 MiB", small, target[1]);
  const double cover = 100.0 * static_cast<double>(covered) / static_cast<double>(rows.size());
  met = met && cover >= target[2];
  out += fmt::format("#   90% intervals hold {} of {} measurements ({:.0f}%, target >= {:g}%): {}\n", covered,
                     rows.size(), cover, target[2], cover >= target[2] ? "met" : "MISSED");
  // Points predicted by the library's rules: which algorithm, by which rule;
  // one the model has no fit of misses every target.
  for (const auto& [key, n] : by_rules) {
    const auto& [fitted, assumes, why] = key;
    met = met && fitted;
    out += fmt::format("#   {} point{} where the library chose: {} ({}){}\n", n, n == 1 ? "" : "s", assumes, why,
                       fitted ? "" : ": NOT FITTED, so not predicted (targets missed)");
  }
  // Rows whose NCCL algorithm differs from the fit's at its largest count:
  // their error is the switch, which the model does not know.
  for (const auto& [what, n] : switches)
    out += fmt::format("#   [switch] {} point{}: NCCL ran {} (a switch the model does not know)\n", n,
                       n == 1 ? "" : "s", terminal_safe(what));
  return out;
}

int check_cmd(int argc, const char* const* argv) {
  CheckArgs a;
  parse_subcommand("check", argc, argv, [&](CLI::App& app) {
    app.add_option("args", a.args);
    declare_options(app, check_options(a));
  });
  const std::vector<std::string>& args = a.args;
  const std::string& targets = a.targets;
  if (args.size() < 2) throw UsageError("model check: give the model file and one or more measured runs");
  const CheckTargets target = parse_check_targets(targets);
  const std::string file = args.front();
  const Model m = model_from_json(read_model_file(file), file);
  const std::vector<ResultSet> runs = load_measured_runs({args.begin() + 1, args.end()}, "model check");
  std::set<std::string> forced_fits;  // the forced algorithms whose fits predicted rows (said once, not per row)
  const std::vector<Checked> rows = checked_rows(m, runs, forced_fits);
  if (rows.empty())
    throw UsageError(
        "model check: no measured point matches a series of the model (collective, dtype, op, path, memory, in-place, "
        "forced algorithm)");
  bool met = true;
  const std::string out = check_report(file, rows, forced_fits, target, met);
  const int code = print_or_fail(terminal_safe_lines(out));
  return code != kExitOk ? code : met ? kExitOk : kExitRejected;
}

}  // namespace

int run_model(int argc, const char* const* argv) {
  try {
    const std::string sub = argc > 1 ? argv[1] : "";
    if (sub == "fit") return fit(argc - 1, argv + 1);
    if (sub == "predict") return predict_cmd(argc - 1, argv + 1);
    if (sub == "check") return check_cmd(argc - 1, argv + 1);
    if (sub == "-h" || sub == "--help" || sub == "help") return print_or_fail(model_help());
    throw UsageError(sub.empty() ? "model: give fit or predict (see ccbench model --help)"
                                 : fmt::format("model: unknown command '{}' (fit or predict; see ccbench model --help)",
                                               terminal_safe(sub)));
  } catch (const UsageError& e) {
    fmt::print(stderr, "ccbench: {}\n", printable_error(e.what()));
    return exit_code_of(e);
  }
}

}  // namespace ccb
