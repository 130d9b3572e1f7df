#include "analysis/accept/check_rounds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace ccb {
namespace {

// Largest group whose persistent failure (halves passing) is searched pair
// by pair; a larger one is reported as the group's problem.
constexpr std::size_t kPairwiseInsideMax = 16;

bool disjoint(const NodeGroup& g, const std::set<int>& busy) {
  return std::none_of(g.begin(), g.end(), [&](int n) { return busy.count(n) > 0; });
}

// Puts `g` into the first round where it meets no node already there, or a
// new round.
void pack(std::vector<Round>& rounds, const NodeGroup& g) {
  for (Round& r : rounds) {
    std::set<int> busy;
    for (const NodeGroup& x : r) busy.insert(x.begin(), x.end());
    if (disjoint(g, busy)) {
      r.push_back(g);
      return;
    }
  }
  rounds.push_back({g});
}

}  // namespace

CheckRounds::CheckRounds(const Check& c, int nodes, std::vector<std::string> switches)
    : check_(c), nodes_(nodes), switches_(std::move(switches)) {
  verdict_.check = &c;
  if (switches_.size() != static_cast<std::size_t>(nodes)) switches_.clear();
  if (c.pattern != GroupPattern::bisect) first_rounds_ = schedule(c.pattern, nodes);
  confirm_fail_.resize(static_cast<std::size_t>(nodes));
  confirm_pass_.assign(static_cast<std::size_t>(nodes), -1);
}

// ---- all, per-node, pairwise, ring --------------------------------------

std::optional<PlannedRound> CheckRounds::next() {
  if (check_.pattern == GroupPattern::bisect) return next_bisect();
  const bool pairs = check_.pattern == GroupPattern::pairwise || check_.pattern == GroupPattern::ring;
  if (phase_ == Phase::first && first_next_ == first_rounds_.size()) {
    phase_ = Phase::second;
    verdict_.suspects = find_suspects(verdict_.first, nodes_);
    if (pairs && check_.second_pass) {
      second_rounds_ = second_pass_rounds(verdict_.suspects.suspects, verdict_.suspects.references);
    } else {
      verdict_.suspects.references.clear();
      // per-node: a failing node is measured again before it is named.
      Round r;
      if (check_.pattern == GroupPattern::per_node)
        for (const GroupVerdict& g : verdict_.first)
          if (!g.pass) r.push_back(g.run.nodes);
      if (!r.empty()) second_rounds_.push_back(r);
    }
  }
  if (phase_ == Phase::second && second_next_ == second_rounds_.size()) {
    phase_ = Phase::reconfirm;
    // A suspect that failed with its reference is paired with another one
    // before it is named.
    std::set<int> refs(verdict_.suspects.references.begin(), verdict_.suspects.references.end());
    for (const GroupVerdict& g : verdict_.second) {
      if (g.pass || g.run.nodes.size() != 2 || !pairs) continue;
      const int x = refs.count(g.run.nodes[0]) ? g.run.nodes[1] : g.run.nodes[0];
      const int first_ref = g.run.nodes[0] == x ? g.run.nodes[1] : g.run.nodes[0];
      for (int r : verdict_.suspects.references)
        if (r != first_ref && r != x) {
          pack(reconfirm_rounds_, x < r ? NodeGroup{x, r} : NodeGroup{r, x});
          break;
        }
    }
  }
  if (phase_ == Phase::reconfirm && reconfirm_next_ == reconfirm_rounds_.size()) {
    phase_ = Phase::pair_retest;
    // Pairwise/ring: a failing pair whose nodes both passed with references
    // is run again as the same pair before the link between them is named.
    std::set<int> cleared;
    for (const GroupVerdict& g : verdict_.second)
      if (g.pass) cleared.insert(g.run.nodes.begin(), g.run.nodes.end());
    for (const GroupVerdict& g : verdict_.first) {
      if (!pairs || g.pass || g.run.nodes.size() != 2 || !cleared.count(g.run.nodes[0]) ||
          !cleared.count(g.run.nodes[1]))
        continue;
      pack(retest_rounds_, g.run.nodes);
    }
  }
  PlannedRound r;
  if (phase_ == Phase::first) {
    r = {first_rounds_[first_next_], 1, static_cast<int>(first_next_)};
    ++first_next_;
  } else if (phase_ == Phase::second) {
    r = {second_rounds_[second_next_], 2, static_cast<int>(second_next_)};
    round_role_ = check_.pattern == GroupPattern::per_node ? GroupRole::retest : GroupRole::confirm;
    ++second_next_;
  } else if (phase_ == Phase::reconfirm) {
    r = {reconfirm_rounds_[reconfirm_next_], 2, static_cast<int>(second_rounds_.size() + reconfirm_next_)};
    round_role_ = GroupRole::reconfirm;
    ++reconfirm_next_;
  } else if (retest_next_ < retest_rounds_.size()) {
    r = {retest_rounds_[retest_next_], 2,
         static_cast<int>(second_rounds_.size() + reconfirm_rounds_.size() + retest_next_)};
    round_role_ = GroupRole::pair_retest;
    ++retest_next_;
  } else {
    return std::nullopt;
  }
  ++rounds_;
  return r;
}

