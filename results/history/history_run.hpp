// One file's measurements as a history run: what `history add`, a sweep's
// --history and --prom read. Any format the comparator imports (ccbench JSON
// Lines / CSV / table, nccl-tests, OSU, IMB; ccbench io records) becomes
// values keyed by series (history_db.hpp's SeriesKey).
#pragma once
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "results/history/history_db.hpp"
#include "results/import/importer.hpp"
#include "results/import/result_set.hpp"

namespace ccb {

struct HistoryRunSource {
  std::string path;        // for messages and the runs table
  std::string mtime;       // ISO 8601 UTC of the file: the run's time when the record has none
  std::string given_time;  // --time: overrides both
  std::string label;
};

// One file's text imported (the format it was read as in `format`).
ResultSet imported_set(std::string_view text, const std::string& path, Format* format = nullptr);

// The run of an imported text (`text`: what it was imported from, for its
// SHA-256). nullopt when it holds no measured point (`why` says what the
// first unread line was, or that the format is unknown).
std::optional<HistoryRun> history_run_of(const ResultSet& set, Format format, std::string_view text,
                                         const HistoryRunSource& source, std::string* why);
// The same, importing the text first.
std::optional<HistoryRun> history_run_of(std::string_view text, const HistoryRunSource& source, std::string* why);

// A series' hosts: "a,b" <-> {a, b} (sorted, comma-joined).
std::string hosts_text(const std::set<std::string>& hosts);
std::set<std::string> hosts_of(const std::string& joined);

// A stored point as an imported one (compare's and --prom's input).
ImportedPoint imported_point(const SeriesKey& key, const StoredPoint& point);

// "all_reduce 1 GiB float sum, emu-h1,emu-h3" (what a report calls a series).
std::string series_name(const SeriesKey& k);

// ISO 8601 UTC of a file's modification time ("" when it cannot be read).
std::string file_mtime_utc(const std::string& path);

}  // namespace ccb
