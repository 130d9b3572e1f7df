#include "commands/accept/accept_history.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "common/errors.hpp"
#include "commands/history_command.hpp"
#include "common/settings.hpp"
#include "kernels/dtype.hpp"
#if CCBENCH_HAVE_SQLITE
#include "analysis/history/history_db.hpp"
#endif

namespace ccb {

bool has_history_gates(const AcceptSpec& spec) {
  for (const Check& c : spec.checks)
    for (const Gate& g : c.gates)
      if (g.history) return true;
  return false;
}

HistoryPast read_history_past(const AcceptSpec& spec, const std::string& db) {
  HistoryPast past;
  past.db = db;
  if (!has_history_gates(spec)) return past;
  for (const Check& c : spec.checks)
    for (const Gate& g : c.gates)
      if (g.history && db.empty())
        throw UsageError(
            fmt::format("accept: {} line {} (check {}): baseline: history reads the database --history "
                        "DB names (the one this run's raw runs are added to); give --history",
                        spec.file, g.line, c.name));
#if CCBENCH_HAVE_SQLITE
  std::error_code ec;
  if (!is_postgres_url(db) && !std::filesystem::exists(db, ec)) return past;  // the first run: no past yet
  HistoryDb history(db, HistoryDb::Access::read);
  for (const Check& c : spec.checks)
    for (std::size_t i = 0; i < c.gates.size(); ++i) {
      const Gate& g = c.gates[i];
      if (!g.history) continue;
      SeriesFilter filter;
      filter.collective = c.series();
      filter.bytes = g.at_bytes;
      for (const StoredSeries& s : history.series(filter)) {
        const SeriesKey& k = s.key;
        if (k.in_place == 1) continue;  // gates judge out-of-place values
        if (!c.io &&
            (k.dtype != info(c.dtype).name || k.memory != setting_name(c.memory) || k.path != setting_name(c.path)))
          continue;
        if (c.reduces() && k.op != name(c.op)) continue;
        std::vector<PastRun>& runs = past.runs[PastKey{c.name, i, k.ranks, k.nodes, k.hosts}];
        for (const StoredPoint& p : history.points(s.id))
          runs.push_back(PastRun{p.started_at, p.busbw_gbps, p.algbw_gbps, p.time_us});
      }
    }
  for (auto& [key, runs] : past.runs)
    std::stable_sort(runs.begin(), runs.end(),
                     [](const PastRun& a, const PastRun& b) { return a.started_at < b.started_at; });
  return past;
#else
  throw UsageError(fmt::format("accept: baseline: history: {}", kBuiltWithoutSqlite));
#endif
}

}  // namespace ccb