void CheckRounds::record(const std::vector<GroupVerdict>& judged) {
  if (check_.pattern == GroupPattern::bisect) {
    record_bisect(judged);
    return;
  }
  for (const GroupVerdict& g : judged) {
    GroupVerdict copy = g;
    if (g.run.pass == 2) copy.run.role = round_role_;
    keep(std::move(copy), g.run.pass == 1 ? verdict_.first : verdict_.second);
  }
}

void CheckRounds::keep(GroupVerdict g, std::vector<GroupVerdict>& into) {
  if (sink_) sink_(g);
  g.run.repeats = {};
  into.push_back(std::move(g));
}

CheckVerdict CheckRounds::finish(const std::vector<std::string>& hosts) {
  if (check_.pattern == GroupPattern::bisect) return finish_bisect(hosts);
  const auto order = [](const GroupVerdict& a, const GroupVerdict& b) {
    return std::tie(a.run.round, a.run.nodes) < std::tie(b.run.round, b.run.nodes);
  };
  std::stable_sort(verdict_.first.begin(), verdict_.first.end(), order);
  std::stable_sort(verdict_.second.begin(), verdict_.second.end(), order);
  judge_nodes(verdict_, hosts);
  verdict_.rounds = rounds_;
  return verdict_;
}

// ---- bisect ---------------------------------------------------------------
//
// Adaptive binary splitting (Hwang's generalised binary splitting, in its
// parallel form for an unknown number of defectives): a group that passes
// clears all its nodes; a failing group of 4 or more is split into two halves
// (along switches first when they are known) that run in the next round,
// together with the halves of every other failing group; a failing group of 2
// or 3 has each member paired with a cleared node (confirm). Rounds grow as
// log2(n) + a few; groups as O(k log n).
// Noise: a member that fails its confirmation is confirmed again with another
// reference and named only when both fail; a failing group whose halves all
// pass is re-tested whole before anything is concluded; a failing small group
// whose members all pass with references is re-tested as the same group
// before the link between them is named.

std::vector<NodeGroup> CheckRounds::split(const NodeGroup& g) const {
  if (!switches_.empty()) {
    std::map<std::string, NodeGroup> by;
    for (int n : g) by[switches_[static_cast<std::size_t>(n)]].push_back(n);
    if (by.size() > 1) {
      // Whole switches into two halves of about equal node count.
      std::vector<NodeGroup> parts;
      for (auto& [name, nodes] : by) parts.push_back(nodes);
      NodeGroup a, b;
      for (const NodeGroup& p : parts) {
        NodeGroup& smaller = a.size() <= b.size() ? a : b;
        smaller.insert(smaller.end(), p.begin(), p.end());
      }
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      if (a.size() >= 2 && b.size() >= 2) return {a, b};
    }
  }
  const std::size_t half = g.size() / 2;
  return {NodeGroup(g.begin(), g.begin() + static_cast<long>(half)),
          NodeGroup(g.begin() + static_cast<long>(half), g.end())};
}

int CheckRounds::reference_for(int subject, const std::set<int>& busy, int skip) const {
  if (cleared_.empty()) return -1;
  // Spread references: start at a place that depends on the subject.
  auto it = cleared_.lower_bound(static_cast<int>((static_cast<long long>(subject) * 7919) % std::max(1, nodes_)));
  for (std::size_t k = 0; k < cleared_.size(); ++k, ++it) {
    if (it == cleared_.end()) it = cleared_.begin();
    const int r = *it;
    if (r != subject && r != skip && !busy.count(r)) return r;
  }
  return -1;
}

