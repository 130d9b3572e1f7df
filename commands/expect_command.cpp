#include "commands/expect_command.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "analysis/compare/catalogue.hpp"
#include "analysis/compare/expectation.hpp"
#include "analysis/compare/reference.hpp"
#include "commands/cli_errors.hpp"
#include "commands/option_table.hpp"
#include "common/errors.hpp"
#include "common/redact.hpp"
#include "common/terminal_text.hpp"
#include "results/import/importer.hpp"
#include "results/output_file.hpp"

namespace ccb {
namespace {

std::string expect_help_text() {
  return fmt::format(R"(usage: ccbench expect RUN [RUN ...] [--link-rate RATE] [--nics-per-node K]

Is this number normal? Each series of each run (a result file or folder in
any format ccbench compare reads: ccbench, nccl-tests text or -J JSON, ...),
at its largest size, against:
  limit     the physical limit of busbw on the run's path: across nodes the
            node's NICs (K x the line rate; alltoall: each rank's share of
            them); within one node NVLink per GPU per direction
            ({}; all_reduce above 4 GPUs on
            NVSwitch: NVLS's ideal B x 2(n-1)/(n+1)). A share above 100% is
            flagged as a figure that is not what it seems (at 2 nodes, tree
            algorithms count NVLink bytes as network bytes).
  expected  the published figure (compare --reference list) for the same
            GPU, collective, ranks and nodes within {:g}x of the size, with its
            source; otherwise "no reference for ...": never another type's.
The GPU comes from the run (nccl-tests' device lines, ccbench's topology);
the NIC rate from --link-rate, else the NICs the run record lists (the
emulated cluster's veths say 10000 Mb/s, not their shaped rate: give
--link-rate there). busbw in GB/s (1e9 bytes/s) as nccl-tests prints it.
docs/expect.md has the formulas and sources.

Options:
)",
                     nvlink_limits_text(), kReferenceSizeWindow);
}

struct ExpectArgs {
  std::vector<std::string> runs;
  std::string link_rate;
  int nics = 0;
  bool help = false;
};

std::vector<CommandOption> expect_options(ExpectArgs& a) {
  return {option("--link-rate", "RATE",
                 "each NIC's line rate, bits per second as tc and NIC vendors write it (200Mbit, 25Gbit, 400G); "
                 "default: the NICs the run record lists",
                 a.link_rate),
          option_in("--nics-per-node", "K",
                    "NICs per node at that rate (default: 1 with --link-rate, else the record's)", a.nics, 0, 1024),
          flag("-h,--help", "this text", a.help)};
}

}  // namespace

int run_expect(int argc, const char* const* argv) {
  try {
    ExpectArgs a;
    CLI::App app{"ccbench expect"};
    app.set_help_flag();
    app.add_option("runs", a.runs);
    declare_options(app, expect_options(a));
    parse_or_usage_error(app, argc, argv, "expect", "expect");
    if (a.help) {
      ExpectArgs defaults;
      return print_or_fail(expect_help_text() + option_list(expect_options(defaults)));
    }
    if (a.runs.empty()) throw UsageError("expect: give one or more runs (files or folders)");
    double given = 0;
    if (!a.link_rate.empty()) given = link_rate_option("expect: --link-rate", a.link_rate);
    const std::vector<PublishedFigure>& catalogue = reference_catalogue();
    std::string said;
    for (const ResultSet& set : load_measured_runs(a.runs, "expect")) {
      const PathFacts net = path_facts(set, given, a.nics);
      said += fmt::format("== {}\n", terminal_safe(set.label));
      said += terminal_safe_lines(expectations_text(expectations(set, net, catalogue), net.basis));
    }
    return print_or_fail(said);
  } catch (const UsageError& e) {
    fmt::print(stderr, "ccbench: {}\n", printable_error(e.what()));
    return exit_code_of(e);
  }
}

}  // namespace ccb
