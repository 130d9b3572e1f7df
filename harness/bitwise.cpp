#include "harness/bitwise.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
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

std::string host_of(const std::vector<std::string>& hosts, int rank) {
  return rank >= 0 && static_cast<std::size_t>(rank) < hosts.size() ? hosts[static_cast<std::size_t>(rank)] : "?";
}

}  // namespace

BitwiseOutcome check_bitwise(int repeats, const Comm& comm, Memory& mem, const std::function<void()>& run_once,
                             const void* result, std::size_t bytes, std::size_t elem, bool same_everywhere,
                             int flip_at_repeat) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const std::vector<std::string> rank_hosts = comm.all_strings(host);
  BitwiseOutcome out;
  out.repeats = repeats;
  const int me = comm.rank();
  std::vector<unsigned char> first(result ? bytes : 0), now(result ? bytes : 0);
  std::string mine;  // this rank's first difference between repeats, in words
  std::uint64_t differing = 0;
  for (int k = 1; k <= repeats; ++k) {
    run_once();
    if (!result || bytes == 0) continue;
    std::vector<unsigned char>& into = k == 1 ? first : now;
    mem.copy_to_host(result, bytes, into.data());
    if (k == flip_at_repeat) into[bytes / 2] ^= 0x01;  // test-only: one bit of one element
    if (k == 1 || std::memcmp(first.data(), now.data(), bytes) == 0) continue;
    for (std::size_t i = 0; i < bytes; i += std::max<std::size_t>(elem, 1))
      differing += std::memcmp(first.data() + i, now.data() + i, std::min(elem, bytes - i)) != 0;
    if (mine.empty())
      if (const auto d = first_bit_difference(first.data(), now.data(), bytes, elem))
        mine = fmt::format("rank {} ({}) repeat {} differs from repeat 1 at element {}, bit {}", me,
                           host_of(rank_hosts, me), k, d->element, d->bit);
  }
  // The first rank (lowest) with a difference between its repeats speaks for all.
  const std::vector<std::string> said = comm.all_strings(mine);
  for (const std::string& s : said)
    if (!s.empty()) {
      out.first = s;
      break;
    }
  // Across ranks: every holder's first repeat against the others'.
  if (same_everywhere) {
    out.across_ranks = true;
    const uint64_t print = result && bytes ? fingerprint(first.data(), bytes) : 0;
    const std::vector<std::string> all = comm.all_strings(result && bytes ? std::to_string(print) : "");
    std::vector<uint64_t> prints;
    std::vector<int> holders;
    for (std::size_t r = 0; r < all.size(); ++r)
      if (!all[r].empty()) prints.push_back(std::stoull(all[r])), holders.push_back(static_cast<int>(r));
    const std::vector<int> off = ranks_off_majority(prints);
    if (!off.empty()) {
      const int odd = holders[static_cast<std::size_t>(off.front())];
      // Where: rank 0's first repeat against the odd rank's (broadcast from rank 0).
      std::vector<unsigned char> reference = first;
      reference.resize(bytes);
      comm.broadcast(reference.data(), reference.size());
      std::string where;
      const int speaker = odd == 0 ? (holders.size() > 1 ? holders[1] : 0) : odd;
      if (me == speaker && result)
        if (const auto d = first_bit_difference(reference.data(), first.data(), bytes, elem))
          where = fmt::format(", first at element {}, bit {}", d->element, d->bit);
      std::string found;
      for (const std::string& s : comm.all_strings(where))
        if (!s.empty()) found = s;
      const std::string across = fmt::format("rank {} ({}) holds another result than the other {} ranks{}", odd,
                                             host_of(rank_hosts, odd), prints.size() - off.size(), found);
      out.first = out.first.empty() ? across : out.first + "; " + across;
      if (result && bytes &&
          std::find(off.begin(), off.end(),
                    static_cast<int>(std::find(holders.begin(), holders.end(), me) - holders.begin())) != off.end())
        differing += 1;
    }
  }
  out.differing = comm.sum(differing);
  return out;
}

}  // namespace ccb
