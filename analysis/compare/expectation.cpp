#include "analysis/compare/expectation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <regex>
#include <tuple>

#include "common/errors.hpp"
#include "common/sizes.hpp"
#include "common/terminal_text.hpp"
#include "results/stats.hpp"

namespace ccb {
namespace {

// NVLink bandwidth per GPU per direction (GB/s): links x 25 GB/s (NVIDIA's
// NVLink specifications: NVLink 3 on A100, 4 on H100/H200, 5 on B200/GB200).
struct GpuRow {
  std::string_view family;
  double nvlink_gbps;
  bool nvls;  // NVLink SHARP (NVSwitch reductions): all_reduce above 4 GPUs
};
constexpr GpuRow kGpus[] = {
    {"A100", 300, false}, {"H100", 450, true}, {"H200", 450, true}, {"B200", 900, true}, {"GB200", 900, true}};

const GpuRow* gpu_row(const std::string& family) {
  for (const GpuRow& g : kGpus)
    if (g.family == family) return &g;
  return nullptr;
}

bool is_alltoall(std::string_view c) { return c == "alltoall" || c == "alltoallv"; }

std::string gbps_text(double v) { return fmt::format("{:.4g} GB/s", v); }

}  // namespace

std::string nvlink_limits_text() {
  std::string s;
  for (const GpuRow& g : kGpus) s += fmt::format("{}{} {:g}", s.empty() ? "" : ", ", g.family, g.nvlink_gbps);
  return s + " GB/s";
}

std::string gpu_families_text() {
  std::string s;
  for (const GpuRow& g : kGpus) s += fmt::format("{}{}", s.empty() ? "" : ", ", g.family);
  return s;
}

std::string gpu_family(std::string_view device) {
  std::string up(device);
  std::transform(up.begin(), up.end(), up.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  // The longest name first: "GB200" before "B200".
  for (std::string_view f : {"GB200", "B200", "H200", "H100", "A100"}) {
    for (std::size_t at = up.find(f); at != std::string::npos; at = up.find(f, at + 1)) {
      const bool left = at == 0 || !std::isalnum(static_cast<unsigned char>(up[at - 1]));
      const std::size_t end = at + f.size();
      const bool right = end == up.size() || !std::isdigit(static_cast<unsigned char>(up[end]));
      if (left && right) return std::string(f);
    }
  }
  return "";
}

std::optional<double> link_rate_gbps(std::string_view text) {
  static const std::regex rate(R"(^\s*([0-9]+(?:\.[0-9]+)?)\s*([kKmMgGtT])(?:bit|b/s|bps|b/sec|bit/s)?\s*$)");
  std::cmatch m;
  const std::string s(text);
  if (!std::regex_match(s.c_str(), m, rate)) return std::nullopt;
  const double v = std::stod(m[1].str());
  const char unit = static_cast<char>(std::tolower(static_cast<unsigned char>(m[2].str()[0])));
  const double bits = v * (unit == 'k' ? 1e3 : unit == 'm' ? 1e6 : unit == 'g' ? 1e9 : 1e12);
  if (!(bits > 0) || !std::isfinite(bits) || bits > 1e15) return std::nullopt;
  return bits / 8 / 1e9;
}

double link_rate_option(const std::string& what, const std::string& text) {
  const auto rate = link_rate_gbps(text);
  if (!rate)
    throw UsageError(fmt::format("{} '{}': not a rate (e.g. 200Mbit, 25Gbit, 400G)", what, terminal_safe(text)));
  return *rate;
}

bool within_reference_window(std::uint64_t bytes, std::uint64_t reference_bytes) {
  const double ratio = static_cast<double>(bytes) / static_cast<double>(reference_bytes);
  return ratio >= 1 / kReferenceSizeWindow && ratio <= kReferenceSizeWindow;
}

namespace {

// An environment value as a positive number; NaN when absent, not a number,
// or several runs' values disagree ("0.05 | 0.025").
double env_number(const ResultSet& set, const char* key) {
  const auto it = set.environment.find(key);
  if (it == set.environment.end()) return kNaN;
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  return end && *end == '\0' && v > 0 && std::isfinite(v) ? v : kNaN;
}

std::string env_text(const ResultSet& set, const char* key) {
  const auto it = set.environment.find(key);
  return it == set.environment.end() ? "" : it->second;
}

// The network's part of path_facts.
void learn_network(const ResultSet& set, double given_gbps, int given_nics, PathFacts& n) {
  if (given_gbps > 0) {
    n.nic_gbps = given_gbps;
    n.nics_per_node = std::max(1, given_nics);
    n.basis = fmt::format("--link-rate: {} x {} per node (given)", n.nics_per_node, gbps_text(given_gbps));
    return;
  }
  if (const double recorded = env_number(set, "limits.link_rate_gbps"); recorded > 0) {
    const double nics = env_number(set, "limits.nics_per_node");
    n.nic_gbps = recorded;
    n.nics_per_node = given_nics > 0 ? given_nics : nics > 0 ? static_cast<int>(nics) : 1;
    n.basis = fmt::format("the run's --link-rate {}: {} x {} per node", env_text(set, "limits.link_rate"),
                          n.nics_per_node, gbps_text(recorded));
    return;
  }
  const auto it = set.environment.find("hardware.nics");
  if (it == set.environment.end()) {
    n.basis = "the run names no NIC: give --link-rate";
    return;
  }
  // "rdma mlx5_0 400 Gb/sec, ethernet eth0 10000 Mb/s": the fastest rate, and
  // how many NICs of one host's list run at it.
  static const std::regex nic(R"(([a-z]+) (\S+) ([0-9]+(?:\.[0-9]+)?) ?([MG])b)");
  std::map<double, std::pair<int, std::string>> by_rate;
  const std::string& text = it->second;
  for (auto m = std::sregex_iterator(text.begin(), text.end(), nic); m != std::sregex_iterator(); ++m) {
    const double gbit = std::stod((*m)[3].str()) * ((*m)[4].str() == "G" ? 1 : 1e-3);
    auto& [count, kind] = by_rate[gbit];
    ++count;
    kind = (*m)[1].str();
  }
  if (by_rate.empty()) {
    n.basis = "the run's NICs name no line rate: give --link-rate";
    return;
  }
  const auto& [gbit, row] = *by_rate.rbegin();
  n.nic_gbps = gbit / 8;
  n.nics_per_node = given_nics > 0 ? given_nics : row.first;
  n.basis = fmt::format("the record's NICs: {} x {:g} Gbit/s ({}) per node", n.nics_per_node, gbit, row.second);
}

}  // namespace

PathFacts path_facts(const ResultSet& set, double given_gbps, int given_nics) {
  PathFacts n;
  learn_network(set, given_gbps, given_nics, n);
  n.memory_copy_gbps = env_number(set, "limits.memory_copy_gbps");
  n.memory_basis = env_text(set, "limits.memory_copy");
  return n;
}

Ceiling busbw_ceiling(std::string_view collective, int ranks, int nodes, const std::string& gpu, const PathFacts& net) {
  Ceiling c;
  if (ranks < 2) {
    c.basis = "one rank moves nothing between ranks";
    return c;
  }
  if (nodes >= 2) {
    if (!(net.nic_gbps > 0)) {
      c.basis = "no limit: " + net.basis;
      return c;
    }
    const int per_node = (ranks + nodes - 1) / nodes;
    const double node = net.nic_gbps * std::max(1, net.nics_per_node);
    if (is_alltoall(collective)) {
      c.gbps = node / per_node;
      c.basis = fmt::format(
          "each rank's share of its node's NICs: {} / {} ranks per node (alltoall cannot aggregate NICs; {})",
          gbps_text(node), per_node, net.basis);
    } else {
      c.gbps = node;
      c.basis = fmt::format(
          "the node's NICs: {} (busbw of a ring across nodes levels off at the node's NIC rate: "
          "nccl-tests #169, #196; {})",
          gbps_text(node), net.basis);
    }
    return c;
  }
  const GpuRow* g = gpu_row(gpu);
  if (!g) {
    if (gpu.empty() && net.memory_copy_gbps > 0) {
      c.gbps = net.memory_copy_gbps;
      c.basis = fmt::format(
          "host memory: each rank's copy rate with every rank copying at once, {} ({}, measured beside the run): "
          "every byte a rank receives through shared memory is copied by a core at least once, and busbw counts "
          "each received byte once",
          gbps_text(c.gbps), net.memory_basis);
    } else {
      c.basis = gpu.empty() ? "no limit: host memory within one node, its copy rate not measured (a ccbench sweep "
                              "of 2 or more ranks on one node measures it)"
                            : "no limit: no NVLink figure for " + gpu;
    }
    return c;
  }
  if (collective == "all_reduce" && g->nvls && ranks > 4) {
    c.gbps = g->nvlink_gbps * 2.0 * (ranks - 1) / (ranks + 1);
    c.basis = fmt::format(
        "NVLS ideal: B x 2(n-1)/(n+1) = {} (NVLS moves S(1+1/n) per direction; B = {} NVLink per GPU per "
        "direction, {}; a ring's limit is B)",
        gbps_text(c.gbps), gbps_text(g->nvlink_gbps), gpu);
  } else {
    c.gbps = g->nvlink_gbps;
    c.basis = fmt::format("NVLink per GPU per direction: {} ({})", gbps_text(c.gbps), gpu);
  }
  return c;
}

std::string set_gpu_family(const ResultSet& set) {
  for (const char* key : {"hardware.gpu", "hardware.gpus_per_node"})
    if (const auto it = set.environment.find(key); it != set.environment.end())
      if (std::string f = gpu_family(it->second); !f.empty()) return f;
  return "";
}

Ceiling point_ceiling(std::string_view collective, int ranks, int nodes, std::string_view memory,
                      const std::string& gpu, const PathFacts& net) {
  return busbw_ceiling(collective, ranks, nodes, memory == "host" ? std::string() : gpu, net);
}

Ceiling point_ceiling(const ImportedPoint& p, const std::string& gpu, const PathFacts& net) {
  return point_ceiling(p.collective.str(), p.ranks, p.nodes, p.memory.str(), gpu, net);
}

std::vector<Expectation> expectations(const ResultSet& set, const PathFacts& net,
                                      const std::vector<PublishedFigure>& catalogue) {
  const std::string gpu = set_gpu_family(set);
  // Series: the points of one measurement, the largest size kept (the median
  // busbw of its repeats).
  using Key = std::tuple<std::string, std::string, std::string, int, int, int, std::string, std::string>;
  std::map<Key, std::vector<const ImportedPoint*>> series;
  for (const ImportedPoint& p : set.points) {
    if (!std::isfinite(p.busbw_gbps)) continue;
    series[{std::string(p.collective), std::string(p.dtype), std::string(p.op), p.ranks, p.nodes, p.in_place,
            std::string(p.path), std::string(p.memory)}]
        .push_back(&p);
  }
  std::vector<Expectation> out;
  for (const auto& [key, points] : series) {
    const auto& [collective, dtype, op, ranks, nodes, in_place, path, memory] = key;
    // A host-memory run on a GPU node moves no byte over NVLink: no GPU's limit or figure.
    const std::string hw = memory == "host" ? std::string() : gpu;
    const std::uint64_t top =
        (*std::max_element(points.begin(), points.end(), [](auto* a, auto* b) { return a->bytes < b->bytes; }))->bytes;
    std::vector<double> bw;
    for (const ImportedPoint* p : points)
      if (p->bytes == top) bw.push_back(p->busbw_gbps);
    Expectation e;
    e.collective = collective, e.gpu = hw, e.ranks = ranks, e.nodes = nodes, e.bytes = top;
    e.busbw_gbps = median_of(std::move(bw));
    e.series = fmt::format("{}{}{}, {} ranks, {} node{}{}", collective, dtype.empty() ? "" : " " + dtype,
                           op.empty() || op == "-" ? "" : " " + op, ranks, nodes, nodes == 1 ? "" : "s",
                           in_place < 0 ? ""
                           : in_place   ? ", in-place"
                                        : ", out-of-place");
    e.ceiling = point_ceiling(*points.front(), gpu, net);
    if (e.ceiling.gbps > 0) {
      e.share_of_limit = share_of_limit(e.busbw_gbps, e.ceiling.gbps);
      if (e.share_of_limit > 1) {
        e.above_limit = true;
        e.above_limit_why =
            nodes == 2 && !is_alltoall(collective)
                ? "at 2 nodes NCCL's tree and NVLS-tree algorithms carry part of the bytes over NVLink, and busbw "
                  "counts them as if they crossed the network: not a network rate (force NCCL_ALGO=Ring for one)"
            : is_alltoall(collective) && nodes >= 2
                ? "alltoall's busbw averages in the peers inside the node (NVLink): not a network rate"
                : "above what the path can carry: the limit's inputs (the NIC rate, the GPU) or the figure are wrong";
      }
    }
    // The published figure of the same hardware, collective, ranks and nodes,
    // at a size within kReferenceSizeWindow of the run's largest.
    const PublishedFigure* best = nullptr;
    bool same_hardware = false;
    for (const PublishedFigure& f : catalogue) {
      if (hw.empty() || f.gpu != hw || f.collective != collective || f.ranks != ranks || f.nodes != nodes) continue;
      same_hardware = true;
      if (!within_reference_window(top, f.bytes)) continue;
      const auto distance = [&](const PublishedFigure& x) {  // the nearest size wins
        return std::fabs(std::log(static_cast<double>(top) / static_cast<double>(x.bytes)));
      };
      if (!best || distance(f) < distance(*best)) best = &f;
    }
    if (best) {
      e.reference = *best;
      e.share_of_reference = e.busbw_gbps / best->busbw_gbps;
    } else if (hw.empty()) {
      e.no_reference_why = "no reference: the run names no GPU this catalogue knows (host memory, or an unknown model)";
    } else {
      e.no_reference_why =
          same_hardware
              ? fmt::format(
                    "no reference for {} {} at {} ({} ranks, {} node{}): the catalogue's figures for it are at "
                    "other sizes (within 2x needed)",
                    hw, collective, format_size(top), ranks, nodes, nodes == 1 ? "" : "s", kReferenceSizeWindow)
              : fmt::format("no reference for {} {} on {} ranks, {} node{} (never another type's figures)", hw,
                            collective, ranks, nodes, nodes == 1 ? "" : "s");
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace ccb
