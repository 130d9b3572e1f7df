// An acceptance run's verdicts as a report (terminal, Markdown, HTML through
// the comparator's renderers) and as JSON.
#pragma once
#include <string>
#include <vector>

#include "results/accept/spec.hpp"
#include "results/accept/verdict.hpp"
#include "results/report/report.hpp"

namespace ccb {

struct AcceptOutcome {
  const AcceptSpec* spec = nullptr;
  std::vector<std::string> hosts;     // node index -> host name
  std::vector<int> ranks_per_node;
  std::vector<CheckVerdict> checks;
  std::vector<std::string> run_errors;  // groups that could not run (exit 2)
  std::string started_at, ended_at;
  std::string simulated;  // --simulate: the cluster model's file ("" for a real run)
  // false while checks are still running: the files written after each check
  // say "incomplete", so a run that dies (a hang) leaves the checks before it.
  bool finished = true;
  bool accepted() const;
  int exit_code() const;  // 0 accepted, 1 rejected, 2 a run error
};

Report build_accept_report(const AcceptOutcome& o);
std::string accept_to_json(const AcceptOutcome& o);

// Pairwise/ring: node x node matrix of each pair's headline value (median
// over repeats of the first gate's metric); NaN where no pair ran. The
// second pass's value replaces nothing: it is shown on its own.
std::vector<std::vector<double>> pair_matrix(const CheckVerdict& v, std::size_t nodes);

}  // namespace ccb
