// One file's measurements as a history run: what `history add`, a sweep's
// --history and --prom read. Any format the comparator imports (ccbench JSON
// Lines / CSV / table, nccl-tests, OSU, IMB; ccbench io records) becomes
// values keyed by series (history_db.hpp's SeriesKey).
#pragma once
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "analysis/history/history_db.hpp"
#include "analysis/workload/replay_record.hpp"
#include "results/import/importer.hpp"
#include "results/import/result_set.hpp"

namespace ccb {

struct HistoryRunSource {
  std::string path;        // for messages and the runs table
  std::string mtime;       // ISO 8601 UTC of the file: the run's time when the record has none
  std::string given_time;  // --time: overrides both
  std::string label;
  // --cluster: what a file that names no host was measured on (its series'
  // place, series_place); "" for none given.
  std::string cluster;
};

// Where a series was measured: its hosts, comma-joined and sorted, when the
// file names them; else "cluster:LABEL" (--cluster) or "file:PATH" (the
// file's absolute path), so that two clusters' files that name no host
// (OSU, IMB, nccl-tests logs without rank lines) never join one series
// unless the user says they are the same cluster.
std::string series_place(const std::string& hosts, const HistoryRunSource& source);
// True for a place that names no host ("cluster:..." or "file:...").
inline bool is_unnamed_place(std::string_view place) {
  return place.starts_with("cluster:") || place.starts_with("file:");
}

// One file's text imported (the format it was read as in `format`).
ResultSet imported_set(std::string_view text, const std::string& path, Format* format = nullptr);

// The run of an imported text (`text`: what it was imported from, for its
// SHA-256). nullopt when it holds no measured point (`why` says what the
// first unread line was, or that the format is unknown).
std::optional<HistoryRun> history_run_of(const ResultSet& set, Format format, std::string_view text,
                                         const HistoryRunSource& source, std::string* why);
// The same, importing the text first; a replay record (ccbench replay -J) is
// read as one (replay_history_run).
std::optional<HistoryRun> history_run_of(std::string_view text, const HistoryRunSource& source, std::string* why);

// A replayed training step as a history run (docs/history.md "Replayed
// steps"): the series "step:WORKLOAD" (the step time; WORKLOAD: the
// workload file's name without its extension, else the workload's name),
// "step:WORKLOAD:exposed" (the communication compute did not hide) and
// "step:WORKLOAD:exposed.DIM" for each dimension that exposed any; op is
// the parallelism ("tp2.pp2.dp1.ep1.zero0"), bytes 0; time_us is the
// median over the record's steps, p50_us and p90_us its quantiles.
HistoryRun replay_history_run(const ReplayRun& replay, std::string_view text, const HistoryRunSource& source);
inline bool is_step_series(const SeriesKey& k) { return k.collective.starts_with("step:"); }

// A series' hosts: "a,b" <-> {a, b} (sorted, comma-joined); an unnamed
// place has none.
std::string hosts_text(const std::set<std::string>& hosts);
std::set<std::string> hosts_of(const std::string& joined);

// A stored point as an imported one (compare's and --prom's input).
ImportedPoint imported_point(const SeriesKey& key, const StoredPoint& point);

// "all_reduce 1 GiB float sum, emu-h1,emu-h3" (what a report calls a series).
std::string series_name(const SeriesKey& k);

// ISO 8601 UTC of a file's modification time ("" when it cannot be read).
std::string file_mtime_utc(const std::string& path);

}  // namespace ccb
