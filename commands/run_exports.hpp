// --history DB and --prom FILE on a sweep and on ccbench io: a writer that
// keeps the run's JSON Lines in memory and, when the run ends completed (or
// with wrong data: also a fact worth keeping), adds it to the history
// database and writes its Prometheus text (docs/history.md). A run that
// failed or was interrupted is neither added nor exported (it says so).
#pragma once
#include <memory>
#include <string>

#include "results/writers.hpp"

namespace ccb {

struct RunExports {
  std::string history_db, prom_path, label;
  bool any() const { return !history_db.empty() || !prom_path.empty(); }
};

// Checks both before the run (the database opens as a ccbench history, the
// --prom path can be written): UsageError / OutputError otherwise.
void check_run_exports(const RunExports& e);

std::unique_ptr<Writer> make_export_writer(const RunExports& e);

struct AcceptOutcome;
// ccbench accept --history / --prom, after the verdicts are written: the
// raw runs under OUT/raw and OUT/verdict.json added, and per check and node
// ccbench_accept_node_pass (1 pass or cleared, 0 otherwise) with its margin,
// and the verdict. A line on stderr says what was added.
void export_accept(const RunExports& e, const AcceptOutcome& outcome, const std::string& out_dir);
std::string accept_prometheus_text(const AcceptOutcome& outcome);

}  // namespace ccb
