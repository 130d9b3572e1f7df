// The history database (docs/history.md has the schema): runs, series and
// points, in a SQLite file or in a PostgreSQL server (postgresql://...).
// Adding is idempotent by content (a file's SHA-256), concurrent writers are
// safe (one transaction per run: SQLite's WAL and IMMEDIATE transactions, a
// PostgreSQL advisory lock), and a database this ccbench did not write
// (another application's, a newer schema, a corrupt file) is refused
// untouched with one line.
#pragma once
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "results/quantities.hpp"

namespace ccb {

// PRAGMA user_version of the schema this ccbench writes (2: verdicts kept;
// 3: runs.run_key and runs.complete);
// it reads 1 to this and migrates older ones when it writes.
inline constexpr int kHistorySchemaVersion = 5;
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

// A series' key from its columns in the series table's order (collective,
// dtype, op, path, memory, ranks, nodes, in_place, bytes, hosts, gpu), as
// both stores read them: text(i) and integer(i) read the row's i-th of them.
template <class Text, class Integer>
SeriesKey series_key_of_columns(Text text, Integer integer) {
  return SeriesKey{.collective = text(0),
                   .dtype = text(1),
                   .op = text(2),
                   .path = text(3),
                   .memory = text(4),
                   .ranks = static_cast<int>(integer(5)),
                   .nodes = static_cast<int>(integer(6)),
                   .in_place = static_cast<int>(integer(7)),
                   .bytes = static_cast<std::uint64_t>(integer(8)),
                   .hosts = text(9),
                   .gpu = text(10)};
}

struct HistoryValue {
  SeriesKey key;
  double time_us = 0, busbw_gbps = 0, algbw_gbps = 0;  // NaN stored as NULL
  double p50_us = 0, p90_us = 0;
  std::uint64_t wrong = 0;  // elements verification found wrong
  // --stragglers (schema 4): the skew (us; NaN: not timed) and the host of
  // the rank named late ("" when none was named).
  double skew_us = std::numeric_limits<double>::quiet_NaN();
  std::string straggler_host;
  // The limit of busbw on the point's path (schema 5; GB/s, NaN: none known),
  // derived when the run is added (analysis/compare/expectation.hpp
  // point_ceiling, docs/expect.md) from what its file records.
  double busbw_limit_gbps = std::numeric_limits<double>::quiet_NaN();
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
  double p50_us = std::numeric_limits<double>::quiet_NaN(), p90_us = std::numeric_limits<double>::quiet_NaN();
  double busbw_limit_gbps = std::numeric_limits<double>::quiet_NaN();  // HistoryValue's (schema 5)
  // The quantity by its definition (results/quantities.hpp): NaN when not recorded.
  double value(Quantity q) const {
    switch (q) {
      case Quantity::time: return time_us;
      case Quantity::iteration_p50: return p50_us;
      case Quantity::iteration_p90: return p90_us;
      case Quantity::busbw: return busbw_gbps;
      case Quantity::algbw: return algbw_gbps;
    }
    return std::numeric_limits<double>::quiet_NaN();
  }
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
// CCBENCH_HISTORY_DB): a PostgreSQL URL (postgresql:// or postgres://) is a
// server, never a file path; another URL scheme is refused; a database file
// whose folder does not exist is refused, not created, unless it is the
// default one (`may_create_folder`). UsageError "FLAG ...: why"; a URL is
// named without its credentials.
void check_history_location(const std::string& flag, const std::string& db, bool may_create_folder);
// Now, as the stores' added_at: "2026-12-05T15:40:00Z".
std::string history_utc_now();
// postgresql://... or postgres://...
inline bool is_postgres_url(const std::string& db) {
  return db.starts_with("postgresql://") || db.starts_with("postgres://");
}

// What libpq reads as secrets in a connection string (PQconninfoParse: the
// password, sslpassword, and a port, which "u:s3cret/x@h" fills with the
// password); `parsed` false when libpq cannot read it or is not built in.
std::vector<std::string> libpq_secrets(const std::string& conninfo, bool& parsed);

struct HistoryAdded {
  bool added = false;  // false: the run was there (run id of that one): the same content, or the
                       // same run (run_key) as complete or with as many values
  std::int64_t run = 0;
  std::size_t values = 0, new_series = 0;
  // added over the same run's partial copy (same run_key, fewer values or
  // no end record): its values were replaced; the copy's file and value count
  std::string replaced_source;
  std::size_t replaced_values = 0;
};
enum class HistoryAccess { read, write };

// One database engine's side of HistoryDb (below has what each call does):
// a SQLite file (sqlite_history.cpp) or a PostgreSQL server (postgres_history.cpp).
class HistoryStore {
 public:
  virtual ~HistoryStore() = default;
  virtual HistoryAdded add(const HistoryRun& run) = 0;
  virtual HistoryAdded add_verdict(const VerdictRecord& verdict) = 0;
  virtual void begin_batch() = 0;
  virtual void commit_batch() = 0;
  virtual std::vector<StoredSeries> series(const SeriesFilter& filter) = 0;
  virtual std::vector<StoredPoint> points(std::int64_t series, const std::string& since) = 0;
  virtual std::int64_t run_count() = 0;
  virtual std::vector<StragglerRun> straggler_runs(const SeriesFilter& filter) = 0;
  virtual std::vector<StoredNodeVerdict> node_verdicts(const std::string& host, const std::string& since) = 0;
  virtual std::int64_t verdict_count() = 0;
  // Every run with its values, and every verdict with its rows, oldest
  // first (history copy): what add and add_verdict take back.
  virtual std::vector<HistoryRun> all_runs() = 0;
  virtual std::vector<VerdictRecord> all_verdicts() = 0;
  // What the database is, whatever its spelling: the same for two paths or
  // URLs that reach one database (history copy refuses copying onto it).
  virtual std::string identity() = 0;
};
// The SQLite file (sqlite_history.cpp).
std::unique_ptr<HistoryStore> open_sqlite_history(const std::string& path, HistoryAccess access, int busy_timeout_ms);
// PostgreSQL (postgres_history.cpp): UsageError where this ccbench was built
// without libpq.
std::unique_ptr<HistoryStore> open_postgres_history(const std::string& url, HistoryAccess access, int wait_ms);

// Text as both stores keep it: well-formed UTF-8 without NUL (PostgreSQL
// refuses both), any other byte U+FFFD (utf8_repaired).
std::string stored_text(std::string_view text);
HistoryRun stored_form(HistoryRun run);
VerdictRecord stored_form(VerdictRecord verdict);

class HistoryDb {
 public:
  using Access = HistoryAccess;
  using Added = HistoryAdded;
  // `location`: a file path or a postgresql:// URL. Throws UsageError (exit
  // 2) for a database that is not a ccbench history, OutputError (exit 5)
  // when it cannot be written (locked past the timeout, disk full,
  // read-only, the server gone); read access to a missing database is a
  // UsageError.
  HistoryDb(const std::string& location, Access access, int busy_timeout_ms = 30000);
  ~HistoryDb();
  HistoryDb(const HistoryDb&) = delete;
  HistoryDb& operator=(const HistoryDb&) = delete;

