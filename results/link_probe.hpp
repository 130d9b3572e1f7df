// --stragglers' link probe (docs/stragglers.md "Slow links"): a slow link does
// not make its host arrive late, since every rank of a ring or tree waits for
// it alike, so it is probed on its own. One rank per host, in a ring of the
// hosts: each sends B bytes to the next while receiving from the previous
// (pass A), then the other way round (pass B), timing its own exchange;
// repeats' medians. Read here: the link between ring positions p and p+1 is
// used by p's and p+1's exchanges of each pass, so its time is, per pass, the
// smaller of theirs (a slow link slows both; another slow link slows only
// one of them), and the larger over the two passes. A link is slow beyond
// kSlowLinkFactor x the fastest quarter's time (the 25th percentile: with one
// slow host two of the ring's links are slow, which a median over 4 hosts
// would not stand apart from); a host is named when both its ring links are
// slow, a single slow link by its two hosts.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace ccb {

inline constexpr double kSlowLinkFactor = 1.5;
// With 3 hosts every exchange touches a slow host, so none stands apart: 4 or more.
inline constexpr std::size_t kLinkProbeHosts = 4;

struct LinkReading {
  std::vector<std::string> hosts;       // ring order
  std::vector<double> link_s;           // link p: hosts[p] <-> hosts[p+1 mod n]
  double reference_s = 0;               // the fastest quarter's link time (25th percentile)
  std::vector<int> slow_links;          // indexes into link_s
  std::vector<std::string> slow_hosts;  // both ring links slow
  std::string text() const;             // one line for the table's header
};

// pass_a_s[p], pass_b_s[p]: ring position p's median exchange time in each
// pass. Needs kLinkProbeHosts or more hosts (fewer: nothing read).
LinkReading read_links(const std::vector<std::string>& hosts, const std::vector<double>& pass_a_s,
                       const std::vector<double>& pass_b_s);

}  // namespace ccb
