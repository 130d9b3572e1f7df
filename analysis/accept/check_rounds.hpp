// What a check runs, round by round, and the verdict at the end: the one
// piece of logic that `ccbench accept` under MPI and `--simulate` share.
// The caller asks next() for a round, runs its groups (all at once), judges
// them (judge_group) and hands the verdicts to record(); after the last round
// finish() names the nodes. Rules: docs/acceptance.md.
#pragma once
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/accept/schedule.hpp"
#include "analysis/accept/verdict.hpp"

namespace ccb {

struct PlannedRound {
  Round groups;
  int pass = 1;   // 1 first pass (bisect: the search), 2 second pass (bisect: re-tests and confirmations)
  int round = 0;  // within its pass
};

class CheckRounds {
 public:
  // `switches`: the switch (leaf, rack) of each node, or empty when unknown.
  CheckRounds(const Check& c, int nodes, std::vector<std::string> switches = {});

  std::optional<PlannedRound> next();
  // Each recorded group goes to `sink` first (the detail file); the plan
  // keeps it without its repeats' points (the verdict and the reports read
  // the gates' values), so 523,776 pairs of 1,024 nodes stay under 0.5 GB.
  using GroupSink = std::function<void(const GroupVerdict&)>;
  void set_sink(GroupSink sink) { sink_ = std::move(sink); }
  void record(const std::vector<GroupVerdict>& judged);
  CheckVerdict finish(const std::vector<std::string>& hosts);
  int rounds() const { return rounds_; }

 private:
  // A group waiting to run, and what its result decides.
  struct Item {
    NodeGroup nodes;
    GroupRole role = GroupRole::none;
    int subject = -1;  // confirm / re-confirm: the node under test
    int parent = -1;   // search: index of the failing group it came from (in tested_)
  };
  struct Tested {
    Item item;
    bool pass = false;
    int children = 0, children_passed = 0, children_done = 0;
  };

  void after_search_failure(std::size_t index);
  void after_children(std::size_t parent);
  void confirm_members(const NodeGroup& g, std::size_t source);
  void queue_pairs_of(const std::vector<int>& nodes, bool front);
  int reference_for(int subject, const std::set<int>& busy, int skip) const;
  std::vector<NodeGroup> split(const NodeGroup& g) const;
  std::optional<PlannedRound> next_bisect();
  void record_bisect(const std::vector<GroupVerdict>& judged);
  void after_confirm(const Item& it, bool pass, std::size_t index);
  void retest_cleared_groups();
  CheckVerdict finish_bisect(const std::vector<std::string>& hosts);
  void name_defective(CheckVerdict& v, const std::vector<std::string>& hosts) const;
  void name_switches(CheckVerdict& v, std::size_t hosts) const;

  void keep(GroupVerdict g, std::vector<GroupVerdict>& into);

  const Check& check_;
  int nodes_;
  GroupSink sink_;
  std::vector<std::string> switches_;
  int rounds_ = 0;

  // all, per-node, pairwise, ring: the fixed first pass, then the second
  // (suspects with references; per-node: failing nodes again), then failing
  // pairs of two cleared nodes once more.
  enum class Phase { first, second, reconfirm, pair_retest };
  Phase phase_ = Phase::first;
  std::vector<Round> first_rounds_, second_rounds_, reconfirm_rounds_, retest_rounds_;
  std::size_t first_next_ = 0, second_next_ = 0, reconfirm_next_ = 0, retest_next_ = 0;
  GroupRole round_role_ = GroupRole::none;  // why the last planned round's groups run (second-pass phases)
  CheckVerdict verdict_;

  // bisect
  std::vector<Item> queue_;
  std::vector<Item> running_;
  std::vector<Tested> tested_;
  std::set<int> cleared_;                       // in a group that passed, or confirmed with a reference
  std::vector<int> defective_;                  // failed with two references
  std::vector<int> unconfirmed_;                // failed, no reference to confirm with
  std::vector<std::pair<int, int>> links_;      // a pair failing twice, both ends clearing with others
  std::vector<std::size_t> noise_;              // tested_ indices: failed once, passed on re-test
  std::vector<std::vector<int>> confirm_fail_;  // per node: tested_ indices of failing confirmations
  std::vector<int> confirm_pass_;               // per node: tested_ index of its passing confirmation (-1)
  std::vector<std::size_t> pending_pairs_;      // failing pairs waiting for their members' confirmations
  bool fabric_problem_ = false;                 // a big group failed whole, twice, its halves passing
  int search_round_ = 0;
  bool started_ = false;
  bool pairs_tried_ = false;  // the suspects' pairs were run for want of references
};

}  // namespace ccb
