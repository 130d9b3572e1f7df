// What NCCL says it used: the transport of every connection it set up, read
// from its INFO log (NCCL_DEBUG=INFO, one file per process), and whether that
// is the path that was asked for. Pure text processing, no NCCL needed.
#pragma once
#include "common/settings.hpp"
#include <istream>
#include <set>
#include <string>
#include <string_view>

namespace ccb {

struct NcclTransports {
  // Path classes: p2p (NVLink or PCIe peer access), shm, rdma (NET/IB and RDMA
  // network plugins), tcp (NET/Socket), net (another network plugin), nvls, collnet.
  std::set<std::string> classes;
  // The transports as NCCL spells them: "P2P/CUMEM/read", "NET/IB/3/GDRDMA", ...
  std::set<std::string> transports;
  std::string network;  // from "Using network X", empty when not seen
  long connections = 0; // "via" lines seen
  void merge(const NcclTransports& other);
};

// Reads one log line into `out`; lines that say nothing about transports are ignored.
void parse_nccl_log_line(std::string_view line, NcclTransports& out);
NcclTransports parse_nccl_log(std::istream& in);

// The class of one "via" transport ("P2P/IPC" -> p2p, "NET/IBext_v8/1" -> rdma, ...).
std::string transport_class(std::string_view transport);

// Compares a requested path (auto, nvlink, pcie, shm, rdma, tcp) with what was
// observed: "" when consistent, else one sentence saying what differs.
std::string path_mismatch(PathRequest request, const std::set<std::string>& observed_classes, int nodes);

}  // namespace ccb
