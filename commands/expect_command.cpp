#include "commands/expect_command.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "analysis/accept/reference_spec.hpp"
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
       ccbench expect [RUN ...] --spec-out FILE [--gpu GPU] [--nodes N] [--gpus-per-node G] [--floor PCT]

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

--spec-out FILE writes an acceptance spec instead (ccbench accept FILE):
one check per catalogue figure of the GPU (--gpu, else the runs') that a
job of N nodes of G GPUs can run (1 node: per-node, 2: pairwise, N: all),
each gated at PCT% of its figure (`min: PCT% of reference`), the figure's
system, value and source above it; accept resolves each group's reference
from its own run and prints each floor's basis. No figure for the GPU:
exit 2, never another GPU's figures.

Options:
)",
                     nvlink_limits_text(), kReferenceSizeWindow);
}

struct ExpectArgs {
  std::vector<std::string> runs;
  std::string link_rate;
  int nics = 0;
  std::string spec_out, gpu;
  int nodes = 1, gpus_per_node = 8;
  double floor_pct = 90;
  bool help = false;
};

std::vector<CommandOption> expect_options(ExpectArgs& a) {
  return {option("--link-rate", "RATE",
                 "each NIC's line rate, bits per second as tc and NIC vendors write it (200Mbit, 25Gbit, 400G); "
                 "default: the NICs the run record lists",
                 a.link_rate),
          option_in("--nics-per-node", "K",
                    "NICs per node at that rate (default: 1 with --link-rate, else the record's)", a.nics, 0, 1024),
          option("--spec-out", "FILE", "write an acceptance spec of floors from the reference catalogue", a.spec_out),
          option("--gpu", "GPU",
                 fmt::format("--spec-out: the GPU ({} or a device name such as 'NVIDIA H100 80GB HBM3'); default: "
                             "the runs'",
                             gpu_families_text()),
                 a.gpu),
          option_in("--nodes", "N", "--spec-out: the job's node count", a.nodes, 1, 100000),
          option_in("--gpus-per-node", "G", "--spec-out: GPUs (ranks) per node", a.gpus_per_node, 1, 1024),
          option_in("--floor", "PCT", "--spec-out: each gate's share of its figure, percent", a.floor_pct, 1.0, 100.0),
          flag("-h,--help", "this text", a.help)};
}

// --spec-out: floors from the catalogue for one GPU and job shape.
int write_reference_spec(const ExpectArgs& a) {
  std::string gpu = a.gpu.empty() ? "" : gpu_family(a.gpu);
  if (!a.gpu.empty() && gpu.empty())
    throw UsageError(
        fmt::format("expect: --gpu '{}': not a GPU the limits know ({})", terminal_safe(a.gpu), gpu_families_text()));
  if (gpu.empty() && !a.runs.empty())
    for (const ResultSet& set : load_measured_runs(a.runs, "expect"))
      if (gpu.empty()) gpu = set_gpu_family(set);
  if (gpu.empty())
    throw UsageError(a.runs.empty() ? "expect: --spec-out: give --gpu (or a run of the hardware)"
                                    : "expect: --spec-out: the runs name no GPU the limits know: give --gpu");
  ReferenceSpec spec;
  try {
    spec = reference_spec(reference_catalogue(), {gpu, a.nodes, a.gpus_per_node, a.floor_pct / 100});
  } catch (const UsageError& e) {
    throw UsageError(std::string("expect: ") + e.what());
  }
  write_file_atomically("--spec-out", a.spec_out, spec.text);
  const int checks = spec.checks;
  fmt::print("expect: {}: {} check{} for {} at {} node{} of {} GPUs, each gated at {:g}% of its reference\n",
             terminal_safe(a.spec_out), checks, checks == 1 ? "" : "s", gpu, a.nodes, a.nodes == 1 ? "" : "s",
             a.gpus_per_node, a.floor_pct);
  return kExitOk;
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
    if (!a.spec_out.empty()) return write_reference_spec(a);
    const ExpectArgs d;
    if (!a.gpu.empty() || a.nodes != d.nodes || a.gpus_per_node != d.gpus_per_node || a.floor_pct != d.floor_pct)
      throw UsageError("expect: --gpu, --nodes, --gpus-per-node and --floor shape --spec-out's spec: give --spec-out");
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
