#include "analysis/workload/goodput.hpp"

#include <algorithm>
#include <cmath>

namespace ccb {

Goodput young_goodput(double node_mtbf_hours, int nodes, double checkpoint_s, double restart_s, double step_s) {
  Goodput g;
  const double m = node_mtbf_hours * 3600 / std::max(1, nodes);
  g.job_mtbf_s = m;
  g.interval_s = std::sqrt(2 * checkpoint_s * m);
  if (step_s > 0 && g.interval_s < step_s * (1 - 1e-12)) g.interval_s = step_s, g.interval_is_steps = true;
  else if (step_s > 0) g.interval_s = std::ceil(g.interval_s / step_s - 1e-9) * step_s;
  const double tau = g.interval_s;
  g.lost_checkpoint = checkpoint_s / tau;
  g.lost_rework = tau / (2 * m);
  g.lost_restart = restart_s / m;
  g.step_beyond_mtbf = tau >= m;
  // Daly (2006): expected wall time per interval of useful work tau.
  const double wall = m * std::exp(restart_s / m) * std::expm1((tau + checkpoint_s) / m);
  g.useful = std::isfinite(wall) && wall > 0 ? std::clamp(tau / wall, 0.0, 1.0) : 0;
  return g;
}

}  // namespace ccb
