#include "commands/node_labels_command.hpp"
#include "common/redact.hpp"

#include <fmt/format.h>
#include <sys/wait.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <sstream>
#include <string>

#include "common/errors.hpp"
#include "common/terminal_text.hpp"
#include "commands/cli_errors.hpp"
#include "commands/option_table.hpp"
#include "analysis/accept/node_labels.hpp"
#include "analysis/history/verdict_record.hpp"
#include "results/import/text_input.hpp"
#include "results/output_file.hpp"

namespace ccb {
namespace {

// What one ConfigMap may hold (the API server's limit on an object's data).
constexpr std::size_t kConfigMapLimit = 1 << 20;

const std::string kNodeLabelsHelp = R"(usage: ccbench node-labels VERDICT [--out DIR] [--prefix P] [--apply]

An acceptance verdict (accept --out's verdict.json, or that folder) as
Kubernetes node labels and taints: each node's worst status over the checks
becomes PREFIX/health = passed, suspect (a first failure, not confirmed:
taint PREFIX/health=suspect:PreferNoSchedule) or failed (DEFECTIVE,
confirmed: taint PREFIX/health=failed:NoSchedule); a passed node's taint is
removed; a node no check could judge (in a failed group) is left as it is.
PREFIX/accept-run carries the verdict's start. Writes DIR/node-labels.sh
(the kubectl commands) and DIR/node-verdicts.yaml (a ConfigMap of the failed
and suspect nodes with their reasons); nothing touches a cluster unless
--apply runs the script with kubectl's current context. The verdict's hosts
must be the nodes' names (pods with hostNetwork: true, as
scripts/launch/accept-mpijob.yaml runs them), else --node-map FILE.
docs/acceptance.md "Kubernetes node labels".

Options:
)";

struct NodeLabelArgs {
  std::string verdict, out, node_map;
  NodeLabelOptions o;
  bool apply = false, help = false;
};

std::vector<CommandOption> node_label_options(NodeLabelArgs& a) {
  return {option("--out", "DIR", "where the two files go (default: the verdict's folder)", a.out),
          option("--prefix", "P", "the label and taint keys' prefix (default ccbench.io)", a.o.prefix),
          option("--namespace", "NS", "the ConfigMap's namespace (default default)", a.o.ns),
          option("--configmap-name", "NAME", "the ConfigMap's name (default ccbench-node-verdicts)", a.o.configmap),
          option("--node-map", "FILE",
                 "lines 'HOST NODE': the node of each host the verdict names (pods without hostNetwork)", a.node_map),
          flag("--apply", "run the script (kubectl, its current context) after writing it", a.apply),
          flag("-h,--help", "this text", a.help)};
}

// A whole file's text (results/import's MappedFile: regular files only).
std::string read_text(const std::string& flag, const std::string& path) {
  try {
    return std::string(MappedFile(path).text());
  } catch (const ImportError& e) {
    throw UsageError(fmt::format("{} {}", flag, e.what()));
  }
}

// "HOST NODE" lines ('#' comments); the verdict's hosts renamed.
void map_nodes(VerdictRecord& v, const std::string& file) {
  std::map<std::string, std::string> node_of;
  std::istringstream lines(read_text("--node-map", file));
  std::string line;
  for (int n = 1; std::getline(lines, line); ++n) {
    std::istringstream words(line.substr(0, line.find('#')));
    std::string host, node, extra;
    if (!(words >> host)) continue;
    if (!(words >> node) || (words >> extra))
      throw UsageError(fmt::format("--node-map {}:{}: expected 'HOST NODE'", file, n));
    node_of[host] = node;
  }
  for (NodeVerdictRow& r : v.nodes)
    if (const auto it = node_of.find(r.host); it != node_of.end()) r.host = it->second;
}

}  // namespace

int run_node_labels(int argc, const char* const* argv) {
  try {
    NodeLabelArgs a;
    CLI::App app{"ccbench node-labels"};
    app.set_help_flag();
    app.add_option("verdict", a.verdict);
    declare_options(app, node_label_options(a));
    parse_or_usage_error(app, argc, argv, "node-labels", "node-labels");
    if (a.help) {
      NodeLabelArgs defaults;
      return print_or_fail(kNodeLabelsHelp + option_list(node_label_options(defaults)));
    }
    if (a.verdict.empty()) throw UsageError("node-labels: give the verdict (accept --out's verdict.json or folder)");
    std::error_code ec;
    std::string file = a.verdict;
    if (std::filesystem::is_directory(file, ec)) file = (std::filesystem::path(file) / "verdict.json").string();
    std::optional<VerdictRecord> v;
    try {
      v = verdict_record_of(read_text("node-labels:", file), file);
    } catch (const ImportError& e) {
      throw UsageError(fmt::format("node-labels: {}", e.what()));
    }
    if (!v) throw UsageError(fmt::format("node-labels: {}: not an accept verdict (no \"ccbench_accept\")", file));
    if (!a.node_map.empty()) map_nodes(*v, a.node_map);
    const std::vector<NodeHealth> nodes = node_health(*v, a.o);
    const std::filesystem::path dir =
        a.out.empty() ? std::filesystem::path(file).parent_path() : std::filesystem::path(a.out);
    if (!dir.empty() && !std::filesystem::is_directory(dir, ec))
      throw UsageError(fmt::format("--out {}: not a folder", dir.string()));
    const std::string script = (dir / "node-labels.sh").string(), cm = (dir / a.o.configmap_file).string();
    const std::string configmap = verdict_configmap(nodes, *v, a.o);
    if (configmap.size() > kConfigMapLimit)  // the API server refuses it: say so before anything is written
      throw UsageError(
          fmt::format("node-labels: the ConfigMap would be {} bytes, more than the {} (1 MiB) "
                      "Kubernetes stores; nothing written",
                      configmap.size(), kConfigMapLimit));
    write_file_atomically("--out", cm, configmap);
    write_file_atomically("--out", script, kubectl_script(nodes, *v, a.o));
    std::size_t failed = 0, suspect = 0, passed = 0, left = 0;
    for (const NodeHealth& n : nodes)
      (n.health == "failed" ? failed : n.health == "suspect" ? suspect : n.health == "passed" ? passed : left) += 1;
    if (const int code = print_or_fail(
            fmt::format("node-labels: {} nodes: {} failed, {} suspect, {} passed, {} not judged; {} and {}{}\n",
                        nodes.size(), failed, suspect, passed, left, terminal_safe(script), terminal_safe(cm),
                        a.apply ? "" : " written (nothing applied: sh the script, or --apply)")))
      return code;  // stdout on /dev/full: 5
    if (!a.apply) return kExitOk;
    const std::string command = fmt::format("sh '{}'", script);  // the path has no quote: refused below
    if (script.find('\'') != std::string::npos)
      throw UsageError(fmt::format("--out {}: a folder name with a quote cannot be run by --apply", dir.string()));
    const int status = std::system(command.c_str());
    if (status != 0)
      throw OutputError(
          fmt::format("node-labels --apply: {} failed (exit {}); the cluster may hold part of it: "
                      "fix kubectl's access and run it again (it is idempotent)",
                      script, WIFEXITED(status) ? WEXITSTATUS(status) : -1));
    return print_or_fail("node-labels: applied\n");
  } catch (const UsageError& e) {
    fmt::print(stderr, "ccbench: {}\n", printable_error(e.what()));
    return exit_code_of(e);
  }
}

}  // namespace ccb
