// An acceptance run's verdicts as a report (terminal, Markdown, HTML through
// the comparator's renderers) and as JSON.
#pragma once
#include <string>
#include <vector>

#include "analysis/accept/spec.hpp"
#include "analysis/accept/verdict.hpp"
#include "analysis/report/report.hpp"

namespace ccb {

struct AcceptOutcome {
  const AcceptSpec* spec = nullptr;
  std::vector<std::string> hosts;  // node index -> host name
  std::vector<int> ranks_per_node;
  std::vector<CheckVerdict> checks;
  std::vector<std::string> run_errors;  // groups that could not run (exit 2)
  std::string started_at, ended_at;
  std::string simulated;  // --simulate: the cluster model's file ("" for a real run)
  // How the groups ran: "mpi" (one MPI job), "slurm" (a job step each, job ID).
  std::string engine = "mpi";
  // Slurm: what was done to nodes (--drain, --resume), or the commands that
  // would do it; each a line of the report.
  std::vector<std::string> actions;
  // Slurm: the job steps that ended without a result or hung at start-up
  // and ran once more (each a line of the report, "Slurm: ..."; the first
  // try's log is kept).
  std::vector<std::string> reruns;
  // false while checks are still running: the files written after each check
  // say "incomplete", so a run that dies (a hang) leaves the checks before it.
  bool finished = true;
  bool accepted() const;
  int exit_code() const;  // 0 accepted, 1 rejected, 2 a run error
};

// A run with errors (verdict ERROR) names no node defective: what failed
// may be the run's own problem (an output folder a node cannot see, srun,
// the spec), so each DEFECTIVE node becomes a suspect ("not named defective:
// the run had errors ..."), and the findings say so. Nothing changes without
// run errors; applying it twice changes nothing more.
void withhold_blame_on_errors(AcceptOutcome& o);

// terminal: the verdict, the checks, and per check its findings and the
// nodes that need action (defective first, with margins), with counts of the
// rest; files (verdict.md, report.html): every node, and the groups up to a
// bound (groups.jsonl has every group). Both are built in O(groups + nodes).
enum class AcceptView { terminal, files };
Report build_accept_report(const AcceptOutcome& o, AcceptView view = AcceptView::files);
// verdict.json: the verdict, every check's findings and node verdicts, the
// groups verdict.md lists (up to 2,000 per pass: the failing ones and the
// re-tests first) with the counts, the pair matrix up to 64 nodes. Every
// group is a line of the detail file (group_detail_line), written as the
// groups are judged: 1,024 nodes pairwise keep verdict.json near 200 kB.
std::string accept_to_json(const AcceptOutcome& o);
inline constexpr const char* kGroupDetailFile = "groups.jsonl";
// One line of groups.jsonl: a judged group (its check, "in_pass" first or
// second, round, role, nodes, verdict, margin, reason, each gate's value per
// repeat and bar), numbers to 4 significant figures. The measurements
// themselves are the raw/CHECK/*.jsonl files.
std::string group_detail_line(const Check& c, const GroupVerdict& g, const std::vector<std::string>& hosts);

// Pairwise/ring: each pair's headline value (median over repeats of the first
// gate's metric) and whether it passed, from the first pass; NaN / no verdict
// where no pair ran. The second pass's values replace nothing: they are shown
// on their own. One scan of the groups; nodes x nodes cells.
class PairMatrix {
 public:
  PairMatrix(const CheckVerdict& v, std::size_t nodes);
  std::size_t nodes() const { return nodes_; }
  double value(std::size_t a, std::size_t b) const { return value_[a * nodes_ + b]; }
  bool ran(std::size_t a, std::size_t b) const { return state_[a * nodes_ + b] != 0; }
  bool passed(std::size_t a, std::size_t b) const { return state_[a * nodes_ + b] == 2; }

 private:
  std::size_t nodes_;
  std::vector<double> value_;
  std::vector<unsigned char> state_;  // 0 not run, 1 failed, 2 passed
};

}  // namespace ccb
