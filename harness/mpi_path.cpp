#include "harness/mpi_path.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "common/errors.hpp"

namespace ccb {

namespace {

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

bool is_cidr(const std::string& s) {
  unsigned a = 0, b = 0, c = 0, d = 0, bits = 0;
  char tail = 0;
  return std::sscanf(s.c_str(), "%u.%u.%u.%u/%u%c", &a, &b, &c, &d, &bits, &tail) == 5 && a < 256 && b < 256 &&
         c < 256 && d < 256 && bits <= 32;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

std::vector<std::string> up_interfaces() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/sys/class/net", ec)) {
    std::ifstream f(e.path() / "operstate");
    std::string state;
    f >> state;
    // "unknown": loopback and some virtual devices that carry traffic
    if (state == "up" || state == "unknown") out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string tcp_interfaces_allowed(bool* several) {
  if (several) *several = false;
  if (const char* inc = std::getenv("OMPI_MCA_btl_tcp_if_include"); inc && *inc) return fmt::format("pinned: {}", inc);
  if (const char* exc = std::getenv("OMPI_MCA_btl_tcp_if_exclude"); exc && *exc) return fmt::format("all but: {}", exc);
  std::vector<std::string> up = up_interfaces();
  std::erase(up, "lo");
  if (several) *several = up.size() > 1;
  return fmt::format("any that is up (Open MPI's default): {}", up.empty() ? "none but loopback" : joined(up));
}

void request_mpi_path(PathRequest path, const std::string& tcp_if) {
  if (!tcp_if.empty()) {
    if (const char* exc = std::getenv("OMPI_MCA_btl_tcp_if_exclude"); exc && *exc)
      throw UsageError(fmt::format(
          "--tcp-if {}: OMPI_MCA_btl_tcp_if_exclude={} is set too, and Open MPI refuses both: unset one", tcp_if, exc));
    const std::vector<std::string> items = split_list(tcp_if);
    if (items.empty()) throw UsageError("--tcp-if: expected interface names or CIDR subnets, e.g. eth0 or 10.0.0.0/24");
    std::error_code ec;
    for (const std::string& i : items)
      if (!is_cidr(i) && (i.find('/') != std::string::npos || !std::filesystem::exists("/sys/class/net/" + i, ec)))
        throw UsageError(fmt::format("--tcp-if {}: no network interface '{}' on this host (it has: {})", tcp_if, i,
                                     joined(up_interfaces())));
    setenv("OMPI_MCA_btl_tcp_if_include", tcp_if.c_str(), 1);
  }

  const char* pml = nullptr;
  const char* btl = nullptr;
  if (path == PathRequest::shm) pml = "ob1", btl = "self,vader";
  else if (path == PathRequest::tcp) pml = "ob1", btl = "self,tcp";
  else if (path == PathRequest::rdma) {
    std::error_code ec;
    const bool has_ib = std::filesystem::is_directory("/sys/class/infiniband", ec) &&
                        !std::filesystem::is_empty("/sys/class/infiniband", ec);
    if (!has_ib)
      throw UsageError(
          "--path rdma: no RDMA device on this host (/sys/class/infiniband is empty or missing); allowed here: auto, "
          "shm, tcp");
    pml = "ucx";
  }
  if (pml) setenv("OMPI_MCA_pml", pml, 1);
  if (btl) setenv("OMPI_MCA_btl", btl, 1);
}

NetCounters parse_proc_net_dev(const std::string& text) {
  NetCounters c;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    name.erase(0, name.find_first_not_of(' '));
    std::istringstream fields(line.substr(colon + 1));
    unsigned long long v[16] = {};
    int k = 0;
    while (k < 16 && fields >> v[k]) ++k;
    if (k < 9) continue;
    // receive: bytes packets errs drop fifo frame compressed multicast; transmit: bytes ...
    (name == "lo" ? c.loopback_tx : c.other_tx) += v[8];
  }
  return c;
}

NetCounters read_net_counters() {
  std::ifstream f("/proc/net/dev");
  std::stringstream ss;
  ss << f.rdbuf();
  NetCounters c = parse_proc_net_dev(ss.str());
  std::error_code ec;
  for (const auto& dev : std::filesystem::directory_iterator("/sys/class/infiniband", ec)) {
    for (const auto& port : std::filesystem::directory_iterator(dev.path() / "ports", ec)) {
      std::ifstream x(port.path() / "counters" / "port_xmit_data");
      unsigned long long words = 0;
      if (x >> words) c.infiniband_tx += words * 4;  // counted in 4-byte words
    }
  }
  return c;
}

ObservedPath observe_path(const MpiComm& comm, const std::vector<std::string>& rank_hosts, std::size_t probe_bytes) {
  const int n = comm.size(), rank = comm.rank();
  if (n == 1) return {"self", "one rank: no transport between ranks"};
  const int next = (rank + 1) % n, prev = (rank + n - 1) % n;
  std::vector<char> out(probe_bytes, 1), in(probe_bytes);
  const bool leader = comm.local_rank() == 0;
  comm.barrier();
  const NetCounters before = leader ? read_net_counters() : NetCounters{};
  comm.barrier();
  MPI_Sendrecv(out.data(), static_cast<int>(probe_bytes), MPI_BYTE, next, 9, in.data(), static_cast<int>(probe_bytes),
               MPI_BYTE, prev, 9, comm.handle(), MPI_STATUS_IGNORE);
  comm.barrier();
  const NetCounters after = leader ? read_net_counters() : NetCounters{};

  // Bytes this node's ranks sent to the same host and to other hosts.
  const bool same_host = rank_hosts[static_cast<std::size_t>(rank)] == rank_hosts[static_cast<std::size_t>(next)];
  unsigned long long mine[2] = {same_host ? probe_bytes : 0ull, same_host ? 0ull : probe_bytes}, node[2];
  MPI_Comm local;
  MPI_Comm_split_type(comm.handle(), MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
  MPI_Reduce(mine, node, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, local);
  MPI_Comm_free(&local);

  std::string verdict, evidence;
  if (leader) {
    const auto lo = after.loopback_tx - before.loopback_tx;
    const auto net = after.other_tx - before.other_tx;
    const auto ib = after.infiniband_tx - before.infiniband_tx;
    std::string intra, inter;
    if (node[0] > 0) intra = lo * 2 >= node[0] ? "tcp" : "shm";
    if (node[1] > 0) inter = ib * 2 >= node[1] ? "rdma" : net * 2 >= node[1] ? "tcp" : "unverified";
    verdict = !inter.empty() ? inter : intra;
    evidence = fmt::format(
        "{}: probe sent {} B to same-host and {} B to other-host ranks; loopback +{} B, other "
        "interfaces +{} B, InfiniBand +{} B{}{}",
        rank_hosts[static_cast<std::size_t>(rank)], node[0], node[1], lo, net, ib,
        intra.empty() ? "" : "; intra-node " + intra, inter.empty() ? "" : "; inter-node " + inter);
  }
  // Every rank combines the node leaders' verdicts the same way.
  const auto verdicts = comm.all_strings(verdict);
  const auto evidences = comm.all_strings(evidence);
  ObservedPath result;
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    if (verdicts[i].empty()) continue;
    if (result.path.empty()) result.path = verdicts[i];
    else if (result.path != verdicts[i]) result.path = "mixed";
    result.evidence += (result.evidence.empty() ? "" : " | ") + evidences[i];
  }
  return result;
}

}  // namespace ccb
