// Asking Open MPI for a transport (MCA parameters set before MPI_Init) and
// observing which one carried the data (interface byte counters around a
// probe transfer).
#pragma once
#include "common/settings.hpp"
#include <string>
#include <vector>

#include "harness/comm_mpi.hpp"

namespace ccb {

// Sets OMPI_MCA_pml / OMPI_MCA_btl for the path ("auto": nothing), and
// OMPI_MCA_btl_tcp_if_include for `tcp_if` (--tcp-if: names or CIDR
// subnets). Throws UsageError when the path cannot exist here (rdma without
// /sys/class/infiniband), when --tcp-if names an interface this host does not
// have, or when OMPI_MCA_btl_tcp_if_exclude is set too (Open MPI refuses both).
void request_mpi_path(PathRequest path, const std::string& tcp_if = "");

// The interfaces Open MPI's TCP transport may use on this host, in words:
// "pinned: eth0" (btl_tcp_if_include), "all but: docker0" (exclude), or
// "any that is up (Open MPI's default): eth0, br0". `several` is set when
// nothing is pinned and more than one non-loopback interface is up.
std::string tcp_interfaces_allowed(bool* several = nullptr);
// The up interfaces of this host (/sys/class/net), loopback included.
std::vector<std::string> up_interfaces();

struct ObservedPath {
  std::string path;      // self, shm, tcp, rdma, unverified
  std::string evidence;  // the counters behind the verdict
};

// Collective over comm: every rank sends `probe_bytes` to the next rank in a
// ring while each node's first rank reads its network counters before and
// after. Loopback bytes >= half the node's same-host bytes: intra-node tcp,
// else shm; other interfaces (or InfiniBand ports) >= half the cross-host
// bytes: inter-node tcp (or rdma), else unverified. Result on every rank.
ObservedPath observe_path(const MpiComm& comm, const std::vector<std::string>& rank_hosts,
                          std::size_t probe_bytes = std::size_t{8} << 20);

// Totals read from /proc/net/dev and /sys/class/infiniband (for tests too).
struct NetCounters {
  unsigned long long loopback_tx = 0, other_tx = 0, infiniband_tx = 0;
};
NetCounters read_net_counters();
NetCounters parse_proc_net_dev(const std::string& text);

}  // namespace ccb
