// Useful work under failures (docs/workload.md "Goodput"): a job on `nodes`
// nodes fails every M = node MTBF / nodes on average (independent node
// failures). Checkpointing every tau costs C each time; a failure loses the
// work since the last checkpoint (tau / 2 on average) and the restart R.
// Young's interval tau = sqrt(2 C M) maximises the useful share to first
// order, which is then 1 - C / tau - (tau / 2 + R) / M (never below 0).
#pragma once

namespace ccb {

struct Goodput {
  double job_mtbf_s = 0, interval_s = 0;                          // M and Young's tau
  double useful = 0;                                              // share of the job's time doing steps that count
  double lost_checkpoint = 0, lost_rework = 0, lost_restart = 0;  // C / tau, tau / 2M, R / M
};

// Inputs must be positive (restart may be 0).
Goodput young_goodput(double node_mtbf_hours, int nodes, double checkpoint_s, double restart_s);

}  // namespace ccb
