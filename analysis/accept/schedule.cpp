#include "analysis/accept/schedule.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace ccb {
namespace {

NodeGroup pair_of(int a, int b) { return a < b ? NodeGroup{a, b} : NodeGroup{b, a}; }

std::vector<Round> round_robin(int n) {
  // Circle method over m = n (even) or n + 1 (odd, m-1 is the bye) places:
  // place m-1 stays, the others rotate one step per round.
  const int m = n % 2 == 0 ? n : n + 1;
  std::vector<Round> rounds;
  for (int r = 0; r < m - 1; ++r) {
    Round round;
    for (int i = 0; i < m / 2; ++i) {
      const int a = i == 0 ? m - 1 : (r + i) % (m - 1);
      const int b = (r + m - 1 - i) % (m - 1);
      if (a < n && b < n) round.push_back(pair_of(a, b));
    }
    std::sort(round.begin(), round.end());
    rounds.push_back(round);
  }
  return rounds;
}

std::vector<Round> ring(int n) {
  if (n == 2) return {{{0, 1}}};
  std::vector<Round> rounds(n % 2 == 0 ? 2 : 3);
  for (int i = 0; i < n; ++i) {
    const int r = (n % 2 == 1 && i == n - 1) ? 2 : i % 2;
    rounds[static_cast<std::size_t>(r)].push_back(pair_of(i, (i + 1) % n));
  }
  return rounds;
}

}  // namespace

std::vector<Round> schedule(GroupPattern p, int nodes) {
  switch (p) {
    case GroupPattern::all: {
      NodeGroup all;
      for (int i = 0; i < nodes; ++i) all.push_back(i);
      return {{all}};
    }
    case GroupPattern::per_node: {
      Round r;
      for (int i = 0; i < nodes; ++i) r.push_back({i});
      return {r};
    }
    case GroupPattern::pairwise: return nodes < 2 ? std::vector<Round>{} : round_robin(nodes);
    case GroupPattern::ring: return nodes < 2 ? std::vector<Round>{} : ring(nodes);
    case GroupPattern::bisect:
      return schedule(GroupPattern::all, nodes);  // its first round; later ones depend on results (check_rounds.hpp)
  }
  return {};
}

std::vector<Round> second_pass_rounds(const std::vector<int>& suspects, const std::vector<int>& references) {
  std::vector<Round> rounds;
  if (references.empty()) return rounds;
  const std::size_t per_round = references.size();
  for (std::size_t at = 0; at < suspects.size(); at += per_round) {
    Round r;
    for (std::size_t i = at; i < std::min(suspects.size(), at + per_round); ++i)
      r.push_back(pair_of(suspects[i], references[i - at]));
    rounds.push_back(r);
  }
  return rounds;
}

std::vector<int> greedy_cover(const std::vector<std::pair<int, int>>& failing_pairs) {
  std::vector<std::pair<int, int>> left = failing_pairs;
  std::vector<int> cover;
  while (!left.empty()) {
    std::map<int, int> count;
    for (const auto& [a, b] : left) {
      ++count[a];
      ++count[b];
    }
    int best = count.begin()->first;
    for (const auto& [node, c] : count)
      if (c > count[best]) best = node;
    cover.push_back(best);
    std::erase_if(left, [&](const std::pair<int, int>& p) { return p.first == best || p.second == best; });
  }
  std::sort(cover.begin(), cover.end());
  return cover;
}

std::string group_hosts(const NodeGroup& g, const std::vector<std::string>& hosts) {
  std::string s;
  for (int n : g) s += (s.empty() ? "" : " + ") + hosts[static_cast<std::size_t>(n)];
  return s;
}

}  // namespace ccb
