#include "analysis/history/history_db.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <filesystem>

#include "common/errors.hpp"
#include "common/redact.hpp"
#include "common/terminal_text.hpp"

namespace ccb {

std::string history_utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void check_history_location(const std::string& flag, const std::string& db, bool may_create_folder) {
  if (is_postgres_url(db)) return;
  // scheme "://": RFC 3986's letter, then letters, digits, + - .
  const std::size_t colon = db.find("://");
  if (colon != std::string::npos && colon > 0 && std::isalpha(static_cast<unsigned char>(db[0])) &&
      std::all_of(db.begin(), db.begin() + static_cast<long>(colon), [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '+' || ch == '-' || ch == '.';
      }))
    throw UsageError(fmt::format(
        "{} {}://...: a database URL, not a file: this ccbench keeps its history in a SQLite file or a PostgreSQL "
        "server (postgresql://...); give one of those",
        flag, db.substr(0, colon)));
  if (may_create_folder) return;
  const std::filesystem::path folder = std::filesystem::path(db).parent_path();
  std::error_code ec;
  if (!folder.empty() && !std::filesystem::is_directory(folder, ec))
    throw UsageError(
        fmt::format("{} {}: the folder {} does not exist (ccbench makes the default database's folder "
                    "only; create it, or give another path)",
                    flag, db, folder.string()));
}

HistoryDb::HistoryDb(const std::string& location, Access access, int busy_timeout_ms)
    : path_(is_postgres_url(location) ? url_without_credentials(location) : redact_credentials(location)),
      store_(is_postgres_url(location) ? open_postgres_history(location, access, busy_timeout_ms)
                                       : open_sqlite_history(location, access, busy_timeout_ms)) {}

HistoryDb::~HistoryDb() = default;

std::string stored_text(std::string_view text) {
  std::string s = utf8_repaired(text);
  // U+0000 is UTF-8 but no PostgreSQL text: the same replacement character.
  for (std::size_t at; (at = s.find('\0')) != std::string::npos;) s.replace(at, 1, "\xEF\xBF\xBD");
  return s;
}

HistoryRun stored_form(HistoryRun run) {
  for (std::string* s : {&run.source, &run.format, &run.started_at, &run.time_basis, &run.tool, &run.hosts,
                         &run.versions, &run.label, &run.run_key, &run.noise})
    *s = stored_text(*s);
  for (HistoryValue& v : run.values) {
    SeriesKey& k = v.key;
    for (std::string* s : {&k.collective, &k.dtype, &k.op, &k.path, &k.memory, &k.hosts, &k.gpu, &v.straggler_host})
      *s = stored_text(*s);
  }
  return run;
}

VerdictRecord stored_form(VerdictRecord verdict) {
  for (std::string* s : {&verdict.source, &verdict.spec, &verdict.started_at, &verdict.verdict, &verdict.label})
    *s = stored_text(*s);
  for (NodeVerdictRow& row : verdict.nodes)
    for (std::string* s : {&row.check, &row.host, &row.status, &row.reason}) *s = stored_text(*s);
  return verdict;
}

}  // namespace ccb
