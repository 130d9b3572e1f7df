// Judging acceptance results: gates per group (k of n repeats), then nodes.
// Pure logic: the measurements come in, verdicts go out (docs/acceptance.md
// "Acceptance testing" states every rule used here).
#pragma once
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/accept/schedule.hpp"
#include "analysis/accept/spec.hpp"
#include "results/expectation.hpp"

namespace ccb {

// One size of one measurement of a group (out-of-place; ranks combined as a
// plain ccbench run combines them: pipelined time, mean over ranks).
struct MeasuredPoint {
  std::size_t requested_bytes = 0, bytes = 0;  // as asked (the spec's size), as measured (rounded to whole elements)
  double busbw_gbps = 0, algbw_gbps = 0, time_us = 0;
  std::uint64_t wrong = 0;  // elements that failed verification, over ranks
  bool noisy = false;       // its run flagged noise (results/noise.hpp): oversubscribed, or this point's times
  // --stragglers (skew gates): the skew in us (NaN: not timed) and the host
  // of the rank named late ("" when none was named).
  double skew_us = std::numeric_limits<double>::quiet_NaN();
  std::string straggler_host;
};

// What a repeat's run record resolves (docs/expect.md): the path's limit of
// busbw and the published figure for the same hardware (share gates judge
// by them).
struct ResolvedFigures {
  Ceiling limit;
  std::optional<PublishedFigure> reference;
};

struct RepeatResult {
  std::vector<MeasuredPoint> points;
  std::string error;  // the run failed (e.g. a usage error of the group): why
  // Shared and null unless resolved: --simulate keeps a million repeats.
  std::shared_ptr<const ResolvedFigures> figures;
};

// Why a group ran beyond the first pass (none: a first-pass group; bisect's
// first-pass groups are searches): search (a group of bisect's splitting),
// re-test (a failing group run whole again; per-node: the node alone again),
// confirm / re-confirm (a suspect paired with a cleared node), pair re-test
// (a failing pair whose nodes both passed with references, run again).
enum class GroupRole { none, search, retest, confirm, reconfirm, pair_retest };
CCB_SETTING_NAMES(GroupRole, 6, {GroupRole::none, ""}, {GroupRole::search, "search"}, {GroupRole::retest, "re-test"},
                  {GroupRole::confirm, "confirm"}, {GroupRole::reconfirm, "re-confirm"},
                  {GroupRole::pair_retest, "pair re-test"});
inline std::string_view name(GroupRole r) { return setting_name(r); }

struct GroupRun {
  NodeGroup nodes;
  int pass = 1;   // 1 first pass, 2 second pass
  int round = 0;  // within its pass
  int ranks = 0;
  GroupRole role = GroupRole::none;
  std::vector<RepeatResult> repeats;
};

// The baseline median for a gate: collective/dtype/op of the check, the
// group's ranks and nodes (a history gate: its hosts too), the gate's size
// and metric. nullopt: none.
using BaselineLookup = std::function<std::optional<double>(const Check&, const Gate&, int ranks, const NodeGroup&)>;

struct GateResult {
  std::vector<double> values;  // per repeat (NaN: not measured)
  std::optional<double> base;  // relative gates: the baseline median
  double bar = 0;              // what a value had to reach
  int passed = 0;              // repeats that reached it
  bool pass = false;
  std::string note;   // why it could not be judged
  std::string basis;  // share gates: the limit or reference judged against, and where it came from
};

struct GroupVerdict {
  GroupRun run;
  std::vector<GateResult> gates;
  std::uint64_t wrong = 0;  // over repeats and sizes
  bool pass = false;
  std::string reason;  // the first failure, in words ("" when it passed)
  // The matrix / table value: median over repeats of the first gate's metric.
  double headline = 0;
  // A failure measured under noise (a gate's point flagged in a repeat that
  // missed its bar): a defect is never named on such groups alone (the node
  // stays a suspect, and the check fails without naming it).
  bool noisy = false;
  // A failing group whose missing repeats all named the same rank late at
  // the failing gates' sizes (--stragglers): that rank's host ("" otherwise).
  // When only skew gates failed it is also straggler_host, which names the
  // node without a pairwise search (docs/acceptance.md); otherwise it is a
  // lead for the search (a slow link makes no host late).
  std::string late_host, straggler_host;
  // Every host named late at a gate's size in any repeat, passing or not.
  std::vector<std::string> late_hosts;
  // How far the group cleared its bars: the smallest over gates of the
  // median's relative distance to the bar, positive on the good side
  // (+0.12: 12% better than needed; -0.4: 40% short). NaN: nothing measured.
  double margin = 0;
};

GroupVerdict judge_group(const Check& check, const GroupRun& run, const BaselineLookup& baseline);

// "margin +12%" (a group's margin in words); "no margin: nothing measured".
std::string margin_text(double margin);
// Findings that a re-test took back start with this (CheckVerdict counts
// them: noise_findings); a check whose findings are all such passes.
inline constexpr std::string_view kNoiseFinding = "noise, not a verdict";
// A miss by at most this factor (bar / value for bandwidth, value / bar for
// time) on a noisy point is one noise can explain.
inline constexpr double kNoiseExplains = 10;
// Why a node that failed only under measured noise is a suspect, not defective.
inline constexpr std::string_view kNoisyFailure = "measured under noise (results/noise.hpp): not named defective on it";

// The groups of this check measured so far, for population gates: per gate
// and node count, each group's median over repeats.
class Population {
 public:
  void add(const Check& check, const GroupRun& run);
  // The value a population gate's bar is taken from (bar = value x (1 -
  // max_drop) for bandwidth): the median, or lower so that the bar is also at
  // least 3 x 1.4826 x MAD below the median; nullopt with fewer than 3 groups.
  std::optional<double> base(const Check& check, const Gate& g, int nodes) const;