void CheckRounds::confirm_members(const NodeGroup& g, std::size_t source) {
  pending_pairs_.push_back(source);
  // A node is confirmed once: not again when it is already defective,
  // cleared by a reference, or has a confirmation queued or running (it can
  // be in several failing groups).
  const auto confirming = [](const std::vector<Item>& items, int n) {
    return std::any_of(items.begin(), items.end(), [&](const Item& it) {
      return (it.role == GroupRole::confirm || it.role == GroupRole::reconfirm) && it.subject == n;
    });
  };
  for (int n : g) {
    if (std::find(defective_.begin(), defective_.end(), n) != defective_.end()) continue;
    if (confirm_pass_[static_cast<std::size_t>(n)] >= 0 || confirming(queue_, n) || confirming(running_, n)) continue;
    Item it;
    it.role = GroupRole::confirm;
    it.subject = n;
    queue_.push_back(it);
  }
}

// Every pair of `nodes` as search groups (round-robin order), at the front
// of the queue or its end.
void CheckRounds::queue_pairs_of(const std::vector<int>& nodes, bool front) {
  std::vector<Item> pairs;
  for (const Round& round : schedule(GroupPattern::pairwise, static_cast<int>(nodes.size())))
    for (const NodeGroup& local : round) {
      Item pair;
      pair.nodes = {nodes[static_cast<std::size_t>(local[0])], nodes[static_cast<std::size_t>(local[1])]};
      pair.role = GroupRole::search;
      pairs.push_back(pair);
    }
  queue_.insert(front ? queue_.begin() : queue_.end(), pairs.begin(), pairs.end());
}

void CheckRounds::after_search_failure(std::size_t index) {
  const NodeGroup g = tested_[index].item.nodes;
  if (g.size() >= 4) {
    const auto parts = split(g);
    tested_[index].children = static_cast<int>(parts.size());
    for (const NodeGroup& p : parts) {
      Item it;
      it.nodes = p;
      it.role = GroupRole::search;
      it.parent = static_cast<int>(index);
      queue_.push_back(it);
    }
  } else {
    confirm_members(g, index);
  }
}

void CheckRounds::after_children(std::size_t parent) {
  Tested& t = tested_[parent];
  if (t.children_passed < t.children) return;  // a failing half carries the search
  Item it = t.item;
  it.role = GroupRole::retest;
  it.parent = -1;
  queue_.push_back(it);
}

std::optional<PlannedRound> CheckRounds::next_bisect() {
  if (!started_) {
    started_ = true;
    Item all;
    for (int i = 0; i < nodes_; ++i) all.nodes.push_back(i);
    all.role = GroupRole::search;
    queue_.push_back(all);
  }
  running_.clear();
  std::set<int> busy;
  std::vector<Item> left;
  for (Item& it : queue_) {
    if (it.role == GroupRole::confirm || it.role == GroupRole::reconfirm) {
      if (!disjoint({it.subject}, busy)) {
        left.push_back(it);
        continue;
      }
      int skip = -1;
      if (it.role == GroupRole::reconfirm && !confirm_fail_[static_cast<std::size_t>(it.subject)].empty()) {
        const NodeGroup& before = tested_[confirm_fail_[static_cast<std::size_t>(it.subject)].front()].item.nodes;
        skip = before[0] == it.subject ? before[1] : before[0];
      }
      const int ref = reference_for(it.subject, busy, skip);
      if (ref < 0) {
        left.push_back(it);
        continue;
      }
      it.nodes = it.subject < ref ? NodeGroup{it.subject, ref} : NodeGroup{ref, it.subject};
    } else if (!disjoint(it.nodes, busy)) {
      left.push_back(it);
      continue;
    }
    busy.insert(it.nodes.begin(), it.nodes.end());
    running_.push_back(it);
  }
  queue_ = left;
  if (running_.empty() && !pairs_tried_) {
    // Only confirmations are left and no node is cleared to pair them with
    // (a small cluster, most of it failing): every pair of the suspects, to
    // find nodes that pass together and can serve as references.
    pairs_tried_ = true;
    std::vector<int> suspects;
    for (const Item& it : queue_) suspects.push_back(it.subject);
    std::sort(suspects.begin(), suspects.end());
    suspects.erase(std::unique(suspects.begin(), suspects.end()), suspects.end());
    if (suspects.size() >= 2) {
      queue_pairs_of(suspects, true);
      return next_bisect();
    }
  }
  if (running_.empty()) {
    for (const Item& it : queue_)
      if (std::find(unconfirmed_.begin(), unconfirmed_.end(), it.subject) == unconfirmed_.end())
        unconfirmed_.push_back(it.subject);
    queue_.clear();
    return std::nullopt;
  }
  PlannedRound r;
  r.pass = 1;
  r.round = search_round_++;
  for (const Item& it : running_) r.groups.push_back(it.nodes);
  ++rounds_;
  return r;
}

