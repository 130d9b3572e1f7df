#include <fmt/format.h>

#include <stdexcept>

#include "harness/topo/topology.hpp"
#if CCBENCH_HAVE_CUDA
#include "kernels/cuda/gpu_info.hpp"
#endif
#if CCBENCH_HAVE_HWLOC
#include <hwloc.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#endif

namespace ccb {
#if CCBENCH_HAVE_HWLOC
namespace {

using Topo = std::unique_ptr<hwloc_topology, void (*)(hwloc_topology_t)>;

std::string info_of(hwloc_obj_t o, const char* name) {
  const char* v = hwloc_obj_get_info_by_name(o, name);
  return v ? v : "";
}

std::string bus_id(hwloc_obj_t pci) {
  const auto& a = pci->attr->pcidev;
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", a.domain, a.bus, a.dev, a.func);
}

bool is_nvidia_gpu(hwloc_obj_t o) {
  const auto& a = o->attr->pcidev;
  return a.vendor_id == 0x10de && (a.class_id == 0x0300 || a.class_id == 0x0302);
}

// The NUMA node a PCI object is attached to, or -1 when it is attached above
// several (a VM's flat bus hangs off the whole machine).
int numa_of(hwloc_topology_t topo, hwloc_obj_t o) {
  const hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, o);
  if (!anc || !anc->nodeset || hwloc_bitmap_weight(anc->nodeset) != 1) return -1;
  return hwloc_bitmap_first(anc->nodeset);
}

std::string read_first_line(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  return line;
}

std::string live_link_speed(const std::string& rdma, const std::string& iface) {
  if (!rdma.empty()) {
    const std::string rate = read_first_line("/sys/class/infiniband/" + rdma + "/ports/1/rate");
    if (!rate.empty()) return rate;
  }
  if (!iface.empty()) {
    const std::string mbps = read_first_line("/sys/class/net/" + iface + "/speed");
    if (!mbps.empty() && mbps[0] != '-') return mbps + " Mb/s";
  }
  return "";
}

// Bridges strictly between `o` and its ancestor `top`.
int bridges_below(hwloc_obj_t o, hwloc_obj_t top) {
  int n = 0;
  for (hwloc_obj_t p = o->parent; p && p != top; p = p->parent)
    if (p->type == HWLOC_OBJ_BRIDGE) ++n;
  return n;
}

// hwloc_get_common_ancestor_obj compares depths, which I/O objects do not
// have: walk the parents instead.
hwloc_obj_t common_ancestor(hwloc_obj_t a, hwloc_obj_t b) {
  for (hwloc_obj_t x = a; x; x = x->parent)
    for (hwloc_obj_t y = b; y; y = y->parent)
      if (x == y) return x;
  return nullptr;
}

std::string pci_distance(hwloc_topology_t topo, hwloc_obj_t a, hwloc_obj_t b) {
  if (a == b) return "X";
  const hwloc_obj_t common = common_ancestor(a, b);
  if (common->type == HWLOC_OBJ_BRIDGE) {
    if (common->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST) return "PHB";
    return bridges_below(a, common) <= 1 && bridges_below(b, common) <= 1 ? "PIX" : "PXB";
  }
  if (common->type == HWLOC_OBJ_PCI_DEVICE) return "PIX";
  const int na = numa_of(topo, a), nb = numa_of(topo, b);
  if (na >= 0 && na == nb) return "NODE";
  if (na < 0 && nb < 0 && hwloc_get_non_io_ancestor_obj(topo, a) == hwloc_get_non_io_ancestor_obj(topo, b))
    return "NODE";
  return "SYS";
}

// NVLink count per GPU pair from hwloc's NVLinkBandwidth matrix (MB/s; 25 GB/s a link).
std::map<std::pair<std::string, std::string>, int> nvlinks(hwloc_topology_t topo) {
  std::map<std::pair<std::string, std::string>, int> out;
  unsigned n = 1;
  hwloc_distances_s* d = nullptr;
  if (hwloc_distances_get_by_name(topo, "NVLinkBandwidth", &n, &d, 0) != 0 || n == 0) return out;
  const auto pci_of = [](hwloc_obj_t o) {
    while (o && o->type != HWLOC_OBJ_PCI_DEVICE) o = o->parent;
    return o;
  };
  for (unsigned i = 0; i < d->nbobjs; ++i)
    for (unsigned j = 0; j < d->nbobjs; ++j) {
      const hwloc_obj_t a = pci_of(d->objs[i]), b = pci_of(d->objs[j]);
      const auto links = static_cast<int>(std::lround(static_cast<double>(d->values[i * d->nbobjs + j]) / 25000.0));
      if (a && b && i != j && links > 0) out[{bus_id(a), bus_id(b)}] = links;
    }
  hwloc_distances_release(topo, d);
  return out;
}

// Packages, cores, PUs, the CPU model and the NUMA nodes.
void read_cpus(hwloc_topology_t raw, NodeTopology& t) {
  t.packages = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_PACKAGE);
  t.cores = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_CORE);
  t.pus = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_PU);
  if (const hwloc_obj_t pkg = hwloc_get_obj_by_type(raw, HWLOC_OBJ_PACKAGE, 0)) t.cpu_model = info_of(pkg, "CPUModel");
  while (!t.cpu_model.empty() && t.cpu_model.back() == ' ') t.cpu_model.pop_back();
  for (hwloc_obj_t n = nullptr; (n = hwloc_get_next_obj_by_type(raw, HWLOC_OBJ_NUMANODE, n));) {
    char* list = nullptr;
    hwloc_bitmap_list_asprintf(&list, n->cpuset);
    t.numa.push_back({static_cast<int>(n->os_index), list ? list : "", n->attr->numanode.local_memory});
    std::free(list);
    t.memory_bytes += n->attr->numanode.local_memory;
  }
}

