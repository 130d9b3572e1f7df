#include "commands/baseline_command.hpp"
#include "common/redact.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "commands/cli_errors.hpp"
#include "commands/option_table.hpp"
#include "analysis/accept/baseline.hpp"
#include "results/import/importer.hpp"
#include "results/output_file.hpp"
#include "common/terminal_text.hpp"

namespace ccb {
namespace {

const std::string kBaselineHelp = R"(usage: ccbench baseline --out FILE RUN [RUN ...]

Builds a baseline for acceptance gates (gates: baseline: FILE, max_drop: F)
from several runs. RUN is a result file or folder in any format ccbench
compare reads (a folder is one run: e.g. an accept run's raw/ folder).
Per (collective, dtype, op, ranks, nodes, size): each run's median, then
the median over runs of busbw, algbw and time, after removing outlying runs:
  |value - median| > 3 x 1.4826 x MAD and > 1% of the median (3+ runs).
Outliers are listed on stdout and in the file.

Options:
)";

struct BaselineArgs {
  std::string out;
  std::vector<std::string> runs;
  bool help = false;
};

// The options, declared once (commands/option_table.hpp).
std::vector<CommandOption> baseline_options(BaselineArgs& a) {
  return {option("--out", "FILE", "the baseline file to write (required)", a.out),
          flag("-h,--help", "this text", a.help)};
}

std::string baseline_help() {
  BaselineArgs defaults;
  return kBaselineHelp + option_list(baseline_options(defaults));
}

}  // namespace

int run_baseline(int argc, const char* const* argv) {
  try {
    BaselineArgs a;
    CLI::App app{"ccbench baseline"};
    app.set_help_flag();
    app.add_option("runs", a.runs);
    declare_options(app, baseline_options(a));
    parse_or_usage_error(app, argc, argv, "baseline", "baseline");
    if (a.help) return print_or_fail(baseline_help());
    const std::string& out = a.out;
    const std::vector<std::string>& runs = a.runs;
    if (out.empty()) throw UsageError("baseline: --out FILE is required");
    if (runs.empty()) throw UsageError("baseline: give one or more runs (files or folders)");
    std::vector<std::pair<std::string, std::string>> inputs;
    for (const std::string& r : runs) inputs.emplace_back("run", r);
    check_distinct_paths({{"--out", out}}, inputs);
    check_output_writable("--out", out);
    const std::vector<ResultSet> sets = load_measured_runs(runs, "baseline");
    const Baseline b = build_baseline(sets);
    write_file_atomically("--out", out, baseline_to_json(b));
    std::string said =
        fmt::format("baseline {}: {} entries from {} runs ({})\n", out, b.entries.size(), sets.size(), kOutlierRule);
    for (const BaselineEntry& e : b.entries)
      for (const auto& [metric, m] :
           {std::pair{"busbw", &e.busbw_gbps}, {"algbw", &e.algbw_gbps}, {"time", &e.time_us}})
        for (std::size_t i : m->outliers)
          said += fmt::format(
              "  outlier: {} {} {} ranks {} nodes {} at {} B: {} {:.4g} from {} (median of the rest {:.4g})\n",
              e.collective, e.dtype, e.op, e.ranks, e.nodes, e.bytes, metric, m->values[i],
              terminal_safe(b.runs[e.runs[i]]), m->median);
    return print_or_fail(said);
  } catch (const UsageError& e) {
    fmt::print(stderr, "ccbench: {}\n", printable_error(e.what()));
    return exit_code_of(e);
  }
}

}  // namespace ccb
