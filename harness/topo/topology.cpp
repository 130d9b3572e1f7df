#include "harness/topo/topology.hpp"
#include "results/json_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <sstream>

namespace ccb {

std::string format_cpu_list(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    out += fmt::format("{}{}", out.empty() ? "" : ",",
                       j == i ? fmt::format("{}", cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]));
    i = j + 1;
  }
  return out;
}

std::vector<int> numa_of_cpus(const NodeTopology& t, const std::vector<int>& cpus) {
  std::vector<int> out;
  for (const auto& n : t.numa) {
    const auto mine = parse_cpu_list(n.cpus);
    if (std::any_of(cpus.begin(), cpus.end(), [&](int c) { return std::binary_search(mine.begin(), mine.end(), c); }))
      out.push_back(n.os_index);
  }
  return out;
}

nlohmann::json topology_json(const NodeTopology& t) {
  nlohmann::json numa = nlohmann::json::array(), gpus = nlohmann::json::array(), nics = nlohmann::json::array();
  for (const auto& n : t.numa)
    numa.push_back({{"os_index", n.os_index}, {"cpus", n.cpus}, {"memory_bytes", n.memory_bytes}});
  for (const auto& g : t.gpus)
    gpus.push_back({{"index", g.index}, {"bus_id", g.bus_id}, {"model", g.model}, {"numa", g.numa}});
  for (const auto& n : t.nics)
    nics.push_back({{"name", n.name},
                    {"interface", n.interface},
                    {"kind", n.kind},
                    {"bus_id", n.bus_id},
                    {"numa", n.numa},
                    {"link_speed", n.link_speed}});
  return {{"host", t.host},
          {"source", t.source},
          {"cpu_model", t.cpu_model},
          {"packages", t.packages},
          {"cores", t.cores},
          {"pus", t.pus},
          {"memory_bytes", t.memory_bytes},
          {"numa", numa},
          {"gpus", gpus},
          {"nics", nics},
          {"gpu_gpu", t.gpu_gpu},
          {"gpu_nic", t.gpu_nic},
          {"gpu_peer", t.gpu_peer},
          {"cuda_ordinal", t.cuda_ordinal}};
}

std::string topology_fingerprint(const NodeTopology& t) {
  nlohmann::json j = topology_json(t);
  j.erase("host");
  j.erase("source");
  for (auto& n : j["nics"]) n.erase("interface");  // names differ between identical nodes
  const std::string text = json_text(j);
  // FNV-1a, 64 bits: a stable name for equal summaries, not a security hash.
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return fmt::format("{:016x}", h);
}

NodeTopology topology_from_json(const nlohmann::json& j) {
  NodeTopology t;
  t.host = j.at("host");
  t.source = j.at("source");
  t.cpu_model = j.at("cpu_model");
  t.packages = j.at("packages");
  t.cores = j.at("cores");
  t.pus = j.at("pus");
  t.memory_bytes = j.at("memory_bytes");
  for (const auto& n : j.at("numa")) t.numa.push_back({n.at("os_index"), n.at("cpus"), n.at("memory_bytes")});
  for (const auto& g : j.at("gpus")) t.gpus.push_back({g.at("index"), g.at("bus_id"), g.at("model"), g.at("numa")});
  for (const auto& n : j.at("nics"))
    t.nics.push_back({n.at("name"), n.at("interface"), n.at("kind"), n.at("bus_id"), n.at("numa"), n.at("link_speed")});
  t.gpu_gpu = j.at("gpu_gpu").get<std::vector<std::vector<std::string>>>();
  t.gpu_nic = j.at("gpu_nic").get<std::vector<std::vector<std::string>>>();
  t.gpu_peer = j.at("gpu_peer").get<std::vector<std::vector<std::string>>>();
  t.cuda_ordinal = j.at("cuda_ordinal").get<std::vector<int>>();
  return t;
}

std::vector<TopologyGroup> group_nodes(const std::vector<NodeTopology>& per_process) {
  std::vector<TopologyGroup> groups;
  std::set<std::string> hosts_seen;
  for (const auto& t : per_process) {
    if (!hosts_seen.insert(t.host).second) continue;
    const std::string fp = topology_fingerprint(t);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const TopologyGroup& g) { return g.fingerprint == fp; });
    if (it == groups.end()) groups.push_back({fp, t, {t.host}});
    else it->hosts.push_back(t.host);
  }
  return groups;
}

std::string topology_text(const NodeTopology& t) {
  std::string s = fmt::format("Node {} ({})\n", t.host.empty() ? "?" : t.host, t.source);
  s += fmt::format("  CPU: {} package(s), {} cores, {} PUs{}\n", t.packages, t.cores, t.pus,
                   t.cpu_model.empty() ? "" : ", " + t.cpu_model);
  s += fmt::format("  Memory: {:.1f} GiB in {} NUMA node(s)\n", static_cast<double>(t.memory_bytes) / (1ull << 30),
                   t.numa.size());
  for (const auto& n : t.numa)
    s += fmt::format("    NUMA {}: cpus {}, {:.1f} GiB\n", n.os_index, n.cpus,
                     static_cast<double>(n.memory_bytes) / (1ull << 30));
  const auto numa_text = [](int n) { return n < 0 ? std::string("-") : std::to_string(n); };
  s += fmt::format("  GPUs: {}\n", t.gpus.size());
  for (const auto& g : t.gpus)
    s += fmt::format("    GPU{} {} {} NUMA {}\n", g.index, g.bus_id, g.model, numa_text(g.numa));
  s += fmt::format("  NICs: {}\n", t.nics.size());
  for (const auto& n : t.nics)
    s += fmt::format("    {} {}{} {} NUMA {}{}\n", n.name, n.kind,
                     n.interface.empty() || n.interface == n.name ? "" : " (" + n.interface + ")", n.bus_id,
                     numa_text(n.numa), n.link_speed.empty() ? "" : ", " + n.link_speed);
  if (!t.gpus.empty()) {
    s += "  Distances (nvidia-smi topo -m vocabulary):\n  " + fmt::format("{:>8}", "");
    for (const auto& g : t.gpus) s += fmt::format(" {:>6}", fmt::format("GPU{}", g.index));
    for (const auto& n : t.nics) s += fmt::format(" {:>8}", n.name);
    s += "\n";
    for (std::size_t i = 0; i < t.gpus.size(); ++i) {
      s += fmt::format("  {:>8}", fmt::format("GPU{}", i));
      for (const auto& d : t.gpu_gpu[i]) s += fmt::format(" {:>6}", d);
      for (const auto& d : t.gpu_nic[i]) s += fmt::format(" {:>8}", d);
      s += "\n";
    }
    s += "  X self, NV# NVLinks, PIX one PCIe switch, PXB several switches, PHB through a host bridge,\n"
         "  NODE host bridges of one NUMA node, SYS across the inter-socket link\n";
    for (std::size_t i = 0; i < t.gpu_peer.size(); ++i) {
      if (i == 0) s += "  CUDA peer access (cudaDeviceCanAccessPeer, P2P performance rank, native atomics):\n";
      s += fmt::format("    GPU{} (CUDA {}):", i, t.cuda_ordinal[i]);
      for (std::size_t j = 0; j < t.gpu_peer[i].size(); ++j)
        if (i != j) s += fmt::format(" GPU{} {};", j, t.gpu_peer[i][j]);
      s.back() = '\n';
    }
  }
  return s;
}

}  // namespace ccb
