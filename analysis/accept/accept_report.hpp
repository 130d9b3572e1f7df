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
  // false while checks are still running: the files written after each check
  // say "incomplete", so a run that dies (a hang) leaves the checks before it.
  bool finished = true;
  bool accepted() const;
  int exit_code() const;  // 0 accepted, 1 rejected, 2 a run error
};

// terminal: the verdict, the checks, and per check its findings and the
// nodes that need action (defective first, with margins), with counts of the
// rest; files (verdict.md, report.html): every node, and the groups up to a
// bound (verdict.json has every group). Both are built in O(groups + nodes).
enum class AcceptView { terminal, files };
Report build_accept_report(const AcceptOutcome& o, AcceptView view = AcceptView::files);
std::string accept_to_json(const AcceptOutcome& o);

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
