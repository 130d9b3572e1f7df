// The prediction `ccbench workload predict --json` writes and `ccbench
// replay --check` reads: the step's time and its exposed communication (the
// slowest stage's waits, every dimension together and each alone), as the
// middle and the interval of step_prediction.hpp, for one workload at one
// rank count and ranks per node.
#pragma once
#include <array>
#include <string>

#include "analysis/workload/step_prediction.hpp"

namespace ccb {

struct Estimate {
  double mid = 0, lo = 0, hi = 0;
};

struct PredictedStep {
  std::string workload;
  int ranks = 0, ranks_per_node = 0;
  Estimate step_s, exposed_s;
  std::array<Estimate, kDims> by_dim{};
  double compute_s = 0;
  // Phases resting on an unbounded scale-model interval: the step's interval
  // (and every one built on it) is unbounded; lo and hi are the formula's.
  std::vector<std::string> unbounded;
};

// Seconds as milliseconds, 3 decimals (below 0.001 ms and from 1e5 ms on:
// significant figures): how replay and workload print times.
std::string format_ms(double seconds);

// The exposed communication of a simulated step: its slowest stage's waits.
double exposed_of(const SimulatedStep& s);
PredictedStep summarize_prediction(const TrainingWorkload& w, const StepProgram& prog, const StepPrediction& p);

std::string prediction_json(const PredictedStep& p);
// UsageError "FILE: what is wrong" on bad content.
PredictedStep read_prediction(const std::string& path);

}  // namespace ccb
