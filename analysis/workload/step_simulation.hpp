// A training step's programs (training_step.hpp) run on a simulated clock:
// compute advances a stage's clock by its length; a collective started at t
// runs on its group's communicator after the ones started there before it
// (one at a time, in order, as NCCL's stream and MPI's ordering do) for its
// time; a wait advances the clock to the collective's end and charges the
// difference to its dimension (exposed communication); a pipeline message
// ends its time after both sides have posted it. Every rank of a stage runs
// the same program on groups that lie inside the stage, so one clock per
// stage stands for all its ranks.
//
// Contention: `shared_network` puts every collective that crosses nodes on
// one queue per stage (dp buckets and ep alltoall wait for each other, as on
// one NIC), the bound for concurrent phases on the same links; without it
// they run side by side. Pipeline messages are never queued behind others
// (two in the same direction between the same stages cannot overlap: the
// receiving stage posts the next only after its blocking receive of the last).
#pragma once
#include <array>
#include <vector>

#include "analysis/workload/training_step.hpp"

namespace ccb {

struct StageResult {
  double step_s = 0, compute_s = 0;
  std::array<double, kDims> exposed_s{};  // waited on, per dimension (pp: bubble + transfer)
};

struct SimulatedStep {
  double step_s = 0;  // the slowest stage's
  int slowest_stage = 0;
  std::vector<StageResult> stages;
  const StageResult& slowest() const { return stages[static_cast<std::size_t>(slowest_stage)]; }
};

// op_seconds[i]: the time of one call of prog.ops[i]; crosses_nodes[i]: it
// uses the network (for shared_network).
SimulatedStep simulate_step(const StepProgram& prog, const std::vector<double>& op_seconds,
                            const std::vector<bool>& crosses_nodes, bool shared_network);

}  // namespace ccb
