// The history in a SQLite file (docs/history.md): one file, WAL, writers
// taking turns on SQLite's lock; a reader without write permission reads it
// immutable and checks that no writer changed it meanwhile.
#include "analysis/history/history_db.hpp"

#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <thread>
#include <tuple>

#include "common/errors.hpp"

namespace ccb {

namespace {

// Schema 1 (docs/history.md). Key columns are NOT NULL ('' / 0 when a format
// does not record them) so that UNIQUE identifies a series.
constexpr const char* kSchema1 = R"(
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  content_sha256 TEXT NOT NULL UNIQUE,
  source TEXT NOT NULL, format TEXT NOT NULL,
  started_at TEXT NOT NULL, time_basis TEXT NOT NULL, added_at TEXT NOT NULL,
  tool TEXT NOT NULL, hosts TEXT NOT NULL, versions TEXT NOT NULL, label TEXT NOT NULL);
CREATE INDEX runs_started_at ON runs(started_at);
CREATE TABLE series(
  id INTEGER PRIMARY KEY,
  collective TEXT NOT NULL, dtype TEXT NOT NULL, op TEXT NOT NULL, path TEXT NOT NULL, memory TEXT NOT NULL,
  ranks INTEGER NOT NULL, nodes INTEGER NOT NULL, in_place INTEGER NOT NULL, bytes INTEGER NOT NULL,
  hosts TEXT NOT NULL, gpu TEXT NOT NULL,
  UNIQUE(collective, dtype, op, path, memory, ranks, nodes, in_place, bytes, hosts, gpu));
CREATE TABLE points(
  series_id INTEGER NOT NULL REFERENCES series(id),
  run_id INTEGER NOT NULL REFERENCES runs(id),
  time_us REAL, busbw_gbps REAL, algbw_gbps REAL, p50_us REAL, p90_us REAL, wrong INTEGER NOT NULL,
  PRIMARY KEY(series_id, run_id)) WITHOUT ROWID;
)";

// Version 2: acceptance verdicts, one row per node and check.
constexpr const char* kSchema2 = R"(
CREATE TABLE verdicts(
  id INTEGER PRIMARY KEY,
  content_sha256 TEXT NOT NULL UNIQUE,
  source TEXT NOT NULL, spec TEXT NOT NULL, started_at TEXT NOT NULL, added_at TEXT NOT NULL,
  verdict TEXT NOT NULL, exit_code INTEGER NOT NULL, label TEXT NOT NULL);
CREATE INDEX verdicts_started_at ON verdicts(started_at);
CREATE TABLE node_verdicts(
  verdict_id INTEGER NOT NULL REFERENCES verdicts(id),
  check_name TEXT NOT NULL, host TEXT NOT NULL, status TEXT NOT NULL, margin REAL, reason TEXT NOT NULL,
  PRIMARY KEY(verdict_id, check_name, host)) WITHOUT ROWID;
CREATE INDEX node_verdicts_host ON node_verdicts(host);
)";

// Version 3: a run's identity whatever file it arrives in, whether the file
// held the whole run, and the noise it recorded (HistoryRun::run_key,
// complete, noise).
constexpr const char* kSchema3 = R"(
ALTER TABLE runs ADD COLUMN run_key TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN complete INTEGER NOT NULL DEFAULT 1;
ALTER TABLE runs ADD COLUMN noise TEXT NOT NULL DEFAULT '';
CREATE INDEX runs_run_key ON runs(run_key);
)";

// Migrations: [k] takes a database from version k to k + 1 (0: empty).
// Version 4: each point's --stragglers skew and the host named late
// (HistoryValue::skew_us, straggler_host).
constexpr const char* kSchema4 = R"(
ALTER TABLE points ADD COLUMN skew_us REAL;
ALTER TABLE points ADD COLUMN straggler_host TEXT NOT NULL DEFAULT '';
)";

// Version 5: each point's busbw limit on its path (HistoryValue::busbw_limit_gbps).
constexpr const char* kSchema5 = R"(
ALTER TABLE points ADD COLUMN busbw_limit_gbps REAL;
)";

constexpr const char* kMigrations[] = {kSchema1, kSchema2, kSchema3, kSchema4, kSchema5};
static_assert(std::size(kMigrations) == kHistorySchemaVersion);

