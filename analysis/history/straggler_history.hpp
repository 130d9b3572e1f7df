// Per host, how often a sweep's --stragglers named its rank late, run by run
// (docs/stragglers.md): its share of each run's timed points and the change
// points in that share, so a host that starts arriving late stands out.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/history/change_points.hpp"
#include "analysis/history/history_db.hpp"

namespace ccb {

struct HostStragglers {
  std::string host;
  std::size_t named_runs = 0;                       // runs in which it was named at least once
  std::int64_t named_points = 0, timed_points = 0;  // over every run
  std::vector<double> share;                        // per run (oldest first): named / timed
  std::vector<ChangePoint> changes;                 // in `share` (empty: none, or too few runs)
  bool tested = false;                              // enough runs for the change-point test
  bool rose() const;                                // a change point where the share went up
};

// Every host named in `runs` (oldest first), by name. The test is
// `options`' on the share itself (not its log: a share is often 0).
std::vector<HostStragglers> straggler_history(const std::vector<StragglerRun>& runs, ChangePointOptions options);

}  // namespace ccb
