// One file's measurements as a history run: what `history add`, a sweep's
// --history and --prom read. Any format the comparator imports (ccbench JSON
// Lines / CSV / table, nccl-tests, OSU, IMB; ccbench io records) becomes
// values keyed by series (history_db.hpp's SeriesKey).
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "results/history/history_db.hpp"
#include "results/import/result_set.hpp"

namespace ccb {

struct HistoryRunSource {
  std::string path;        // for messages and the runs table
  std::string mtime;       // ISO 8601 UTC of the file: the run's time when the record has none
  std::string given_time;  // --time: overrides both
  std::string label;
};

// nullopt when the text holds no measured point (`why` says what the first
// unread line was, or that the format is unknown).
std::optional<HistoryRun> history_run_of(std::string_view text, const HistoryRunSource& source, std::string* why);

// The run as a result set (for --prom), from the same import.
ResultSet imported_set(std::string_view text, const std::string& path);

// "all_reduce 1 GiB float sum, emu-h1,emu-h3" (what a report calls a series).
std::string series_name(const SeriesKey& k);

// ISO 8601 UTC of a file's modification time ("" when it cannot be read).
std::string file_mtime_utc(const std::string& path);

}  // namespace ccb