class Statement {
 public:
  Statement(sqlite3* db, const char* sql, const std::string& path) : db_(db), path_(path) {
    if (sqlite3_prepare_v2(db, sql, -1, &st_, nullptr) != SQLITE_OK) fail("prepare");
  }
  ~Statement() { sqlite3_finalize(st_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, const std::string& v) {
    sqlite3_bind_text(st_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(st_, i, v);
    return *this;
  }
  Statement& bind_real(int i, double v) {
    if (std::isfinite(v)) sqlite3_bind_double(st_, i, v);
    else sqlite3_bind_null(st_, i);
    return *this;
  }
  // True while a row is there.
  bool step() {
    const int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail("step");
    return false;
  }
  void reset() {
    sqlite3_reset(st_);
    sqlite3_clear_bindings(st_);
  }
  std::string text(int c) const {
    const auto* p = sqlite3_column_text(st_, c);
    return p ? reinterpret_cast<const char*>(p) : "";
  }
  std::int64_t integer(int c) const { return sqlite3_column_int64(st_, c); }
  double real(int c) const {
    return sqlite3_column_type(st_, c) == SQLITE_NULL ? std::numeric_limits<double>::quiet_NaN()
                                                      : sqlite3_column_double(st_, c);
  }

 private:
  [[noreturn]] void fail(const char* what) const;
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
  const std::string& path_;
};

// One line per SQLite failure: a database that is not ours or is damaged is
// the user's input (exit 2); one that cannot be written is an output (exit 5).
[[noreturn]] void throw_sqlite(sqlite3* db, const std::string& path, const char* what) {
  const int code = sqlite3_extended_errcode(db) & 0xff;
  const std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
  switch (code) {
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      throw UsageError(fmt::format("history: {}: not a readable SQLite database ({}); nothing was changed", path, msg));
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      throw OutputError(
          fmt::format("history: {}: locked by another writer past --wait ({}); nothing was changed", path, msg));
    case SQLITE_FULL:
    case SQLITE_IOERR:
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
      throw OutputError(fmt::format("history: {}: cannot write ({}); what it held is unchanged", path, msg));
    default: throw OutputError(fmt::format("history: {}: SQLite {} failed: {}", path, what, msg));
  }
}

void Statement::fail(const char* what) const { throw_sqlite(db_, path_, what); }

// A series' key from columns col.. of a row (series' own column order).
SeriesKey key_at(const Statement& q, int col) {
  return series_key_of_columns([&](int i) { return q.text(col + i); }, [&](int i) { return q.integer(col + i); });
}

void exec(sqlite3* db, const std::string& path, const char* sql) {
  if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) throw_sqlite(db, path, "exec");
}

// A transaction that rolls back unless committed.
class Transaction {
 public:
  // `nested`: inside an open batch, which commits or rolls back for it.
  Transaction(sqlite3* db, const std::string& path, bool nested = false) : db_(db), path_(path), done_(nested) {
    if (!nested) exec(db, path, "BEGIN IMMEDIATE");
  }
  ~Transaction() {
    if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  void commit() {
    if (done_) return;
    exec(db_, path_, "COMMIT");
    done_ = true;
  }

 private:
  sqlite3* db_;
  const std::string& path_;
  bool done_;
};

std::int64_t pragma_int(sqlite3* db, const std::string& path, const char* sql) {
  Statement s(db, sql, path);
  return s.step() ? s.integer(0) : 0;
}

// The id of the row holding this content (0: none; ids start at 1).
std::int64_t id_by_content(sqlite3* db, const std::string& path, const char* sql, const std::string& sha256) {
  Statement q(db, sql, path);
  q.bind(1, sha256);
  return q.step() ? q.integer(0) : 0;
}

}  // namespace

namespace {

// A file URI for sqlite3_open_v2 (SQLITE_OPEN_URI): every byte but unreserved
// ones and '/' escaped, so '?', '#' and '%' in a path stay part of it.
std::string file_uri(const std::string& path, const char* query) {
  std::string uri = "file:";
  for (const unsigned char c : path)
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') uri += static_cast<char>(c);
    else uri += fmt::format("%{:02X}", c);
  return uri + query;
}

FileStamp stamp_of(const struct stat& st) {
  return {st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec};
}

// Bytes in DB-wal: committed changes a reader without its -shm cannot see.
off_t wal_bytes(const std::string& path) {
  struct stat st {};
  return ::stat((path + "-wal").c_str(), &st) == 0 ? st.st_size : 0;
}

}  // namespace

// The SQLite file.
class SqliteHistory final : public HistoryStore {
 public:
  SqliteHistory(const std::string& path, HistoryAccess access, int busy_timeout_ms);
  ~SqliteHistory() override;
  SqliteHistory(const SqliteHistory&) = delete;
  SqliteHistory& operator=(const SqliteHistory&) = delete;
  HistoryAdded add(const HistoryRun& run) override;
  HistoryAdded add_verdict(const VerdictRecord& verdict) override;
  void begin_batch() override;
  void commit_batch() override;
  std::vector<StoredSeries> series(const SeriesFilter& filter) override;
  std::vector<StoredPoint> points(std::int64_t series, const std::string& since) override;
  std::int64_t run_count() override;
  std::vector<StragglerRun> straggler_runs(const SeriesFilter& filter) override;
  std::vector<StoredNodeVerdict> node_verdicts(const std::string& host, const std::string& since) override;
  std::int64_t verdict_count() override;
  std::vector<HistoryRun> all_runs() override;
  std::vector<VerdictRecord> all_verdicts() override;
  std::string identity() override {
    struct stat st {};
    if (::stat(path_.c_str(), &st) != 0) return "sqlite:" + path_;
    return fmt::format("sqlite:{}:{}", static_cast<unsigned long long>(st.st_dev),
                       static_cast<unsigned long long>(st.st_ino));
  }

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
  HistoryAccess access_;
  std::map<SeriesKey, std::int64_t> series_ids_;
  std::map<SeriesKey, std::int64_t> batch_ids_;  // made in the open batch: cached once it commits
  bool in_batch_ = false;                        // ids never change once given: cached across adds
};

SqliteHistory::SqliteHistory(const std::string& path, HistoryAccess access, int busy_timeout_ms)
    : path_(path), access_(access) {
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (!exists && access == HistoryAccess::read)
    throw UsageError(
        fmt::format("history: {}: no such database (add runs first: ccbench history add --db {} RUN...)", path, path));
  if (exists && !S_ISREG(st.st_mode)) throw UsageError(fmt::format("history: {}: not a regular file", path));
  const int flags = access == HistoryAccess::read ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  open(path, flags, busy_timeout_ms);
  try {
    check_schema(access == HistoryAccess::write);
    return;
  } catch (...) {
    // A reader that may not create DB-shm (a read-only folder or mount, a
    // fleet database owned by its collector) cannot open a WAL database:
    // "attempt to write a readonly database". It reads the file as it is.
    const int code = sqlite3_errcode(db_) & 0xff;
    sqlite3_close(db_);
    db_ = nullptr;
    if (access != HistoryAccess::read || (code != SQLITE_READONLY && code != SQLITE_CANTOPEN)) throw;
  }
  open_unlocked(busy_timeout_ms);
}

// Without DB-shm, SQLite can read the file only as immutable: no locks, and
// committed changes still in DB-wal unseen. So: refused while DB-wal holds
// any, and every query checks afterwards that no writer changed the file or
// its log meanwhile (confirm_unchanged).
void SqliteHistory::open_unlocked(int busy_timeout_ms) {
  const auto refuse_wal = [&] {
    if (const off_t wal = wal_bytes(path_); wal > 0)
      throw OutputError(fmt::format(
          "history: {}: cannot be read without write access to its folder: {}-wal holds {} bytes of changes not "
          "yet in the file and there is no {}-shm to read them through (open it once as a user who may write "
          "there, e.g. ccbench history show --db {})",
          path_, path_, wal, path_, path_));
  };
  refuse_wal();
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) throw OutputError(fmt::format("history: {}: cannot be read", path_));
  stamp_ = stamp_of(st);
  open(file_uri(path_, "?immutable=1"), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, busy_timeout_ms);
  unlocked_ = true;
  try {
    check_schema(false);
    confirm_unchanged();
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

void SqliteHistory::confirm_unchanged() const {
  if (!unlocked_) return;
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0 || !(stamp_of(st) == stamp_) || wal_bytes(path_) > 0)
    throw OutputError(fmt::format(
        "history: {}: another process wrote the database while it was read without a lock (read-only: no {}-shm); "
        "run the command again",
        path_, path_));
}

void SqliteHistory::open(const std::string& name, int flags, int busy_timeout_ms) {
  if (sqlite3_open_v2(name.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw OutputError(fmt::format("history: {}: cannot open ({})", path_, msg));
  }
  sqlite3_busy_timeout(db_, busy_timeout_ms);
  // WAL with synchronous NORMAL: a crash of ccbench or of the machine never
  // corrupts the file; a power cut may lose the last runs added.
  sqlite3_exec(db_, "PRAGMA synchronous = NORMAL", nullptr, nullptr, nullptr);
}

SqliteHistory::~SqliteHistory() {
  if (in_batch_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(db_);
}

void SqliteHistory::begin_batch() {
  if (in_batch_) return;
  exec(db_, path_, "BEGIN IMMEDIATE");
  in_batch_ = true;
}

void SqliteHistory::commit_batch() {
  if (!in_batch_) return;
  exec(db_, path_, "COMMIT");
  in_batch_ = false;
  series_ids_.merge(batch_ids_);
  batch_ids_.clear();
}

void SqliteHistory::check_schema(bool may_create) {
  // Reading the header first: a file that is not SQLite fails here, untouched.
  // One statement, one snapshot: read apart, another writer's creation could
  // commit between them (application_id 0 read before it, its tables after).
  std::int64_t app = 0, version = 0, tables = 0;
  {
    Statement head(db_,
                   "SELECT (SELECT application_id FROM pragma_application_id), "
                   "(SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_master)",
                   path_);
    if (head.step()) app = head.integer(0), version = head.integer(1), tables = head.integer(2);
  }
  version_ = version;
  if ((app != 0 && app != kHistoryApplicationId) || (app == 0 && tables > 0))
    throw UsageError(fmt::format(
        "history: {}: not a ccbench history database (application_id {:#x}, {} schema object{}); nothing was changed",
        path_, app, tables, tables == 1 ? "" : "s"));
  if (version < 0 || (app == 0 && version != 0) ||  // ccbench sets its id and version together
      (app == kHistoryApplicationId && (version == 0 || tables == 0)))
    throw UsageError(
        fmt::format("history: {}: not a ccbench history database (application_id {:#x}, schema version {}, {} schema "
                    "object{}: ccbench writes none of these); nothing was changed",
                    path_, app, version, tables, tables == 1 ? "" : "s"));
  if (version > kHistorySchemaVersion)
    throw UsageError(fmt::format(
        "history: {}: schema version {} was written by a newer ccbench (this one reads 1 to {}); nothing was changed",
        path_, version, kHistorySchemaVersion));
  if (version == kHistorySchemaVersion) return;
  if (!may_create) {
    if (app == 0 && tables == 0)
      throw UsageError(fmt::format("history: {}: an empty database (add runs first: ccbench history add)", path_));
    return;  // an older schema reads as it is (what it lacks reads as empty); a writer migrates it
  }
  {
    Transaction t(db_, path_);  // another writer may have created or migrated it meanwhile
    version = pragma_int(db_, path_, "PRAGMA user_version");
    if (version < 0 || version > kHistorySchemaVersion)  // another process wrote it meanwhile: not ours to migrate
      throw UsageError(
          fmt::format("history: {}: schema version {} is not one ccbench writes; nothing was changed", path_, version));
    for (std::int64_t v = version; v < kHistorySchemaVersion; ++v) exec(db_, path_, kMigrations[v]);
    exec(db_, path_, fmt::format("PRAGMA application_id = {}", kHistoryApplicationId).c_str());
    exec(db_, path_, fmt::format("PRAGMA user_version = {}", kHistorySchemaVersion).c_str());
    t.commit();
    version_ = kHistorySchemaVersion;
  }
  // WAL: readers do not block the writer. Switching needs the file alone;
  // another process may hold it for a moment.
  for (int attempt = 0;; ++attempt) {
    if (sqlite3_exec(db_, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr) == SQLITE_OK) break;
    if (attempt == 100) throw_sqlite(db_, path_, "journal_mode");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

HistoryAdded SqliteHistory::add(const HistoryRun& run) {
  if (access_ != HistoryAccess::write) throw UsageError(fmt::format("history: {}: opened for reading", path_));
  HistoryAdded out;
  Transaction t(db_, path_, in_batch_);
  if ((out.run = id_by_content(db_, path_, "SELECT id FROM runs WHERE content_sha256 = ?", run.sha256)))
    return out;  // rolled back: nothing written
  // The same run in another file (a -J read while its sweep still wrote it,
  // then the whole file): one run, the fuller copy.
  std::int64_t same_run = 0;
  std::vector<std::int64_t> old_series;
  if (!run.run_key.empty()) {
    Statement same(db_,
                   "SELECT id, complete, source, (SELECT count(*) FROM points WHERE run_id = runs.id) FROM runs "
                   "WHERE run_key = ?",
                   path_);
    same.bind(1, run.run_key);
    if (same.step()) {
      const auto held = static_cast<std::size_t>(same.integer(3));
      if (same.integer(1) != 0 || !(run.complete || run.values.size() > held)) {
        out.run = same.integer(0), out.values = held;
        return out;  // the copy there is as full: nothing written
      }
      same_run = same.integer(0);
      out.replaced_source = same.text(2), out.replaced_values = held;
      Statement series_of(db_, "SELECT series_id FROM points WHERE run_id = ?", path_);
      series_of.bind(1, same_run);
      while (series_of.step()) old_series.push_back(series_of.integer(0));
      for (const char* sql : {"DELETE FROM points WHERE run_id = ?", "DELETE FROM runs WHERE id = ?"}) {
        Statement del(db_, sql, path_);
        del.bind(1, same_run);
        del.step();
      }
    }
  }
  Statement ins(db_,
                "INSERT INTO runs(id, content_sha256, source, format, started_at, time_basis, added_at, tool, hosts, "
                "versions, label, run_key, complete, noise) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                path_);
  if (same_run > 0) ins.bind(1, same_run);  // the run keeps its id; else NULL: a new one
  ins.bind(2, run.sha256).bind(3, run.source).bind(4, run.format).bind(5, run.started_at).bind(6, run.time_basis);
  ins.bind(7, history_utc_now()).bind(8, run.tool).bind(9, run.hosts).bind(10, run.versions).bind(11, run.label);
  ins.bind(12, run.run_key).bind(13, std::int64_t{run.complete ? 1 : 0}).bind(14, run.noise);
  ins.step();
  out.run = sqlite3_last_insert_rowid(db_);
  Statement find(db_,
                 "SELECT id FROM series WHERE collective=? AND dtype=? AND op=? AND path=? AND memory=? AND ranks=? "
                 "AND nodes=? AND in_place=? AND bytes=? AND hosts=? AND gpu=?",
                 path_);
  Statement make(db_,
                 "INSERT INTO series(collective, dtype, op, path, memory, ranks, nodes, in_place, bytes, hosts, gpu) "
                 "VALUES(?,?,?,?,?,?,?,?,?,?,?)",
                 path_);
  Statement point(db_,
                  "INSERT OR IGNORE INTO points(series_id, run_id, time_us, busbw_gbps, algbw_gbps, p50_us, p90_us, "
                  "wrong, skew_us, straggler_host, busbw_limit_gbps) VALUES(?,?,?,?,?,?,?,?,?,?,?)",
                  path_);
  std::map<SeriesKey, std::int64_t> fresh_ids;  // made by this transaction: cached once it commits
  std::map<SeriesKey, std::int64_t>& made = in_batch_ ? batch_ids_ : fresh_ids;
  const auto bind_key = [](Statement& s, const SeriesKey& k) {
    s.bind(1, k.collective).bind(2, k.dtype).bind(3, k.op).bind(4, k.path).bind(5, k.memory);
    s.bind(6, std::int64_t{k.ranks}).bind(7, std::int64_t{k.nodes}).bind(8, std::int64_t{k.in_place});
    s.bind(9, static_cast<std::int64_t>(std::min<std::uint64_t>(k.bytes, INT64_MAX)));
    s.bind(10, k.hosts).bind(11, k.gpu);
  };
  for (const HistoryValue& v : run.values) {
    std::int64_t id = 0;
    if (const auto c = series_ids_.find(v.key); c != series_ids_.end()) {
      id = c->second;
    } else if (const auto f = made.find(v.key); f != made.end()) {
      id = f->second;
    } else {
      bind_key(find, v.key);
      if (find.step()) {
        id = find.integer(0);
      } else {
        bind_key(make, v.key);
        make.step();
        make.reset();
        id = sqlite3_last_insert_rowid(db_);
        ++out.new_series;
      }
      find.reset();
      made.emplace(v.key, id);
    }
    point.bind(1, id).bind(2, out.run).bind_real(3, v.time_us).bind_real(4, v.busbw_gbps);
    point.bind_real(5, v.algbw_gbps)
        .bind_real(6, v.p50_us)
        .bind_real(7, v.p90_us)
        .bind(8, static_cast<std::int64_t>(std::min<std::uint64_t>(v.wrong, INT64_MAX)))
        .bind_real(9, v.skew_us)
        .bind(10, v.straggler_host)
        .bind_real(11, v.busbw_limit_gbps);
    point.step();
    out.values += static_cast<std::size_t>(sqlite3_changes(db_));
    point.reset();
  }
  if (!old_series.empty()) {  // series only the replaced copy had
    Statement orphan(db_, "DELETE FROM series WHERE id = ? AND NOT EXISTS (SELECT 1 FROM points WHERE series_id = ?)",
                     path_);
    for (const std::int64_t id : old_series) {
      orphan.bind(1, id).bind(2, id);
      orphan.step();
      orphan.reset();
    }
    series_ids_.clear(), batch_ids_.clear();  // ids of deleted series may be cached
  }
  t.commit();
  series_ids_.merge(fresh_ids);
  out.added = true;
  return out;
}

std::vector<StoredSeries> SqliteHistory::series(const SeriesFilter& f) {
  std::string hosts_exact;
  for (const std::string& h : f.link) hosts_exact += (hosts_exact.empty() ? "" : ",") + h;
  Statement q(db_,
              "SELECT id, collective, dtype, op, path, memory, ranks, nodes, in_place, bytes, hosts, gpu FROM series "
              "WHERE (?1 = '' OR collective = ?1) AND (?2 = 0 OR bytes = ?2) "
              "AND (?3 = '' OR ',' || hosts || ',' LIKE '%,' || ?3 || ',%') AND (?4 = '' OR hosts = ?4) "
              "AND (?5 = '' OR EXISTS (SELECT 1 FROM points JOIN runs ON runs.id = points.run_id "
              "WHERE points.series_id = series.id AND runs.started_at >= ?5)) "
              "ORDER BY collective, hosts, dtype, op, path, memory, ranks, nodes, bytes, in_place, gpu",
              path_);
  q.bind(1, f.collective).bind(2, static_cast<std::int64_t>(std::min<std::uint64_t>(f.bytes, INT64_MAX)));
  q.bind(3, f.host).bind(4, hosts_exact).bind(5, f.since);
  std::vector<StoredSeries> out;
  while (q.step()) {
    StoredSeries s;
    s.id = q.integer(0);
    s.key = key_at(q, 1);
    out.push_back(std::move(s));
  }
  confirm_unchanged();
  return out;
}

std::vector<StoredPoint> SqliteHistory::points(std::int64_t series, const std::string& since) {
  // runs.noise from schema 3 (an older file read as it is has none).
  const std::string sql = fmt::format(
      "SELECT runs.id, runs.started_at, runs.versions, runs.source, time_us, busbw_gbps, algbw_gbps, wrong, {}, "
      "p50_us, p90_us, {} FROM points JOIN runs ON runs.id = points.run_id WHERE series_id = ?1 AND (?2 = '' OR "
      "started_at >= ?2) "
      "ORDER BY runs.started_at, runs.id",
      version_ >= 3 ? "runs.noise" : "''", version_ >= 5 ? "busbw_limit_gbps" : "NULL");
  Statement q(db_, sql.c_str(), path_);
  q.bind(1, series).bind(2, since);
  std::vector<StoredPoint> out;
  while (q.step())
    out.push_back(StoredPoint{.run = q.integer(0),
                              .started_at = q.text(1),
                              .versions = q.text(2),
                              .source = q.text(3),
                              .time_us = q.real(4),
                              .busbw_gbps = q.real(5),
                              .algbw_gbps = q.real(6),
                              .wrong = static_cast<std::uint64_t>(q.integer(7)),
                              .noise = q.text(8),
                              .p50_us = q.real(9),
                              .p90_us = q.real(10),
                              .busbw_limit_gbps = q.real(11)});
  confirm_unchanged();
  return out;
}

std::vector<StragglerRun> SqliteHistory::straggler_runs(const SeriesFilter& f) {
  std::vector<StragglerRun> out;
  if (version_ < 4) return out;
  Statement q(db_,
              "SELECT runs.id, runs.started_at, runs.source, points.straggler_host, count(*) FROM points "
              "JOIN runs ON runs.id = points.run_id JOIN series ON series.id = points.series_id "
              "WHERE points.skew_us IS NOT NULL AND (?1 = '' OR series.collective = ?1) "
              "AND (?2 = 0 OR series.bytes = ?2) AND (?3 = '' OR ',' || series.hosts || ',' LIKE '%,' || ?3 || ',%') "
              "AND (?4 = '' OR runs.started_at >= ?4) "
              "GROUP BY runs.id, points.straggler_host ORDER BY runs.started_at, runs.id",
              path_);
  q.bind(1, f.collective).bind(2, static_cast<std::int64_t>(std::min<std::uint64_t>(f.bytes, INT64_MAX)));
  q.bind(3, f.host).bind(4, f.since);
  while (q.step()) {
    if (out.empty() || out.back().run != q.integer(0)) {
      StragglerRun r;
      r.run = q.integer(0), r.started_at = q.text(1), r.source = q.text(2);
      out.push_back(std::move(r));
    }
    StragglerRun& r = out.back();
    r.timed += q.integer(4);
    if (const std::string host = q.text(3); !host.empty()) r.named[host] += q.integer(4);
  }
  confirm_unchanged();
  return out;
}

std::int64_t SqliteHistory::run_count() {
  const std::int64_t n = pragma_int(db_, path_, "SELECT count(*) FROM runs");
  confirm_unchanged();
  return n;
}

HistoryAdded SqliteHistory::add_verdict(const VerdictRecord& v) {
  if (access_ != HistoryAccess::write) throw UsageError(fmt::format("history: {}: opened for reading", path_));
  HistoryAdded out;
  Transaction t(db_, path_, in_batch_);
  if ((out.run = id_by_content(db_, path_, "SELECT id FROM verdicts WHERE content_sha256 = ?", v.sha256))) return out;
  Statement ins(db_,
                "INSERT INTO verdicts(content_sha256, source, spec, started_at, added_at, verdict, exit_code, label) "
                "VALUES(?,?,?,?,?,?,?,?)",
                path_);
  ins.bind(1, v.sha256).bind(2, v.source).bind(3, v.spec).bind(4, v.started_at).bind(5, history_utc_now());
  ins.bind(6, v.verdict).bind(7, std::int64_t{v.exit_code}).bind(8, v.label);
  ins.step();
  out.run = sqlite3_last_insert_rowid(db_);
  Statement node(db_,
                 "INSERT OR IGNORE INTO node_verdicts(verdict_id, check_name, host, status, margin, reason) "
                 "VALUES(?,?,?,?,?,?)",
                 path_);
  for (const NodeVerdictRow& n : v.nodes) {
    node.bind(1, out.run).bind(2, n.check).bind(3, n.host).bind(4, n.status).bind_real(5, n.margin);
    node.bind(6, n.reason);
    node.step();
    out.values += static_cast<std::size_t>(sqlite3_changes(db_));
    node.reset();
  }
  t.commit();
  out.added = true;
  return out;
}

std::vector<StoredNodeVerdict> SqliteHistory::node_verdicts(const std::string& host, const std::string& since) {
  std::vector<StoredNodeVerdict> out;
  if (version_ < 2) return out;
  Statement q(db_,
              "SELECT v.id, v.started_at, v.spec, v.verdict, v.source, n.check_name, n.host, n.status, n.reason, "
              "n.margin FROM node_verdicts n JOIN verdicts v ON v.id = n.verdict_id "
              "WHERE (?1 = '' OR n.host = ?1) AND (?2 = '' OR v.started_at >= ?2) "
              "ORDER BY v.started_at, v.id, n.check_name, n.host",
              path_);
  q.bind(1, host).bind(2, since);
  while (q.step())
    out.push_back(StoredNodeVerdict{q.integer(0), q.text(1), q.text(2), q.text(3), q.text(4),
                                    NodeVerdictRow{q.text(5), q.text(6), q.text(7), q.text(8), q.real(9)}});
  confirm_unchanged();
  return out;
}

std::int64_t SqliteHistory::verdict_count() {
  const std::int64_t n = version_ < 2 ? 0 : pragma_int(db_, path_, "SELECT count(*) FROM verdicts");
  confirm_unchanged();
  return n;
}

std::vector<HistoryRun> SqliteHistory::all_runs() {
  std::vector<HistoryRun> out;
  std::map<std::int64_t, std::size_t> index;
  {
    const std::string sql = fmt::format(
        "SELECT id, content_sha256, source, format, started_at, time_basis, tool, hosts, versions, label, {} FROM runs "
        "ORDER BY started_at, id",
        version_ >= 3 ? "run_key, complete, noise" : "'', 1, ''");
    Statement q(db_, sql.c_str(), path_);
    while (q.step()) {
      HistoryRun r;
      r.sha256 = q.text(1), r.source = q.text(2), r.format = q.text(3), r.started_at = q.text(4);
      r.time_basis = q.text(5), r.tool = q.text(6), r.hosts = q.text(7), r.versions = q.text(8), r.label = q.text(9);
      r.run_key = q.text(10), r.complete = q.integer(11) != 0, r.noise = q.text(12);
      index[q.integer(0)] = out.size();
      out.push_back(std::move(r));
    }
  }
  const std::string sql = fmt::format(
      "SELECT points.run_id, collective, dtype, op, path, memory, ranks, nodes, in_place, bytes, hosts, gpu, time_us, "
      "busbw_gbps, algbw_gbps, p50_us, p90_us, wrong, {}, {} FROM points JOIN series ON series.id = points.series_id "
      "ORDER BY points.run_id, series.id",
      version_ >= 4 ? "skew_us, straggler_host" : "NULL, ''", version_ >= 5 ? "busbw_limit_gbps" : "NULL");
  Statement q(db_, sql.c_str(), path_);
  while (q.step()) {
    const auto it = index.find(q.integer(0));
    if (it == index.end()) continue;
    HistoryValue v;
    v.key = key_at(q, 1);
    v.time_us = q.real(12), v.busbw_gbps = q.real(13), v.algbw_gbps = q.real(14), v.p50_us = q.real(15);
    v.p90_us = q.real(16), v.wrong = static_cast<std::uint64_t>(q.integer(17)), v.skew_us = q.real(18);
    v.straggler_host = q.text(19), v.busbw_limit_gbps = q.real(20);
    out[it->second].values.push_back(std::move(v));
  }
  confirm_unchanged();
  return out;
}

std::vector<VerdictRecord> SqliteHistory::all_verdicts() {
  std::vector<VerdictRecord> out;
  if (version_ < 2) return out;
  std::map<std::int64_t, std::size_t> index;
  {
    Statement q(db_,
                "SELECT id, content_sha256, source, spec, started_at, verdict, exit_code, label FROM verdicts "
                "ORDER BY started_at, id",
                path_);
    while (q.step()) {
      VerdictRecord v;
      v.sha256 = q.text(1), v.source = q.text(2), v.spec = q.text(3), v.started_at = q.text(4);
      v.verdict = q.text(5), v.exit_code = static_cast<int>(q.integer(6)), v.label = q.text(7);
      index[q.integer(0)] = out.size();
      out.push_back(std::move(v));
    }
  }
  Statement q(db_,
              "SELECT verdict_id, check_name, host, status, reason, margin FROM node_verdicts "
              "ORDER BY verdict_id, check_name, host",
              path_);
  while (q.step())
    if (const auto it = index.find(q.integer(0)); it != index.end())
      out[it->second].nodes.push_back(NodeVerdictRow{q.text(1), q.text(2), q.text(3), q.text(4), q.real(5)});
  confirm_unchanged();
  return out;
}

std::unique_ptr<HistoryStore> open_sqlite_history(const std::string& path, HistoryAccess access, int busy_timeout_ms) {
  return std::make_unique<SqliteHistory>(path, access, busy_timeout_ms);
}

}  // namespace ccb
