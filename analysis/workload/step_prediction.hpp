// A training step predicted from single-collective curves (measured sweeps):
// each operation's time read off the curve of its collective at its group's
// rank and node count, then the step's programs simulated (step_simulation.hpp).
//
// Reading a curve: the series of the collective with exactly the group's
// ranks and nodes (dtype, op and path ignored: the time of a size depends on
// its bytes); of several, MPI's nonblocking calls (`--mpi-calls nonblocking`:
// a step issues its collectives so, and MPI may run them with another
// algorithm than the blocking ones), then a library's without that choice
// (NCCL), then MPI's blocking ones; out-of-place before in-place. A point's
// time is the mean of its per-iteration samples (a step sums many calls:
// the expected sum is the sum of the means), interpolated linearly in log(bytes) / log(time) between the two measured sizes around the call's;
// below the smallest size the smallest's time; above the largest the
// largest's time scaled by bytes (its bandwidth held), flagged. The low and
// high times are the per-iteration 10th and 90th percentiles read the same
// way (a point without samples: its reported time; a predicted point's 90%
// interval: analysis/workload/model_curves.hpp). A pipeline message is one
// transfer one way: read off `pingpong` at 2 ranks on the nodes of two
// neighbouring stages (half a round trip), its high time off `sendrecv`
// there (both ways at once, as 1F1B's sends and receives overlap; on
// Open MPI's TCP transport that takes twice one way's time); off `sendrecv`
// alone when the runs have no such pingpong.
//
// Sharing (modelled): the k groups of one phase that run side by side on a
// node (k = ranks per node / the group's ranks on that node; a pipeline
// message crossing nodes: every rank of the node sends one) share its links,
// and are read off the curve at k x the call's bytes (k transfers through
// one link take about as long as one of k times the size: the link is the
// bottleneck), bounded below by no sharing at all (a single transfer that
// leaves the link idle part of the time lets the others use it). Measured
// instead when the curves have the collective at the group's ranks and nodes
// with k groups side by side (`ccbench --split`, nccl-tests'
// NCCL_TESTS_SPLIT): the middle and high times are read off it at the
// call's own bytes, the low time off the single group's curve (the shared
// curve's when there is none). Different phases at the same time on the
// same links are bounded, not modelled.
//
// The interval of the step: low = low times read at the call's own bytes (no
// sharing), phases side by side; high = high times with sharing and every
// inter-node collective of a stage on one queue (step_simulation.hpp); the
// middle = middle times with sharing, phases side by side.
#pragma once
#include <string>
#include <vector>

#include "analysis/compare/series.hpp"
#include "analysis/workload/step_simulation.hpp"

namespace ccb {

struct PhaseTime {
  int op = 0;                                       // index into the program's ops
  int group_ranks = 0, group_nodes = 0, calls = 0;  // calls per step on the busiest stage
  int sharing = 1;                                  // groups of this phase side by side on a node
  bool sharing_measured = false;                    // read off a curve of `sharing` groups side by side (--split)
  double s = 0, lo_s = 0, hi_s = 0;                 // one call: mean shared, 10th alone, 90th shared
  bool extrapolated = false;                        // beyond the curve's largest size
  bool predicted = false;                           // the curve is the scale model's (model_curves.hpp)
  bool unbounded = false;     // ... and its interval there is unbounded (lo_s, hi_s: the formula's)
  bool blocking_mpi = false;  // the curve timed MPI's blocking calls (no nonblocking one given)
  std::string curve;          // the series' label
};

struct StepPrediction {
  std::vector<PhaseTime> phases;  // one per program op
  SimulatedStep mid, lo, hi;
  // The phases whose scale-model interval is unbounded ("dp all_reduce
  // (gradients)"): the step's interval is then unbounded too.
  std::vector<std::string> unbounded;
  double bubble_s = 0;  // (pp - 1) / virtual stages x (forward + backward) of a micro-batch
};

// Each phase's group (ranks, nodes), calls per step and sharing, without times.
std::vector<PhaseTime> phase_shapes(const StepProgram& prog);

// The curves the program needs that `have` lacks: a collective at a group's
// ranks and nodes, with every size read off it (calls and k x calls).
struct CurveNeed {
  std::string collective;
  int ranks = 0, nodes = 0;
  std::vector<std::uint64_t> bytes;  // ascending
  std::string phase;                 // the first phase that needs it
};
std::vector<CurveNeed> curves_needed(const StepProgram& prog, const SeriesTable& have);

// UsageError "no measured curve for 'dp all_reduce (gradient buckets)': all_reduce
// at 4 ranks on 4 nodes (the runs have: ...)" when a phase has no curve.
StepPrediction predict_step(const StepProgram& prog, const SeriesTable& curves);

}  // namespace ccb
