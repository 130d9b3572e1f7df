#include "analysis/history/history_db.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <filesystem>

#include "common/errors.hpp"

namespace ccb {

std::string url_without_credentials(const std::string& url) {
  const std::size_t start = url.find("://");
  if (start == std::string::npos) return url;
  const std::size_t authority = start + 3;
  const std::size_t end = std::min(url.find_first_of("/?#", authority), url.size());
  std::string out = url.substr(0, authority);
  const std::size_t at = url.rfind('@', end - 1);
  if (at != std::string::npos && at >= authority && at < end) {
    const std::string user = url.substr(authority, at - authority);
    out += user.substr(0, user.find(':')) + "@";
    out += url.substr(at + 1, end - at - 1);
  } else {
    out += url.substr(authority, end - authority);
  }
  const std::size_t q = url.find('?', end);
  out += url.substr(end, (q == std::string::npos ? url.size() : q) - end);
  if (q == std::string::npos) return out;
  std::string kept;
  std::size_t from = q + 1;
  while (from <= url.size()) {
    const std::size_t amp = std::min(url.find('&', from), url.size());
    const std::string param = url.substr(from, amp - from);
    if (!param.empty() && !param.starts_with("password=") && !param.starts_with("sslpassword="))
      kept += (kept.empty() ? "?" : "&") + param;
    from = amp + 1;
  }
  return out + kept;
}

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
    : path_(is_postgres_url(location) ? url_without_credentials(location) : location),
      store_(is_postgres_url(location) ? open_postgres_history(location, access, busy_timeout_ms)
                                       : open_sqlite_history(location, access, busy_timeout_ms)) {}

HistoryDb::~HistoryDb() = default;

}  // namespace ccb
