#include "analysis/history/straggler_history.hpp"

#include <algorithm>
#include <set>

namespace ccb {

bool HostStragglers::rose() const {
  return std::any_of(changes.begin(), changes.end(), [](const ChangePoint& c) { return c.mean_after > c.mean_before; });
}

std::vector<HostStragglers> straggler_history(const std::vector<StragglerRun>& runs, ChangePointOptions options) {
  options.log_scale = false;
  std::set<std::string> hosts;
  for (const StragglerRun& r : runs)
    for (const auto& named : r.named) hosts.insert(named.first);
  std::vector<HostStragglers> out;
  for (const std::string& h : hosts) {
    HostStragglers s;
    s.host = h;
    for (const StragglerRun& r : runs) {
      const auto it = r.named.find(h);
      const std::int64_t n = it == r.named.end() ? 0 : it->second;
      s.named_points += n, s.timed_points += r.timed, s.named_runs += n > 0 ? 1 : 0;
      s.share.push_back(r.timed > 0 ? static_cast<double>(n) / static_cast<double>(r.timed) : 0.0);
    }
    s.tested = s.share.size() >= 2 * options.min_segment;
    if (s.tested) s.changes = change_points(s.share, options);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace ccb
