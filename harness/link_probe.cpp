#include "harness/link_probe.hpp"

#include <cstring>
#include <set>
#include <vector>

#include "results/stats.hpp"

namespace ccb {

LinkProbe probe_links(const Comm& comm, const std::string& my_host, std::size_t bytes, int repeats) {
  LinkProbe probe;
  probe.bytes = bytes;
  probe.repeats = repeats;
  const std::vector<std::string> hosts = comm.all_strings(my_host);
  std::vector<std::string> ring;  // the hosts in the order of their lowest rank
  std::set<std::string> seen;
  bool leader = false;
  for (int r = 0; r < static_cast<int>(hosts.size()); ++r)
    if (seen.insert(hosts[static_cast<std::size_t>(r)]).second) {
      ring.push_back(hosts[static_cast<std::size_t>(r)]);
      leader = leader || r == comm.rank();
    }
  if (ring.size() < kLinkProbeHosts) {
    probe.reading.hosts = ring;
    return probe;
  }
  const std::unique_ptr<Comm> sub = comm.split(leader ? 0 : -1);
  if (!sub) return probe;
  const int n = sub->size(), p = sub->rank();
  const int next = (p + 1) % n, prev = (p + n - 1) % n;
  std::vector<char> out(bytes, static_cast<char>(p)), in(bytes);
  std::vector<double> a, b;
  for (int k = 0; k < repeats; ++k) {
    sub->barrier();
    a.push_back(sub->exchange_s(next, prev, out.data(), in.data(), bytes));
    sub->barrier();
    b.push_back(sub->exchange_s(prev, next, out.data(), in.data(), bytes));
  }
  const double mine[2] = {median_of(a), median_of(b)};
  const std::vector<std::string> all =
      sub->gather_strings(std::string(reinterpret_cast<const char*>(mine), sizeof mine));
  if (sub->rank() != 0) return probe;
  std::vector<double> pass_a, pass_b;
  for (const std::string& s : all) {
    double v[2] = {0, 0};
    std::memcpy(v, s.data(), std::min(s.size(), sizeof v));
    pass_a.push_back(v[0]);
    pass_b.push_back(v[1]);
  }
  probe.reading = read_links(ring, pass_a, pass_b);
  return probe;
}

}  // namespace ccb