// GPUs and NICs on the PCI tree, and their GPU x GPU and GPU x NIC paths.
void read_pci(hwloc_topology_t raw, NodeTopology& t) {
  std::vector<hwloc_obj_t> gpu_objs, nic_objs;
  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_pcidev(raw, o));) {
    if (is_nvidia_gpu(o)) {
      gpu_objs.push_back(o);
      continue;
    }
    std::string rdma, iface, speed;
    for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling) {
      if (c->type != HWLOC_OBJ_OS_DEVICE) continue;
      if (c->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS) rdma = c->name;
      if (c->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK) iface = c->name;
      if (speed.empty()) speed = info_of(c, "LinkSpeed");
    }
    if (rdma.empty() && iface.empty()) continue;
    if (speed.empty() && t.source == "this machine") speed = live_link_speed(rdma, iface);
    nic_objs.push_back(o);
    t.nics.push_back(
        {rdma.empty() ? iface : rdma, iface, rdma.empty() ? "ethernet" : "rdma", bus_id(o), numa_of(raw, o), speed});
  }
  std::sort(gpu_objs.begin(), gpu_objs.end(), [](hwloc_obj_t a, hwloc_obj_t b) { return bus_id(a) < bus_id(b); });
  for (std::size_t i = 0; i < gpu_objs.size(); ++i) {
    const hwloc_obj_t g = gpu_objs[i];
    std::string model = info_of(g, "PCIDevice");
    for (hwloc_obj_t c = g->io_first_child; c && model.empty(); c = c->next_sibling) model = info_of(c, "GPUModel");
    if (model.empty()) model = fmt::format("NVIDIA [10de:{:04x}]", g->attr->pcidev.device_id);
    t.gpus.push_back({static_cast<int>(i), bus_id(g), model, numa_of(raw, g)});
  }
  const auto links = nvlinks(raw);
  for (std::size_t i = 0; i < gpu_objs.size(); ++i) {
    std::vector<std::string> gg, gn;
    for (std::size_t j = 0; j < gpu_objs.size(); ++j) {
      const auto it = links.find({bus_id(gpu_objs[i]), bus_id(gpu_objs[j])});
      gg.push_back(it != links.end() ? fmt::format("NV{}", it->second) : pci_distance(raw, gpu_objs[i], gpu_objs[j]));
    }
    for (hwloc_obj_t n : nic_objs) gn.push_back(pci_distance(raw, gpu_objs[i], n));
    t.gpu_gpu.push_back(gg);
    t.gpu_nic.push_back(gn);
  }
}

#if CCBENCH_HAVE_CUDA
// On this machine: CUDA ordinals of the GPUs hwloc found, matched by PCI
// address, and CUDA's peer matrix between them.
void add_cuda_peers(NodeTopology& t) {
  if (t.source != "this machine" || t.gpus.empty()) return;
  const auto peers = gpu_peer_matrix();
  for (const auto& g : t.gpus) {
    int ordinal = -1;
    for (int d = 0; d < static_cast<int>(peers.size()); ++d)
      if (gpu_bus_id(d) == g.bus_id) ordinal = d;
    t.cuda_ordinal.push_back(ordinal);
  }
  for (std::size_t i = 0; i < t.gpus.size(); ++i) {
    std::vector<std::string> row;
    for (std::size_t j = 0; j < t.gpus.size(); ++j) {
      const int a = t.cuda_ordinal[i], b = t.cuda_ordinal[j];
      row.push_back(a < 0 || b < 0 ? "?" : peers[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)]);
    }
    t.gpu_peer.push_back(row);
  }
}
#endif

}  // namespace

NodeTopology load_topology(const std::string& xml_path) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) throw std::runtime_error("hwloc_topology_init failed");
  Topo topo(raw, hwloc_topology_destroy);
  hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (!xml_path.empty() && hwloc_topology_set_xml(raw, xml_path.c_str()) != 0)
    throw std::runtime_error(fmt::format("{}: hwloc cannot read it as an XML topology", xml_path));
  if (hwloc_topology_load(raw) != 0)
    throw std::runtime_error(fmt::format("{}: hwloc cannot load it", xml_path.empty() ? "this machine" : xml_path));

  NodeTopology t;
  const hwloc_obj_t root = hwloc_get_root_obj(raw);
  t.host = info_of(root, "HostName");
  t.source =
      xml_path.empty() ? (hwloc_topology_is_thissystem(raw) ? "this machine" : "HWLOC_XMLFILE") : "xml:" + xml_path;
  read_cpus(raw, t);
  read_pci(raw, t);
#if CCBENCH_HAVE_CUDA
  add_cuda_peers(t);
#endif
  return t;
}

#else
NodeTopology load_topology(const std::string&) {
  throw std::runtime_error("this ccbench was built without hwloc: no topology");
}
#endif

}  // namespace ccb
