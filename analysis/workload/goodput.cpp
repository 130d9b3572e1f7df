#include "analysis/workload/goodput.hpp"

#include <algorithm>
#include <cmath>

namespace ccb {

Goodput young_goodput(double node_mtbf_hours, int nodes, double checkpoint_s, double restart_s) {
  Goodput g;
  g.job_mtbf_s = node_mtbf_hours * 3600 / std::max(1, nodes);
  g.interval_s = std::sqrt(2 * checkpoint_s * g.job_mtbf_s);
  g.lost_checkpoint = checkpoint_s / g.interval_s;
  g.lost_rework = g.interval_s / (2 * g.job_mtbf_s);
  g.lost_restart = restart_s / g.job_mtbf_s;
  g.useful = std::max(0.0, 1 - g.lost_checkpoint - g.lost_rework - g.lost_restart);
  return g;
}

}  // namespace ccb
