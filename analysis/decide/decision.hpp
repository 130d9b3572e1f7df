// The decision at scale (ccbench compare --workload, with --cost and
// optionally --scale): communication time and cost per training step of
// each set at the workload's GPU count, which set is faster and which is
// cheaper, and where owning (a bare_metal profile) breaks even with renting
// (a cloud profile). Formulas (docs/compare.md, "The decision at scale"):
//   step time        = compute_seconds_per_step + communication per step
//                      (no overlap assumed; communication from the model at
//                      the target scale, or the measured curve without --scale)
//   cost per 1,000 steps = 1000 x step time x GPUs x price per GPU-hour / 3600
//   owning per year  = capital / amortisation years + yearly operating cost
//   break-even utilisation u* = owning per year x t_own
//                      / (GPUs owned x 8760 h x cloud price per GPU-hour x t_rent)
//     (owning costs the same per step as renting; above u* owning is cheaper;
//     u* > 100%: owning never pays; its range from the step times' ranges)
//   faster / cheaper: a winner only when the ratio's interval excludes equal
//     and spans at most kMaxIntervalSpan (call_ratio)
//   break-even months at the owner's utilisation u:
//     m* = capital / (renting per month - operating per month),
//     renting per month = cloud price x GPUs owned x 730 h x u x t_rent / t_own
//     (renting the work the owned GPUs do in a month); never when <= 0
//   sensitivity: owning / renting cost per step for u = 30..100% and cloud
//     price x 0.7, 1, 1.3
//   data set move: TB x 8e12 / (Gbit/s x 1e9) seconds; cost TB x transfer_cost_per_tb
// A training step (compare --workload STEP.yaml): decide_training_step below.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/compare/comparison.hpp"
#include "analysis/compare/ratio_call.hpp"
#include "analysis/compare/cost.hpp"
#include "analysis/workload/prediction_file.hpp"
#include "analysis/workload/training_step.hpp"

namespace ccb {

struct StepAtScale {
  std::string label;
  const CostProfile* cost = nullptr;
  // Measured: the range the curve allows (analysis/compare/cost.hpp); predicted: the model's 90% interval.
  double comm_s = kNaN, comm_lo_s = kNaN, comm_hi_s = kNaN;
  bool predicted = false, extrapolated = false;
  std::string basis;    // which curve or model series
  std::string refused;  // non-empty: this set has no estimate at the workload's size, and why
  // A training step (decide_training_step): its prediction from this set's
  // curves (and its scale model for groups no sweep measured).
  std::optional<PredictedStep> step;
  double bubble_s = 0;
  std::vector<std::string> modelled;  // curves from the scale model, one line each
  // The phases whose scale-model interval is unbounded ("" when none): the
  // step's interval is then unbounded (lo 0, hi infinite) and no call is
  // made on it.
  std::string unbounded;
  // Filled by decide() / decide_training_step():
  double step_s = kNaN, step_lo_s = kNaN, step_hi_s = kNaN;
  double unit_cost = kNaN, cost_lo = kNaN, cost_hi = kNaN;  // per Decision::cost_unit
  // Goodput (training step with goodput inputs): the useful share of the job's
  // time, the node MTBF it assumed (the cost profile's, else the workload's).
  double useful = 1, node_mtbf_hours = kNaN;
  std::string mtbf_basis;
};

// The Summary may not contradict the tables under it: a winner between two
// sets stands only when the comparison lines up a series of the workload's
// collective for them and the plateau of its aligned sizes (both sides on the
// same sizes) does not favour the other set beyond the tie band; otherwise
// the call becomes not_aligned, saying why. Checked for pairs that include
// the baseline (the comparison's pairs).
void check_against_tables(RatioCall& call, const Comparison& c, const std::string& collective);

struct BreakEven {
  std::string own, rent;  // labels
  double utilisation = kNaN;
  // The range of the break-even utilisation that the step times' ranges allow.
  double utilisation_lo = kNaN, utilisation_hi = kNaN;
  double months = kNaN;  // INFINITY: never
  double owner_utilisation = kNaN, amortisation_months = kNaN;
  std::vector<double> utilisations{0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};
  std::vector<double> price_factors{0.7, 1.0, 1.3};
  std::vector<std::vector<double>> own_over_rent;  // [utilisation][price factor]
  // The interval of each ratio that the step times' ranges allow (hi
  // infinite when a step's interval is unbounded).
  std::vector<std::vector<double>> own_over_rent_lo, own_over_rent_hi;
};

struct DataMove {
  double tb = kNaN, gbit_s = kNaN, seconds = kNaN;
  std::vector<std::pair<std::string, double>> cost;  // per set with a transfer price
  std::string currency;
};

// What a training-step decision knows of its workload (compare --workload
// STEP.yaml; docs/workload.md).
struct StepFacts {
  std::string name, file, shape;  // shape: "tp 8 x pp 4 x dp 32, zero 3"
  int ranks = 0, ranks_per_node = 0;
  double tokens_per_step = 0, compute_s = 0;
  double node_mtbf_hours = -1, checkpoint_s = -1, restart_s = -1;  // the workload's goodput inputs (< 0: none)
};
StepFacts step_facts(const TrainingWorkload& w, const StepProgram& prog, const std::string& file);

// The cheaper call when node MTBF and checkpoint time are off by these
// factors (the least certain inputs of the decision).
struct GoodputCase {
  double mtbf_factor = 1, checkpoint_factor = 1;
  std::vector<double> useful, cost;  // per set of the decision
  RatioCall cheaper;
};

struct Decision {
  int gpus = 0, nodes = 0;
  bool at_scale = false;  // from the model (--scale), not the measured curves
  double bytes_per_step = 0;
  std::vector<StepAtScale> sets;
  RatioCall faster, cheaper;  // over the two lowest sets with an estimate
  std::optional<BreakEven> break_even;
  std::optional<DataMove> data;
  std::string cost_unit = "1,000 steps";
  std::optional<StepFacts> training;       // decide_training_step
  std::vector<GoodputCase> goodput_cases;  // with goodput inputs: node MTBF x 0.25..2, checkpoint x 0.5..4
};

Decision decide(const Workload& w, std::vector<StepAtScale> sets, int nodes, bool at_scale);

// The decision for a training step (sets with `step` filled, or refused):
//   step time        = the predicted step (compute, exposed communication, bubble)
//   useful share     = Young's goodput (analysis/workload/goodput.hpp) at the
//                      job's nodes, node MTBF of the set's cost profile or else
//                      the workload's; 1 without goodput inputs
//   cost per million useful tokens = step x ranks x price per GPU-hour / 3600
//                      / (tokens per step x useful share) x 1e6
//   faster: on step time; cheaper: on that cost; break-even as decide()'s with
//   the time per useful step (step / useful share) in place of the step time.
Decision decide_training_step(const StepFacts& f, std::vector<StepAtScale> sets, int nodes, bool at_scale);

}  // namespace ccb
