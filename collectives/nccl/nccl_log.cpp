#include "collectives/nccl/nccl_log.hpp"

#include <algorithm>
#include <vector>

namespace ccb {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
  return out;
}

}  // namespace

void NcclTransports::merge(const NcclTransports& other) {
  classes.insert(other.classes.begin(), other.classes.end());
  transports.insert(other.transports.begin(), other.transports.end());
  if (network.empty()) network = other.network;
  connections += other.connections;
}

std::string transport_class(std::string_view t) {
  if (starts_with(t, "P2P")) return "p2p";
  if (starts_with(t, "SHM")) return "shm";
  if (starts_with(t, "NVLS")) return "nvls";
  if (starts_with(t, "COLLNET") || starts_with(t, "CollNet")) return "collnet";
  if (starts_with(t, "NET/")) {
    const std::string_view name = t.substr(4, t.find('/', 4) == std::string_view::npos ? std::string_view::npos
                                                                                       : t.find('/', 4) - 4);
    if (starts_with(name, "Socket")) return "tcp";
    if (starts_with(name, "IB") || name.find("Libfabric") != std::string_view::npos ||
        name.find("OFI") != std::string_view::npos)
      return "rdma";
    return "net";
  }
  return "other";
}

void parse_nccl_log_line(std::string_view line, NcclTransports& out) {
  if (line.find("NCCL INFO") == std::string_view::npos) return;
  if (const auto via = line.find(" via "); via != std::string_view::npos && line.find("Channel") != std::string_view::npos) {
    std::string_view t = line.substr(via + 5);
    while (!t.empty() && (t.back() == '\r' || t.back() == '\n' || t.back() == ' ')) t.remove_suffix(1);
    if (t.empty()) return;
    out.transports.emplace(t);
    out.classes.insert(transport_class(t));
    ++out.connections;
    return;
  }
  if (const auto at = line.find("Using network "); at != std::string_view::npos) {
    std::string_view n = line.substr(at + 14);
    while (!n.empty() && (n.back() == '\r' || n.back() == '\n' || n.back() == ' ')) n.remove_suffix(1);
    out.network = std::string(n);
    return;
  }
  // NVLS buffers set up ("NVLS comm 0x... headRank ...") or connected; channel
  // counts ("16 nvls channels") only say what is available, not what was used.
  if (line.find("NVLS comm ") != std::string_view::npos || line.find("Connected NVLS") != std::string_view::npos) {
    out.classes.insert("nvls");
    out.transports.insert("NVLS");
    return;
  }
  if (line.find("Connected CollNet") != std::string_view::npos || line.find("Connected all CollNet") != std::string_view::npos) {
    out.classes.insert("collnet");
    out.transports.insert("CollNet");
  }
}

NcclTransports parse_nccl_log(std::istream& in) {
  NcclTransports t;
  std::string line;
  while (std::getline(in, line)) parse_nccl_log_line(line, t);
  return t;
}

std::string path_mismatch(PathRequest request, const std::set<std::string>& observed, int nodes) {
  if (request == PathRequest::automatic) return "";
  const std::string requested(setting_name(request));
  if (observed.empty()) return "requested " + requested + ", but NCCL reported no connection";
  // What each request allows; inter-node traffic needs a network unless the request is about one.
  std::vector<std::string> allowed, wanted;
  const std::vector<std::string> intra{"p2p", "shm", "nvls"}, inter{"rdma", "tcp", "net", "collnet"};
  switch (request) {
    case PathRequest::nvlink: allowed = wanted = {"p2p", "nvls"}; break;
    case PathRequest::pcie: allowed = wanted = {"p2p"}; break;
    case PathRequest::shm: allowed = wanted = {"shm"}; break;
    case PathRequest::rdma: allowed = wanted = {"rdma", "collnet"}; break;
    case PathRequest::tcp: allowed = wanted = {"tcp"}; break;
    case PathRequest::automatic: break;
  }
  const bool network_request = request == PathRequest::rdma || request == PathRequest::tcp;
  if (network_request) allowed.insert(allowed.end(), intra.begin(), intra.end());
  else if (nodes > 1) allowed.insert(allowed.end(), inter.begin(), inter.end());
  std::set<std::string> unexpected;
  for (const auto& c : observed)
    if (std::find(allowed.begin(), allowed.end(), c) == allowed.end()) unexpected.insert(c);
  if (!unexpected.empty())
    return "requested " + requested + ", but NCCL used " + join(unexpected) + " (observed: " + join(observed) + ")";
  const bool any_wanted = std::any_of(wanted.begin(), wanted.end(), [&](const std::string& w) { return observed.count(w) > 0; });
  if (!any_wanted)
    return "requested " + requested + ", but no connection used it (observed: " + join(observed) + ")";
  return "";
}

}  // namespace ccb
