// What a node is: packages, NUMA nodes, cores and memory; NVIDIA GPUs and
// network devices with their PCI address and NUMA locality; and the distance
// between every GPU and every GPU or NIC in nvidia-smi's vocabulary. Loaded
// with hwloc, from this machine or from an XML file (lstopo --of xml).
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "common/cpu_list.hpp"

namespace ccb {

struct TopoNuma {
  int os_index = 0;
  std::string cpus;  // hwloc list syntax, e.g. "0-3"
  unsigned long long memory_bytes = 0;
};

struct TopoGpu {
  int index = 0;       // order by PCI bus id (CUDA's order with CUDA_DEVICE_ORDER=PCI_BUS_ID)
  std::string bus_id;  // "0000:12:00.0"
  std::string model;
  int numa = -1;  // -1: no single NUMA node (e.g. a VM's flat bus)
};

struct TopoNic {
  std::string name;       // the RDMA device (mlx5_0) when there is one, else the interface
  std::string interface;  // the network interface (ibp18s0, eth0), "" when none
  std::string kind;       // "rdma" (has an OpenFabrics device) or "ethernet"
  std::string bus_id;
  int numa = -1;
  std::string link_speed;  // as the OS says it ("400 Gb/sec (4X NDR)", "25000 Mb/s"), "" when unknown
};

struct NodeTopology {
  std::string host, source, cpu_model;
  int packages = 0, cores = 0, pus = 0;
  unsigned long long memory_bytes = 0;
  std::vector<TopoNuma> numa;
  std::vector<TopoGpu> gpus;
  std::vector<TopoNic> nics;
  // X (same device), NV# (# NVLinks), PIX (one PCIe switch), PXB (several
  // switches), PHB (through a PCIe host bridge), NODE (host bridges of one NUMA
  // node), SYS (across the inter-socket link). gpu_gpu[i][j], gpu_nic[i][k].
  std::vector<std::vector<std::string>> gpu_gpu, gpu_nic;
  // CUDA's view on this machine (empty from XML or without a GPU):
  // gpu_peer[i][j] "P2P rank R[, atomics]" or "no"; cuda_ordinal[i] of GPU i.
  std::vector<std::vector<std::string>> gpu_peer;
  std::vector<int> cuda_ordinal;
};

// Throws std::runtime_error when hwloc cannot load it (a missing or broken XML file).
NodeTopology load_topology(const std::string& xml_path = "");

std::string topology_text(const NodeTopology& t);
nlohmann::json topology_json(const NodeTopology& t);
// Equal for nodes whose hardware summary is equal (host name and source left out).
std::string topology_fingerprint(const NodeTopology& t);

NodeTopology topology_from_json(const nlohmann::json& j);  // inverse of topology_json

// Distinct nodes: processes' topologies grouped by fingerprint, each with the
// hosts that have it (a host once, however many ranks it runs), in rank order.
struct TopologyGroup {
  std::string fingerprint;
  NodeTopology topology;  // the first host's
  std::vector<std::string> hosts;
};
std::vector<TopologyGroup> group_nodes(const std::vector<NodeTopology>& per_process);

// CPU lists in hwloc's syntax ("0-3,8,10-11") from sorted ids (parse_cpu_list: common/cpu_list.hpp).
std::string format_cpu_list(const std::vector<int>& cpus);

// NUMA nodes whose CPUs intersect `cpus`.
std::vector<int> numa_of_cpus(const NodeTopology& t, const std::vector<int>& cpus);

}  // namespace ccb
