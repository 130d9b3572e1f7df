// --stragglers' link probe, measured (results/link_probe.hpp reads it): one
// rank per host (the lowest rank of each) in a ring of the hosts, B bytes each
// way with MPI_Sendrecv, `repeats` times per pass. Collective over `comm`;
// the reading is on rank 0 (empty elsewhere, and with fewer than 4 hosts).
// It goes over MPI, the control plane's path between hosts; on a GPU run
// NCCL may use other NICs.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include "harness/comm.hpp"
#include "results/link_probe.hpp"

namespace ccb {

inline constexpr std::size_t kLinkProbeBytes = std::size_t{2} << 20;
inline constexpr int kLinkProbeRepeats = 3;

struct LinkProbe {
  std::size_t bytes = 0;
  int repeats = 0;
  LinkReading reading;  // rank 0's; no links with fewer than 3 hosts
};

LinkProbe probe_links(const Comm& comm, const std::string& my_host, std::size_t bytes = kLinkProbeBytes,
                      int repeats = kLinkProbeRepeats);

}  // namespace ccb
