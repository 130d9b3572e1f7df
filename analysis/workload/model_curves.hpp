// Curves for the phases of a training step whose group was not measured
// (a dp group of 128 nodes from sweeps at 2-8): the scale model's prediction
// (analysis/model, what the library chooses) at the group's ranks and nodes,
// at every size the step reads, with the model's 90% interval as the low and
// high times. Added as predicted points to the option's result set; the
// phase table names them "scale model: ...".
#pragma once
#include <string>
#include <vector>

#include "results/import/result_set.hpp"
#include "analysis/model/comm_model.hpp"
#include "analysis/workload/prediction_file.hpp"
#include "analysis/workload/step_prediction.hpp"

namespace ccb {

// One line per curve added ("dp ... all_reduce at 32 ranks on 32 nodes: MODEL SERIES (flags)").
// UsageError when the model has no series of a needed collective.
std::vector<std::string> add_model_curves(const StepProgram& prog, const Model& m, const SeriesTable& measured,
                                          ResultSet& into);

// One option's step (a cluster, an instance type): its measured points, and
// its scale model (may be null) for the groups no sweep measured, read and
// simulated (predict_step). UsageError as predict_step's when a phase has no curve.
struct OptionStep {
  StepPrediction detail;
  PredictedStep step;
  std::vector<std::string> modelled;  // add_model_curves' lines
};
OptionStep predict_option_step(const TrainingWorkload& w, const StepProgram& prog, ResultSet points,
                               const Model* model);

}  // namespace ccb
