// ccbench history add / show / changes / export: every run kept in a SQLite
// database, change points per series, the latest figures for Prometheus
// (docs/history.md). Runs without MPI.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/history/history_db.hpp"

namespace ccb {

// What history, --history and @history say in a build without SQLite.
inline constexpr const char* kBuiltWithoutSqlite =
    "this ccbench was built without SQLite (install libsqlite3-dev, then rebuild: scripts/setup.sh)";

// argv[0] is "history". Returns the exit code (0; 1 changes found a
// regression; 2 bad input or a database that is not a ccbench history; 5 the
// database or an output could not be written).
int run_history(int argc, char** argv);

// --db's default: $CCBENCH_HISTORY_DB, else $XDG_DATA_HOME/ccbench/history.db,
// else ~/.local/share/ccbench/history.db.
std::string default_history_db();

// history add: every file of `paths` (files or folders) as a run; a line per
// file on stdout unless quiet. Throws UsageError when a path is missing or
// nothing held a measured point (a database it created is then removed).
struct HistoryAddRequest {
  std::string db;
  std::vector<std::string> paths;
  std::string label, time;
  double wait_s = 30;
  bool quiet = false;   // only skipped files' lines, on stderr
  std::string cluster;  // --cluster: the place of files that name no host (series_place)
};
struct HistoryAddResult {
  std::size_t added = 0, present = 0, skipped = 0;
  std::size_t verdicts = 0;                  // of `added`: accept verdicts
  std::int64_t runs = 0, verdicts_held = 0;  // in the database afterwards
};
HistoryAddResult add_runs_to_history(const HistoryAddRequest& request);

// Adds one run to the database at `db` (created when missing; its folder
// must exist: check_history_location) and says so on stderr in one line (sweeps' and io's --history).
// Throws UsageError/OutputError as HistoryDb does.
void add_to_history(const std::string& db, const HistoryRun& run);

}  // namespace ccb
