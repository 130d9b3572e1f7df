// The history database (docs/history.md has the schema): one SQLite file of
// runs, series and points. Adding is idempotent by content (a file's SHA-256),
// concurrent writers are safe (WAL, a busy timeout, one IMMEDIATE transaction
// per run), and a database this ccbench did not write (another application's,
// a newer schema, a corrupt file) is refused untouched with one line.
#pragma once
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

struct sqlite3;

namespace ccb {

// PRAGMA user_version of the schema this ccbench writes (2: verdicts kept;
// 3: runs.run_key and runs.complete);
// it reads 1 to this and migrates older ones when it writes.
inline constexpr int kHistorySchemaVersion = 4;
// PRAGMA application_id that marks a ccbench history ("ccbh").
inline constexpr int kHistoryApplicationId = 0x63636268;

// What identifies a series: the same measurement of the same hardware over time.
struct SeriesKey {
  std::string collective, dtype, op, path, memory;
  int ranks = 0, nodes = 0, in_place = -1;
  std::uint64_t bytes = 0;
  std::string hosts;  // comma-joined, sorted ("" when the file names none)
  std::string gpu;    // GPU model as the run records it ("" for host memory runs)
  friend bool operator<(const SeriesKey& a, const SeriesKey& b);
};

struct HistoryValue {
  SeriesKey key;
  double time_us = 0, busbw_gbps = 0, algbw_gbps = 0;  // NaN stored as NULL
  double p50_us = 0, p90_us = 0;
  std::uint64_t wrong = 0;  // elements verification found wrong
  // --stragglers (schema 4): the skew (us; NaN: not timed) and the host of
  // the rank named late ("" when none was named).
  double skew_us = std::numeric_limits<double>::quiet_NaN();
  std::string straggler_host;
};

struct HistoryRun {
  std::string sha256, source, format, started_at, time_basis;  // time_basis: record, file mtime, --time
  std::string tool, hosts, versions, label;
  // The run's identity whatever file it arrives in ("" for formats that
  // record none: content identity only): ccbench's run record (its start,
  // command and hosts). complete: the file ends with the run's end record.
  std::string run_key;
  bool complete = true;
  // What the run recorded as threatening every number (oversubscribed, a
  // busy host, steal; results/noise.hpp), "; "-joined: "" when nothing.
  std::string noise;
  std::vector<HistoryValue> values;
};

// An acceptance run's verdict (accept --out's verdict.json): each node's
// status per check ("pass", "defective", "suspect", "cleared", ...).
struct NodeVerdictRow {
  std::string check, host, status, reason;
  double margin = 0;  // NaN when the verdict gives none
};
struct VerdictRecord {
  std::string sha256, source, spec, started_at, verdict, label;  // verdict: accepted, rejected, ...
  int exit_code = 0;
  std::vector<NodeVerdictRow> nodes;
};

struct StoredNodeVerdict {
  std::int64_t verdict = 0;  // its id
  std::string started_at, spec, outcome, source;
  NodeVerdictRow row;
};

struct StoredSeries {
  std::int64_t id = 0;
  SeriesKey key;
};

struct StoredPoint {
  std::int64_t run = 0;
  std::string started_at, versions, source;
  double time_us = 0, busbw_gbps = 0, algbw_gbps = 0;  // NaN when not recorded
  std::uint64_t wrong = 0;
  std::string noise;  // the run's (HistoryRun::noise): "" when it recorded none
};

// One run's --stragglers points (schema 4): how many were timed and, per
// host, at how many that host's rank was named late.
struct StragglerRun {
  std::int64_t run = 0;
  std::string started_at, source;
  std::int64_t timed = 0;
  std::map<std::string, std::int64_t> named;  // host -> points
};

struct SeriesFilter {
  std::string collective, host, since;  // host: one of the series' hosts; since: started_at >= (ISO prefix)
  std::vector<std::string> link;        // exactly these hosts (a pair's link)
  std::uint64_t bytes = 0;              // 0: every size
};

// A file's identity, size and last change (HistoryDb's unlocked reads).
struct FileStamp {
  unsigned long long dev = 0, ino = 0;
  long long size = 0, mtime_ns = 0;
  bool operator==(const FileStamp&) const = default;
};

// Where a history database may be (every --db, --history and
// CCBENCH_HISTORY_DB): a URL ("postgresql://...") is never taken as a file
// path (it made nested folders named after it, and a SQLite file inside),
// and a database whose folder does not exist is refused, not created, unless
// it is the default one (`may_create_folder`). UsageError "FLAG ...: why";
// a URL is named by its scheme only (its credentials are never printed).
void check_history_location(const std::string& flag, const std::string& db, bool may_create_folder);

class HistoryDb {
 public:
  enum class Access { read, write };
  // Throws UsageError (exit 2) for a file that is not a ccbench history,
  // OutputError (exit 5) when it cannot be written (locked past the timeout,
  // disk full, read-only); read access to a missing file is a UsageError.
  HistoryDb(const std::string& path, Access access, int busy_timeout_ms = 30000);
  ~HistoryDb();
  HistoryDb(const HistoryDb&) = delete;
  HistoryDb& operator=(const HistoryDb&) = delete;

  struct Added {
    bool added = false;  // false: the run was there (run id of that one): the same content, or the
                         // same run (run_key) as complete or with as many values
    std::int64_t run = 0;
    std::size_t values = 0, new_series = 0;
    // added over the same run's partial copy (same run_key, fewer values or
    // no end record): its values were replaced; the copy's file and value count
    std::string replaced_source;
    std::size_t replaced_values = 0;
  };
  Added add(const HistoryRun& run);
  // The same for a verdict, idempotent by its SHA-256 (values: node rows).
  Added add_verdict(const VerdictRecord& verdict);

  // Adds between begin_batch() and commit_batch() share one transaction (one
  // write of each touched page instead of one per run): `history add` of many
  // files. Without commit_batch() (an exception) they are all rolled back.
  void begin_batch();
  void commit_batch();

  std::vector<StoredSeries> series(const SeriesFilter& filter);
  std::vector<StoredPoint> points(std::int64_t series, const std::string& since = "");
  std::int64_t run_count();
  // Runs with --stragglers points, oldest first, over the series `filter`
  // selects (its collective, host, since; bytes): none before schema 4.
  std::vector<StragglerRun> straggler_runs(const SeriesFilter& filter);
  // Node verdicts, oldest first; host "" every host, since "" every time. A
  // schema 1 database (before verdicts were kept) has none.
  std::vector<StoredNodeVerdict> node_verdicts(const std::string& host, const std::string& since);
  std::int64_t verdict_count();

  const std::string& path() const { return path_; }

 private:
  void open(const std::string& name, int flags, int busy_timeout_ms);
  void open_unlocked(int busy_timeout_ms);
  void check_schema(bool may_create);
  // Read without a lock (immutable: no DB-shm could be made): throws
  // OutputError when the file or its log changed since it was opened.
  void confirm_unchanged() const;
  FileStamp stamp_;
  bool unlocked_ = false;
  std::int64_t version_ = 0;  // the schema version of the file
  sqlite3* db_ = nullptr;
  std::string path_;
  Access access_;
  std::map<SeriesKey, std::int64_t> series_ids_;
  std::map<SeriesKey, std::int64_t> batch_ids_;  // made in the open batch: cached once it commits
  bool in_batch_ = false;                        // ids never change once given: cached across adds
};

}  // namespace ccb
