// Which nodes measure together, round by round. Groups of one round run at
// the same time (they share no node); rounds run one after another.
#pragma once
#include <string>
#include <vector>

#include "analysis/accept/spec.hpp"

namespace ccb {

using NodeGroup = std::vector<int>;  // node indices, ascending
using Round = std::vector<NodeGroup>;

// all: one group of every node. per-node: every node alone, one round.
// pairwise: every pair once, round-robin (circle method): n-1 rounds for even
// n, n rounds for odd n (one node sits out each round). ring: the pairs
// (i, i+1 mod n), two rounds for even n, three for odd n (one pair for n = 2).
// Pairwise and ring need at least 2 nodes (an empty schedule otherwise).
std::vector<Round> schedule(GroupPattern p, int nodes);

// Second pass: each suspect paired with a reference node, spread over the
// references so that a round uses each node at most once.
std::vector<Round> second_pass_rounds(const std::vector<int>& suspects, const std::vector<int>& references);

// The references when no node is free of failing pairs: every failing pair
// (a, b) must contain a node of the cover; nodes outside it are presumed good.
// Greedy: the node in most unexplained failing pairs first (ties: lower index).
std::vector<int> greedy_cover(const std::vector<std::pair<int, int>>& failing_pairs);

// "h1 + h3": the host names of a group's nodes.
std::string group_hosts(const NodeGroup& g, const std::vector<std::string>& hosts);

}  // namespace ccb
