#include "harness/bitwise.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <sstream>
#include <cstring>
#include <map>

namespace ccb {

uint64_t fingerprint(const unsigned char* data, std::size_t bytes) {
  uint64_t h = 1469598103934665603ULL;
  for (std::size_t i = 0; i < bytes; ++i) h = (h ^ data[i]) * 1099511628211ULL;
  return h;
}

std::optional<BitDifference> first_bit_difference(const unsigned char* a, const unsigned char* b, std::size_t bytes,
                                                  std::size_t elem) {
  for (std::size_t i = 0; i < bytes; ++i) {
    if (a[i] == b[i]) continue;
    const unsigned x = static_cast<unsigned>(a[i] ^ b[i]);
    int bit = 0;
    while (!(x & (1u << bit))) ++bit;
    const std::size_t e = std::max<std::size_t>(elem, 1);
    return BitDifference{i / e, static_cast<int>(i % e) * 8 + bit};
  }
  return std::nullopt;
}

std::vector<int> ranks_off_majority(const std::vector<uint64_t>& prints) {
  if (prints.empty()) return {};
  std::map<uint64_t, int> votes;
  for (uint64_t p : prints) ++votes[p];
  uint64_t reference = prints.front();
  for (const auto& [p, n] : votes)
    if (n > votes[reference]) reference = p;
  std::vector<int> off;
  for (std::size_t r = 0; r < prints.size(); ++r)
    if (prints[r] != reference) off.push_back(static_cast<int>(r));
  return off;
}

namespace {

// Every holder's fingerprint of its first repeat, over all processes, by world rank.
struct Print {
  int rank;
  uint64_t print;
  std::size_t bytes;
};
std::vector<Print> all_prints(const Comm& comm, std::span<const BitwiseRegion> regions,
                              const std::vector<std::vector<unsigned char>>& first) {
  std::string mine;
  for (std::size_t i = 0; i < regions.size(); ++i)
    if (!first[i].empty())
      mine += fmt::format("{}:{}:{} ", regions[i].rank, fingerprint(first[i].data(), first[i].size()), first[i].size());
  std::vector<Print> prints;
  for (const std::string& text : comm.all_strings(mine)) {
    std::istringstream in(text);
    std::string item;
    while (in >> item) {
      Print p{};
      if (std::sscanf(item.c_str(), "%d:%" SCNu64 ":%zu", &p.rank, &p.print, &p.bytes) == 3) prints.push_back(p);
    }
  }
  std::sort(prints.begin(), prints.end(), [](const Print& a, const Print& b) { return a.rank < b.rank; });
  return prints;
}

}  // namespace

BitwiseOutcome check_bitwise(int repeats, const Comm& comm, Memory& mem, const std::function<void()>& run_once,
                             std::span<const BitwiseRegion> regions, std::size_t elem, bool same_everywhere) {
  // Every world rank's host: each process names its host and its ranks.
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::string my_ranks;
  for (const BitwiseRegion& r : regions) my_ranks += std::to_string(r.rank) + " ";
  const std::vector<std::string> hosts = comm.all_strings(host), ranks = comm.all_strings(my_ranks);
  std::map<int, std::string> rank_host;
  for (std::size_t p = 0; p < ranks.size() && p < hosts.size(); ++p) {
    std::istringstream in(ranks[p]);
    for (int r; in >> r;) rank_host[r] = hosts[p];
  }
  const auto host_of = [&](int rank) {
    const auto it = rank_host.find(rank);
    return it == rank_host.end() ? std::string("?") : it->second;
  };

  BitwiseOutcome out;
  out.repeats = repeats;
  const auto holds = [&](std::size_t i) { return regions[i].data && regions[i].bytes > 0; };
  std::vector<std::vector<unsigned char>> first(regions.size()), now(regions.size());
  for (std::size_t i = 0; i < regions.size(); ++i)
    if (holds(i)) first[i].resize(regions[i].bytes), now[i].resize(regions[i].bytes);
  std::string mine;  // this process's first difference between repeats, in words
  std::uint64_t differing = 0;
  for (int k = 1; k <= repeats; ++k) {
    run_once();
    for (std::size_t i = 0; i < regions.size(); ++i) {
      if (!holds(i)) continue;
      const BitwiseRegion& r = regions[i];
      std::vector<unsigned char>& into = k == 1 ? first[i] : now[i];
      mem.copy_to_host(r.data, r.bytes, into.data());
      if (k == r.flip_at_repeat) into[r.bytes / 2] ^= 0x01;  // test-only: one bit of one element
      if (k == 1 || std::memcmp(first[i].data(), now[i].data(), r.bytes) == 0) continue;
      for (std::size_t b = 0; b < r.bytes; b += std::max<std::size_t>(elem, 1))
        differing += std::memcmp(first[i].data() + b, now[i].data() + b, std::min(elem, r.bytes - b)) != 0;
      if (mine.empty())
        if (const auto d = first_bit_difference(first[i].data(), now[i].data(), r.bytes, elem))
          mine = fmt::format("rank {} ({}) repeat {} differs from repeat 1 at element {}, bit {}", r.rank,
                             host_of(r.rank), k, d->element, d->bit);
    }
  }
  // The first process (lowest) with a difference between its repeats speaks for all.
  for (const std::string& s : comm.all_strings(mine))
    if (!s.empty()) {
      out.first = s;
      break;
    }
  // Across ranks: every holder's first repeat against the others'.
  if (same_everywhere) {
    out.across_ranks = true;
    const std::vector<Print> all = all_prints(comm, regions, first);
    std::vector<uint64_t> prints;
    for (const Print& p : all) prints.push_back(p.print);
    const std::vector<int> off = ranks_off_majority(prints);
    if (!off.empty()) {
      const int odd = all[static_cast<std::size_t>(off.front())].rank;
      // Where: the lowest holder's first repeat (broadcast from its process,
      // process 0) against the odd rank's (or, when the lowest is the odd
      // one, against the next holder's).
      const std::size_t ref_bytes = all.front().bytes;
      std::vector<unsigned char> reference(ref_bytes);
      for (std::size_t i = 0; i < regions.size(); ++i)
        if (regions[i].rank == all.front().rank && first[i].size() == ref_bytes) reference = first[i];
      comm.broadcast(reference.data(), reference.size());
      const int speaker = odd == all.front().rank ? (all.size() > 1 ? all[1].rank : odd) : odd;
      std::string where;
      for (std::size_t i = 0; i < regions.size(); ++i)
        if (regions[i].rank == speaker && first[i].size() == ref_bytes)
          if (const auto d = first_bit_difference(reference.data(), first[i].data(), ref_bytes, elem))
            where = fmt::format(", first at element {}, bit {}", d->element, d->bit);
      std::string found;
      for (const std::string& s : comm.all_strings(where))
        if (!s.empty()) found = s;
      const std::string across = fmt::format("rank {} ({}) holds another result than the other {} ranks{}", odd,
                                             host_of(odd), prints.size() - off.size(), found);
      out.first = out.first.empty() ? across : out.first + "; " + across;
      for (const int o : off)
        for (const BitwiseRegion& r : regions)
          if (r.rank == all[static_cast<std::size_t>(o)].rank && r.data && r.bytes) differing += 1;
    }
  }
  out.differing = comm.sum(differing);
  return out;
}

}  // namespace ccb
