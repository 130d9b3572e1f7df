// Useful work under failures (docs/workload.md "Goodput"): a job on `nodes`
// nodes fails every M = node MTBF / nodes on average (independent node
// failures, exponential). Checkpointing every tau costs C each time; a
// failure loses the work since the last checkpoint and the restart R.
// The interval is Young's tau = sqrt(2 C M), rounded up to whole steps (a
// checkpoint is taken between steps: never more often than once per step).
// The useful share is Daly's exact expectation for exponential failures,
//   useful = tau / (M e^(R/M) (e^((tau + C)/M) - 1)),
// which is 1 - C/tau - tau/2M - R/M to first order (Young's) and stays in
// [0, 1] when tau nears or passes M, where the first-order form goes wrong:
// a step longer than the job's MTBF rarely completes, and the share says so.
#pragma once

namespace ccb {

struct Goodput {
  double job_mtbf_s = 0, interval_s = 0;  // M and the checkpoint interval (Young's, at least one step)
  bool interval_is_steps = false;         // Young's tau was shorter than a step: rounded up to whole steps
  double useful = 0;                      // share of the job's time doing steps that count, in [0, 1]
  // The first-order shares of the loss (C / tau, tau / 2M, R / M): how it
  // divides, not exact where tau nears M.
  double lost_checkpoint = 0, lost_rework = 0, lost_restart = 0;
  bool step_beyond_mtbf = false;  // the interval is at least the job's MTBF: most intervals never finish
};

// Inputs must be positive (restart may be 0; step_s 0: not known, no floor).
Goodput young_goodput(double node_mtbf_hours, int nodes, double checkpoint_s, double restart_s, double step_s = 0);

}  // namespace ccb
