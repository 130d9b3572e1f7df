// A past result set out of the history database, for `compare --run
// LABEL=@history:...` (docs/history.md "Comparing with the past"): the
// points of the runs a reference selects, as a result set like a folder's
// (repeated runs of a series are merged by compare: median time).
#pragma once
#include <string>

#include "results/import/result_set.hpp"

namespace ccb {

// "@history" or "@history:KEY=VALUE,...": db (default: history's --db
// default), collective, size, node, link (A+B), since, until (an ISO 8601
// UTC day or time: since <= started_at < until), run (one run id).
inline bool is_history_reference(const std::string& path) {
  return path == "@history" || path.starts_with("@history:");
}

// (SQLite builds only.) Throws UsageError naming the reference for an unknown key or a bad value,
// and HistoryDb's errors; an empty selection is a UsageError too.
ResultSet load_history_set(const std::string& label, const std::string& reference, const std::string& default_db);

}  // namespace ccb
