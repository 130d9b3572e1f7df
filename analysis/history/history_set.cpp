#include "analysis/history/history_set.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include "common/errors.hpp"
#include "common/sizes.hpp"
#include "analysis/history/history_db.hpp"
#include "common/redact.hpp"
#include "analysis/history/history_run.hpp"
#include "analysis/history/prometheus_text.hpp"

namespace ccb {

namespace {

struct Selection {
  std::string db, until;
  SeriesFilter filter;
  std::int64_t run = 0;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t at = 0;
  for (std::size_t next; (next = s.find(sep, at)) != std::string::npos; at = next + 1)
    out.push_back(s.substr(at, next - at));
  out.push_back(s.substr(at));
  return out;
}

Selection parse_reference(const std::string& ref, const std::string& default_db) {
  Selection sel;
  sel.db = default_db;
  if (ref == "@history") return sel;
  const auto bad = [&](const std::string& what) {
    return UsageError(fmt::format("{}: {} (keys: db, collective, size, node, link, since, until, run)", ref, what));
  };
  for (const std::string& item : split(ref.substr(9), ',')) {
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw bad(fmt::format("'{}': expected KEY=VALUE", item));
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "db") {
      sel.db = value;
    } else if (key == "collective") {
      sel.filter.collective = value;
    } else if (key == "size") {
      const auto b = parse_size(value);
      if (!b || *b == 0) throw bad(fmt::format("size '{}': not a size", value));
      sel.filter.bytes = *b;
    } else if (key == "node") {
      sel.filter.host = value;
    } else if (key == "link") {
      sel.filter.link = split(value, '+');
      std::sort(sel.filter.link.begin(), sel.filter.link.end());
      if (sel.filter.link.size() < 2) throw bad(fmt::format("link '{}': expected two hosts, A+B", value));
    } else if (key == "since" || key == "until") {
      if (!is_iso_day_or_time(value))
        throw bad(fmt::format("{} '{}': expected an ISO 8601 UTC day or time (2026-12-03, 2026-12-03T14:00:00Z)", key,
                              value));
      (key == "since" ? sel.filter.since : sel.until) = value;
    } else if (key == "run") {
      char* end = nullptr;
      sel.run = std::strtoll(value.c_str(), &end, 10);
      if (*end || sel.run <= 0) throw bad(fmt::format("run '{}': not a run id", value));
    } else {
      throw bad(fmt::format("unknown key '{}'", key));
    }
  }
  return sel;
}

}  // namespace

ResultSet load_history_set(const std::string& label, const std::string& reference, const std::string& default_db) {
  const Selection sel = parse_reference(reference, default_db);
  HistoryDb db(sel.db, HistoryDb::Access::read);
  ResultSet set;
  set.label = label;
  set.files.push_back(redact_credentials(reference));
  set.formats.push_back("ccbench history");
  set.note_env("tool", "ccbench history (" + db.path() + ")");
  std::set<std::int64_t> run_ids;
  bool steps = false;  // replayed steps: not a sweep's points
  for (const StoredSeries& s : db.series(sel.filter)) {
    if (is_step_series(s.key)) {
      steps = true;
      continue;
    }
    for (const StoredPoint& p : db.points(s.id, sel.filter.since)) {
      if (!sel.until.empty() && p.started_at >= sel.until) continue;
      if (sel.run != 0 && p.run != sel.run) continue;
      set.points.push_back(imported_point(s.key, p));
      for (const std::string& h : hosts_of(s.key.hosts)) set.hosts.insert(h);
      if (!p.versions.empty()) set.note_env("versions", p.versions);
      run_ids.insert(p.run);
      if (set.started_at.empty() || p.started_at < set.started_at) set.started_at = p.started_at;
    }
  }
  if (set.points.empty())
    throw UsageError(fmt::format(
        "{}: selects no run of {}{}", redact_credentials(reference), db.path(),
        steps ? " but replayed steps (history show prints them; compare reads the replay -J records)" : ""));
  set.note_env("history.runs", std::to_string(run_ids.size()));
  return set;
}

}  // namespace ccb