void CheckRounds::record_bisect(const std::vector<GroupVerdict>& judged) {
  for (const Item& it : running_) {
    const GroupVerdict* g = nullptr;
    for (const GroupVerdict& j : judged)
      if (j.run.nodes == it.nodes) g = &j;
    if (!g) continue;  // not run (interrupted)
    GroupVerdict copy = *g;
    copy.run.role = it.role;
    keep(std::move(copy), verdict_.first);
    const std::size_t index = tested_.size();
    tested_.push_back({it, g->pass});
    if (it.role == GroupRole::search) {
      if (g->pass) cleared_.insert(it.nodes.begin(), it.nodes.end());
      else after_search_failure(index);
      if (it.parent >= 0) {
        Tested& p = tested_[static_cast<std::size_t>(it.parent)];
        ++p.children_done;
        p.children_passed += g->pass ? 1 : 0;
        if (p.children_done == p.children) after_children(static_cast<std::size_t>(it.parent));
      }
    } else if (it.role == GroupRole::retest) {
      if (g->pass) {
        noise_.push_back(index);
      } else if (it.nodes.size() <= kPairwiseInsideMax) {
        // The group fails whole, twice, while each half passes: something
        // between nodes of different halves. Every pair inside it, by rounds.
        queue_pairs_of(it.nodes, false);
      } else {
        verdict_.findings.push_back(fmt::format(
            "the group of {} nodes fails as a whole ({}; twice) while each half passes: not a single node or link; "
            "suspect the fabric at this scale (e.g. a spine or uplink)",
            it.nodes.size(), g->reason));
        fabric_problem_ = true;
      }
    } else if (it.role == GroupRole::confirm || it.role == GroupRole::reconfirm) {
      after_confirm(it, g->pass, index);
    } else if (it.role == GroupRole::pair_retest) {
      if (g->pass) noise_.push_back(index);
      else links_.emplace_back(it.nodes.front(), it.nodes.back());
    }
  }
  retest_cleared_groups();
}

// A confirmation: a pass clears the node; a first failure confirms again, a
// second names it defective.
void CheckRounds::after_confirm(const Item& it, bool pass, std::size_t index) {
  const std::size_t s = static_cast<std::size_t>(it.subject);
  if (pass) {
    cleared_.insert(it.subject);
    confirm_pass_[s] = static_cast<int>(index);
    return;
  }
  confirm_fail_[s].push_back(index);
  if (it.role == GroupRole::confirm) {
    Item again;
    again.role = GroupRole::reconfirm;
    again.subject = it.subject;
    queue_.push_back(again);
  } else if (std::find(defective_.begin(), defective_.end(), it.subject) == defective_.end()) {
    defective_.push_back(it.subject);
  }
}

// Failing small groups whose members all passed with references: the same
// group once more, before anything between them is named.
void CheckRounds::retest_cleared_groups() {
  std::vector<std::size_t> still;
  for (std::size_t src : pending_pairs_) {
    const NodeGroup& g = tested_[src].item.nodes;
    bool resolved = true, all_clear = true;
    for (int n : g) {
      const bool bad = std::find(defective_.begin(), defective_.end(), n) != defective_.end() ||
                       std::find(unconfirmed_.begin(), unconfirmed_.end(), n) != unconfirmed_.end();
      const bool clear = confirm_pass_[static_cast<std::size_t>(n)] >= 0 ||
                         (cleared_.count(n) && confirm_fail_[static_cast<std::size_t>(n)].empty());
      if (!bad && !clear) resolved = false;
      if (!clear) all_clear = false;
    }
    if (!resolved) {
      still.push_back(src);
      continue;
    }
    if (all_clear) {
      Item it;
      it.nodes = g;
      it.role = GroupRole::pair_retest;
      queue_.push_back(it);
    }
  }
  pending_pairs_ = still;
}

