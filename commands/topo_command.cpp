#include "commands/topo_command.hpp"
#include "common/redact.hpp"
#include "results/json_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "harness/every_rank_passes.hpp"
#include "common/errors.hpp"
#include "results/output_file.hpp"

namespace ccb {

std::string binding_plan_text(const NodeTopology& t, BindPolicy policy, int ranks,
                              const std::vector<int>& launcher_cpus) {
  std::vector<int> all;
  for (const auto& n : t.numa)
    for (int c : parse_cpu_list(n.cpus)) all.push_back(c);
  std::sort(all.begin(), all.end());
  const std::vector<int> start = launcher_cpus.empty() ? all : launcher_cpus;
  std::vector<int> gpus;
  for (int r = 0; r < ranks; ++r) gpus.push_back(t.gpus.empty() ? -1 : r % static_cast<int>(t.gpus.size()));
  std::string s =
      fmt::format("Binding plan: --bind {}, {} local rank(s){}, starting on cpus {}\n", setting_name(policy), ranks,
                  t.gpus.empty() ? "" : ", GPU r mod GPUs each", format_cpu_list(start));
  s += fmt::format("  {:>4} {:>5} {:>5} {:>10} {:>10}  {}\n", "rank", "gpu", "numa", "cpus", "nic", "why");
  for (int r = 0; r < ranks; ++r) {
    const BindPlan plan = plan_binding(t, policy, r, gpus, start);
    const std::vector<int> cpus = plan.cpus.empty() ? start : parse_cpu_list(plan.cpus);
    const int nic = nearest_nic(t, gpus[r], r);
    s += fmt::format("  {:>4} {:>5} {:>5} {:>10} {:>10}  {}\n", r, gpus[r] < 0 ? "-" : fmt::format("GPU{}", gpus[r]),
                     plan.numa < 0 ? "-" : std::to_string(plan.numa), format_cpu_list(cpus),
                     nic < 0 ? "-" : t.nics[nic].name, plan.reason);
    for (const auto& w : binding_warnings(t, cpus, plan.cpus.empty() ? -1 : plan.numa, gpus[r]))
      s += fmt::format("  WARNING: rank {}: {}\n", r, w);
  }
  return s;
}

int run_topo(const Config& cfg, const Comm& comm) {
  NodeTopology mine;
  if (const int code = exit_code_of_every_rank(comm, [&] {
        try {
          mine = load_topology(cfg.topo_xml);
        } catch (const std::exception& e) {
          throw UsageError(fmt::format("--xml: {}", e.what()));
        }
      }))
    return code;
  std::vector<NodeTopology> all;
  for (const auto& text : comm.all_strings(json_text(topology_json(mine))))
    all.push_back(topology_from_json(nlohmann::json::parse(text)));
  if (comm.rank() != 0) return kExitOk;
  const std::vector<TopologyGroup> nodes = group_nodes(all);
  if (cfg.topo_json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& n : nodes) {
      nlohmann::json j = topology_json(n.topology);
      j["fingerprint"] = n.fingerprint;
      j["hosts"] = n.hosts;
      out.push_back(j);
    }
    const std::string text = out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (cfg.json_path.empty()) return print_or_fail(text);
    try {
      write_file_atomically("--json", cfg.json_path, text);
    } catch (const UsageError& e) {
      fmt::print(stderr, "ccbench: {}\n", printable_error(e.what()));
      return kExitOutput;
    }
    return kExitOk;
  }
  std::string out;
  for (const auto& n : nodes) {
    if (nodes.size() > 1 || n.hosts.size() > 1) {
      std::string hosts;
      for (const auto& h : n.hosts) hosts += fmt::format("{}{}", hosts.empty() ? "" : ", ", h);
      out += fmt::format("# {} node(s) alike (fingerprint {}): {}\n", n.hosts.size(), n.fingerprint, hosts);
    }
    out += topology_text(n.topology);
  }
  if (cfg.topo_plan > 0) out += "\n" + binding_plan_text(mine, cfg.bind, cfg.topo_plan, parse_cpu_list(cfg.topo_cpus));
  return print_or_fail(out);
}

}  // namespace ccb