  // Every text is stored as stored_text makes it, in either store (so a
  // label that SQLite would keep is never a batch PostgreSQL refuses).
  Added add(const HistoryRun& run) { return store_->add(stored_form(run)); }
  // The same for a verdict, idempotent by its SHA-256 (values: node rows).
  Added add_verdict(const VerdictRecord& verdict) { return store_->add_verdict(stored_form(verdict)); }

  // Adds between begin_batch() and commit_batch() share one transaction (one
  // write of each touched page instead of one per run): `history add` of many
  // files. Without commit_batch() (an exception) they are all rolled back.
  void begin_batch() { store_->begin_batch(); }
  void commit_batch() { store_->commit_batch(); }

  std::vector<StoredSeries> series(const SeriesFilter& filter) { return store_->series(filter); }
  std::vector<StoredPoint> points(std::int64_t series, const std::string& since = "") {
    return store_->points(series, since);
  }
  std::int64_t run_count() { return store_->run_count(); }
  std::string identity() { return store_->identity(); }
  // Runs with --stragglers points, oldest first, over the series `filter`
  // selects (its collective, host, since; bytes): none before schema 4.
  std::vector<StragglerRun> straggler_runs(const SeriesFilter& filter) { return store_->straggler_runs(filter); }
  // Node verdicts, oldest first; host "" every host, since "" every time. A
  // schema 1 database (before verdicts were kept) has none.
  std::vector<StoredNodeVerdict> node_verdicts(const std::string& host, const std::string& since) {
    return store_->node_verdicts(host, since);
  }
  std::int64_t verdict_count() { return store_->verdict_count(); }
  std::vector<HistoryRun> all_runs() { return store_->all_runs(); }
  std::vector<VerdictRecord> all_verdicts() { return store_->all_verdicts(); }

  // The file, or the URL without its credentials.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::unique_ptr<HistoryStore> store_;
};

}  // namespace ccb