CheckVerdict CheckRounds::finish_bisect(const std::vector<std::string>& hosts) {
  CheckVerdict& v = verdict_;
  v.rounds = rounds_;
  v.nodes.assign(hosts.size(), {});
  for (std::size_t i = 0; i < hosts.size(); ++i) v.nodes[i].host = hosts[i];
  const auto host = [&](int n) { return hosts[static_cast<std::size_t>(n)]; };
  // Per node: the last group it passed in, and counts.
  std::vector<const GroupVerdict*> passed_in(hosts.size(), nullptr);
  for (const GroupVerdict& g : v.first)
    for (int n : g.run.nodes) {
      NodeVerdict& nv = v.nodes[static_cast<std::size_t>(n)];
      ++nv.groups;
      nv.groups_passed += g.pass ? 1 : 0;
      if (g.pass && (g.run.role == GroupRole::search || g.run.role == GroupRole::retest))
        passed_in[static_cast<std::size_t>(n)] = &g;
    }
  for (std::size_t n = 0; n < hosts.size(); ++n) {
    NodeVerdict& nv = v.nodes[n];
    if (confirm_pass_[n] >= 0) {
      const GroupVerdict& g = v.first[static_cast<std::size_t>(confirm_pass_[n])];
      const int ref = g.run.nodes[0] == static_cast<int>(n) ? g.run.nodes[1] : g.run.nodes[0];
      nv.status = NodeStatus::cleared;
      nv.reason =
          fmt::format("in a failing group, then passed with reference {} ({})", host(ref), margin_text(g.margin));
    } else if (passed_in[n]) {
      const GroupVerdict& g = *passed_in[n];
      nv.status = NodeStatus::pass;
      nv.reason = fmt::format("passed in a group of {} nodes, round {} ({})", g.run.nodes.size(), g.run.round + 1,
                              margin_text(g.margin));
    }
  }
  name_defective(v, hosts);
  for (int u : unconfirmed_) {
    NodeVerdict& nv = v.nodes[static_cast<std::size_t>(u)];
    nv.status = NodeStatus::suspect;
    nv.reason = "in failing groups; no node passed that could serve as a reference";
    v.findings.push_back(fmt::format("{} is a suspect: {}", host(u), nv.reason));
  }
  v.links = links_;
  for (const auto& [a, b] : links_) {
    v.findings.push_back(
        fmt::format("link {} - {}: the pair fails, again when re-tested, while both nodes pass with "
                    "references: suspect the link or path between them",
                    host(a), host(b)));
  }
  for (std::size_t idx : noise_) {
    const Tested& t = tested_[idx];
    ++v.noise_findings;
    v.findings.push_back(fmt::format("{}: {} failed once and passed when re-tested ({})", kNoiseFinding,
                                     group_hosts(t.item.nodes, hosts), margin_text(v.first[idx].margin)));
  }
  name_switches(v, hosts.size());
  v.pass = defective_.empty() && unconfirmed_.empty() && links_.empty() && !fabric_problem_;
  return v;
}

// Each defective node's verdict: the references it failed with, the closest
// miss; a node whose every confirmation was noisy is a suspect instead.
void CheckRounds::name_defective(CheckVerdict& v, const std::vector<std::string>& hosts) const {
  const auto host = [&](int n) { return hosts[static_cast<std::size_t>(n)]; };
  for (int d : defective_) {
    NodeVerdict& nv = v.nodes[static_cast<std::size_t>(d)];
    nv.status = NodeStatus::defective;
    std::vector<std::string> refs;
    std::string why;
    double margin = NAN;
    bool quiet = false;  // one confirmation measured without noise names it
    for (std::size_t idx : confirm_fail_[static_cast<std::size_t>(d)]) {
      const GroupVerdict& g = v.first[idx];
      quiet = quiet || !g.noisy;
      refs.push_back(host(g.run.nodes[0] == d ? g.run.nodes[1] : g.run.nodes[0]));
      // The closest miss speaks for the node: its reason and its margin.
      if (why.empty() || (std::isfinite(g.margin) && !(g.margin <= margin))) why = g.reason, margin = g.margin;
    }
    nv.margin = margin;
    nv.reason =
        fmt::format("failed with references {}: {} ({})", name_list(refs, refs.size()), why, margin_text(margin));
    if (!quiet) {
      nv.status = NodeStatus::suspect;
      nv.reason += fmt::format("; {}", kNoisyFailure);
      v.findings.push_back(fmt::format("{} is a suspect: {}", host(d), nv.reason));
      continue;
    }
    v.findings.push_back(fmt::format("{} is defective: {}", host(d), nv.reason));
  }
}

// A switch whose nodes all failed is named as the switch.
void CheckRounds::name_switches(CheckVerdict& v, std::size_t hosts) const {
  if (switches_.empty()) return;
  std::map<std::string, std::pair<int, int>> per;  // switch -> (nodes, defective)
  for (std::size_t n = 0; n < hosts; ++n) ++per[switches_[n]].first;
  for (int d : defective_) ++per[switches_[static_cast<std::size_t>(d)]].second;
  for (const auto& [sw, c] : per)
    if (c.first >= 2 && c.second == c.first)
      v.findings.insert(v.findings.begin(), fmt::format("switch {}: all its {} nodes are defective: suspect the switch "
                                                        "(or its uplink), not the nodes",
                                                        sw, c.first));
}

}  // namespace ccb