 private:
  std::map<std::pair<std::size_t, int>, std::vector<double>> medians_;  // (gate index, nodes)
};

// A whole round: every group enters the population first, then each is
// judged (population gates against it, baseline gates through `baseline`).
std::vector<GroupVerdict> judge_round(const Check& check, const std::vector<GroupRun>& runs, Population& population,
                                      const BaselineLookup& baseline);

// group_failed: the node was only ever tested in one group of all nodes,
// and that group failed: the check cannot say whether this node is the cause.
enum class NodeStatus { pass, defective, cleared, presumed_good, suspect, group_failed };
CCB_SETTING_NAMES(NodeStatus, 6, {NodeStatus::pass, "pass"}, {NodeStatus::defective, "DEFECTIVE"},
                  {NodeStatus::cleared, "cleared"}, {NodeStatus::presumed_good, "presumed good"},
                  {NodeStatus::suspect, "suspect"}, {NodeStatus::group_failed, "in failed group"});
inline std::string_view name(NodeStatus s) { return setting_name(s); }
// Report order: what needs action first (defective, suspect, ...).
int severity(NodeStatus s);

struct NodeVerdict {
  std::string host;
  NodeStatus status = NodeStatus::pass;
  int groups = 0, groups_passed = 0;  // first pass
  std::string reason;
  double margin = std::numeric_limits<double>::quiet_NaN();  // defective: the margin of the re-test that named it
};

// "a, b and c", or "a, b, c and 7 more" past `shown` names (one name once).
std::string name_list(const std::vector<std::string>& names, std::size_t shown = 3);

// After the first pass of a pairwise or ring check: which nodes are suspects
// (in a failing pair) and which are references for the second pass (nodes in
// no failing pair; when there are none, the nodes outside a greedy cover of
// the failing pairs, "presumed good"). Suspects that are references are not
// re-tested.
struct Suspects {
  std::vector<int> suspects;    // to re-pair in the second pass
  std::vector<int> references;  // known or presumed good
  bool presumed = false;        // references came from the cover
};
Suspects find_suspects(const std::vector<GroupVerdict>& first, int nodes);

struct CheckVerdict {
  const Check* check = nullptr;
  std::vector<GroupVerdict> first, second;
  Suspects suspects;
  std::vector<NodeVerdict> nodes;
  std::vector<std::string> findings;       // the culprits and problems, in words
  std::size_t noise_findings = 0;          // of them, failures a re-test took back (they start with kNoiseFinding)
  std::vector<std::pair<int, int>> links;  // pairs blamed on what joins them (link or path), by node index
  bool pass = false;
  int rounds = 0;     // rounds run (both passes)
  double wall_s = 0;  // their wall time (simulated with --simulate)
};

// Node verdicts and findings from both passes (pairwise, ring, per-node,
// all; bisect judges in CheckRounds). per-node: a failing node whose re-test
// also fails is defective. all: a failure is the whole group's (no node is
// named). pairwise/ring: a suspect that fails with every reference it was
// paired with (confirm, re-confirm) is defective, one that passes with one is
// cleared; a failing pair of two cleared nodes that fails again when re-tested
// is reported as that pair's problem (link or path), one that passes then is
// noise. The check passes when nothing is blamed.
void judge_nodes(CheckVerdict& v, const std::vector<std::string>& hosts);

}  // namespace ccb
