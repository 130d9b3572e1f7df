#include "analysis/accept/reference_spec.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <set>

#include "analysis/compare/expectation.hpp"
#include "common/errors.hpp"
#include "common/sizes.hpp"

namespace ccb {
namespace {

// Catalogue text in a YAML comment: one line, no control bytes.
std::string one_line(const std::string& s) {
  std::string out;
  for (const char c : s) out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c;
  return out;
}

// A YAML scalar for any text: a JSON string is a YAML double-quoted one.
std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

// A check name (1 to 64 letters, digits, '.', '_' or '-': it names files)
// from a figure's id, unique among `used`.
std::string check_name(const std::string& id, std::set<std::string>& used) {
  std::string base = "reference-";
  for (const char c : id) base += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ? c : '-';
  base.resize(std::min<std::size_t>(base.size(), 60));
  std::string name = base;
  for (int k = 2; !used.insert(name).second; ++k) name = fmt::format("{}-{}", base, k);
  return name;
}

const char* pattern_for(int figure_nodes, int job_nodes) {
  if (figure_nodes == 1) return "per-node";
  if (figure_nodes == 2 && job_nodes > 2) return "pairwise";
  return figure_nodes == job_nodes ? "all" : nullptr;
}

}  // namespace

ReferenceSpec reference_spec(const std::vector<PublishedFigure>& catalogue, const ReferenceSpecRequest& r) {
  if (!(r.floor > 0 && r.floor <= 1))
    throw UsageError(fmt::format("--floor {:g}: give a share above 0% and at most 100%", r.floor * 100));
  std::string checks;
  std::vector<std::string> left_out;  // "id: why"
  std::set<std::string> names;
  int n = 0;
  for (const PublishedFigure& f : catalogue) {
    if (f.gpu != r.gpu) continue;
    const char* pattern = pattern_for(f.nodes, r.nodes);
    const std::string why = f.nodes > r.nodes ? fmt::format("{} nodes, the job has {}", f.nodes, r.nodes)
                            : !pattern        ? fmt::format("{} nodes: neither 1, 2 nor the job's {}", f.nodes, r.nodes)
                            : f.ranks != f.nodes * r.gpus_per_node
                                ? fmt::format("{} ranks on {} node{}, the job runs {} per node", f.ranks, f.nodes,
                                              f.nodes == 1 ? "" : "s", r.gpus_per_node)
                                : "";
    if (!why.empty()) {
      left_out.push_back(fmt::format("{}: {}", one_line(f.id), why));
      continue;
    }
    ++n;
    checks += fmt::format(
        "  # {}: {:g} GB/s busbw at {} ({}; {})\n"
        "  - name: {}\n"
        "    collective: {}\n"
        "    backend: nccl\n"
        "    sizes: [{}]\n"
        "    repeats: 3\n"
        "    pass: 2\n"
        "    pattern: {}\n"
        "    gates:\n"
        "      - {{metric: busbw, at: {}, min: {:g}% of reference}}\n",
        one_line(f.system), f.busbw_gbps, format_size(f.bytes), one_line(f.source),
        f.date.empty() ? "undated" : one_line(f.date), check_name(f.id, names), f.collective, f.bytes, pattern, f.bytes,
        r.floor * 100);
  }
  if (n == 0)
    throw UsageError(
        fmt::format("no reference for {} at {} node{} of {} GPUs in the catalogue (compare --reference list; "
                    "CCBENCH_REFERENCES adds yours): nothing to gate{}",
                    r.gpu, r.nodes, r.nodes == 1 ? "" : "s", r.gpus_per_node,
                    left_out.empty() ? "" : fmt::format(" (left out: {})", fmt::join(left_out, "; "))));
  return {
      fmt::format(
          "# Floors from the reference catalogue for {gpu} ({nodes} node{s}, {g} GPUs each): ccbench expect "
          "--spec-out.\n"
          "# Each gate is {floor:g}% of the figure that accept resolves from each group's own run (same GPU family,\n"
          "# collective, ranks and nodes, within {window:g}x of the size); the report prints each floor's basis.\n"
          "# Launch one rank per GPU on every node: mpirun -npernode {g} ccbench accept THIS.yaml\n"
          "{left}"
          "name: {name}\n"
          "checks:\n"
          "{checks}",
          fmt::arg("gpu", r.gpu), fmt::arg("nodes", r.nodes), fmt::arg("s", r.nodes == 1 ? "" : "s"),
          fmt::arg("g", r.gpus_per_node), fmt::arg("floor", r.floor * 100), fmt::arg("window", kReferenceSizeWindow),
          fmt::arg("left", left_out.empty() ? ""
                                            : fmt::format("# Left out (the job cannot run their shape):\n#   {}\n",
                                                          fmt::join(left_out, "\n#   "))),
          fmt::arg("name", quoted(fmt::format("{} floors from the reference catalogue", r.gpu))),
          fmt::arg("checks", checks)),
      n};
}

}  // namespace ccb
