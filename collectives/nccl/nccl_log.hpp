// What NCCL says it used, read from its INFO log (NCCL_DEBUG=INFO, one file
// per process): the transport of every connection it set up, which algorithm
// each connection was set up for, and (when NCCL_DEBUG_SUBSYS has TUNING) the
// algorithm and protocol NCCL chose for each collective; and whether that is
// the path that was asked for. Pure text processing, no NCCL needed.
#pragma once
#include "common/settings.hpp"
#include <istream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>
#include <string_view>

namespace ccb {

struct NcclTransports {
  // Path classes: p2p (NVLink or PCIe peer access), shm, rdma (NET/IB and RDMA
  // network plugins), tcp (NET/Socket), net (another network plugin), nvls, collnet.
  std::set<std::string> classes;
  // The transports as NCCL spells them: "P2P/CUMEM/read", "NET/IB/3/GDRDMA", ...
  std::set<std::string> transports;
  std::string network;   // from "Using network X", empty when not seen
  long connections = 0;  // "via" lines seen
  // Transports by what they were set up for: ring, tree, pat (binomial trees),
  // nvls, nvls_tree, collnet (the "Connected ..." line that follows a thread's
  // "via" lines), p2p (connection index 1: ncclSend/ncclRecv and what NCCL builds on them).
  std::map<std::string, std::set<std::string>> by_setup;
  // Per logging thread ("host:pid:tid"): connections whose "Connected ..." line has not come yet.
  std::map<std::string, std::set<std::string>> pending;
  // NCCL_TUNING lines ("AllReduce: 4096 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..1}",
  // rank 0 of each communicator only) as "RING/LL/2ch", until the backend takes them (NcclBackend::chosen_algorithms).
  std::set<std::string> algorithms;
};

// Reads one log line into `out`; lines that say nothing about transports or algorithms are ignored.
void parse_nccl_log_line(std::string_view line, NcclTransports& out);
NcclTransports parse_nccl_log(std::istream& in);

// The class of one "via" transport ("P2P/IPC" -> p2p, "NET/IBext_v8/1" -> rdma, ...).
std::string transport_class(std::string_view transport);

// The transports that operations which chose `algorithms` ("RING/LL/2ch", ...;
// empty: operations with no tuning line, i.e. point-to-point ones) used, from
// what `seen` attributes to each algorithm. nullopt when that cannot be told
// (an unknown algorithm, or a connection no "Connected ..." line has placed).
std::optional<std::set<std::string>> transports_used_by(const NcclTransports& seen,
                                                        const std::set<std::string>& algorithms);

// The last `n` WARN lines of a process's NCCL log ("host:pid:tid [0] file.cc:123
// NCCL WARN ..."), each cut to what follows "NCCL WARN ": what an NCCL error
// message adds to "unhandled system error".
std::vector<std::string> last_warn_lines(std::string_view log_text, std::size_t n);
// An NCCL call's failure in words: "WHAT: ERROR_STRING", then NCCL's own last
// error ("NCCL: ...") and the log's last WARN lines with the log's path.
std::string nccl_failure_text(const std::string& what, const std::string& error_string, const std::string& last_error,
                              const std::vector<std::string>& warns, const std::string& log_file);

// NCCL_DEBUG_SUBSYS with TUNING added (the tuning lines name each operation's
// algorithm); `current` is the variable's value, nullptr when unset. And
// whether a value logs TUNING lines.
std::string nccl_subsys_with_tuning(const char* current);
bool nccl_subsys_logs_tuning(const char* current);

// Compares a requested path (auto, nvlink, pcie, shm, rdma, tcp) with what was
// observed: "" when consistent, else one sentence saying what differs.
std::string path_mismatch(PathRequest request, const std::set<std::string>& observed_classes, int nodes);

}  // namespace ccb
