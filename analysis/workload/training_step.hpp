// A training step's communication (docs/workload.md): a workload file's model
// shape and parallelism derived into one program per pipeline stage, a list
// of compute waits and collectives started and waited on their group's
// communicator. `ccbench replay` runs these programs on MPI; `ccbench
// workload predict` runs them on a simulated clock (step_simulation.hpp).
//
// Ranks are laid out as Megatron-LM does: tensor-parallel fastest, then
// data-parallel, then pipeline: rank = t + tp * (d + dp * p). Per rank, with
// d_B the dtype's bytes, A = micro_batch * sequence * hidden * d_B (one
// micro-batch's activations), L_s = layers / pp, m = global_batch /
// (micro_batch * dp), G = parameters / (tp * pp) * d_B (this rank's share of
// the gradients or parameters):
//   tp all_reduce of A: 2 per layer forward, 2 backward (Megatron-LM's
//     row-parallel attention and MLP outputs; their gradients), each micro-batch
//     (sequence parallel: an all_gather of A before and a reduce_scatter
//     after each of those blocks instead)
//   pp sendrecv of A: per micro-batch one to the next stage forward, one to
//     the previous backward (GPipe: every forward, then every backward; 1F1B:
//     pp - 1 - stage forwards, then a forward and a backward in turn); with v
//     virtual stages (interleaved 1F1B) per micro-batch and model chunk, the
//     last stage's chunk c passing on to the first stage's chunk c + 1
//   ep alltoall of A * top_k: dispatch and combine, forward and backward, on
//     every moe_every-th layer; with model.routing an alltoallv of A per rank
//     each: dispatch then combine (its transpose), counts from the MoE model
//     (each token once to each rank holding one of its top_k experts)
//   dp, zero 0 (DDP): all_reduce of G in buckets of `bucket` bytes, started as
//     the last micro-batch's backward makes them ready (earlier micro-batches
//     accumulate locally)
//   dp, zero 1/2: reduce_scatter of G in buckets the same way, then
//     all_gather of G (the updated parameters) after the step's backward
//   edp (ep > 1 with expert_parameters): the experts' share G_e =
//     expert_parameters / ep / (tp * pp) * d_B reduced as dp's below over the
//     dp / ep ranks holding the same experts; G is then the dense share only
//   dp, zero 3 (FSDP): per layer and micro-batch all_gather of G / L_s
//     forward (the next layer's prefetched while this one computes) and
//     backward, reduce_scatter of G / L_s after each layer's backward
//   compute: forward f per micro-batch and stage (given, or 2 * active
//     parameters / (tp * pp) * micro_batch * sequence / (peak * mfu)), backward ratio * f,
//     spread evenly over the stage's layers
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collectives/collective.hpp"
#include "collectives/traffic.hpp"
#include "common/settings.hpp"
#include "kernels/dtype.hpp"

namespace ccb {

// The parallel dimension a collective runs in (the group it runs on). edp:
// the expert-data-parallel group, the dp ranks that hold the same experts
// (dp / ep of them), over which the experts' gradients are reduced.
enum class Dim { tp, pp, dp, ep, edp };
inline constexpr int kDims = 5;
CCB_SETTING_NAMES(Dim, 5, {Dim::tp, "tp"}, {Dim::pp, "pp"}, {Dim::dp, "dp"}, {Dim::ep, "ep"}, {Dim::edp, "edp"});

// The pipeline's order of micro-batches (docs/workload.md): GPipe, every
// forward then every backward; 1F1B (Megatron-LM's default), pp - 1 - stage
// forwards, then one forward and one backward in turn; with virtual stages,
// Megatron-LM's interleaved 1F1B over each stage's model chunks.
enum class PipelineSchedule { gpipe, one_f_one_b };
CCB_SETTING_NAMES(PipelineSchedule, 2, {PipelineSchedule::gpipe, "gpipe"}, {PipelineSchedule::one_f_one_b, "1f1b"});

struct TrainingWorkload {
  std::string file, name, source;
  // The model.
  double parameters = 0, active_parameters = 0;  // active: per token (MoE: the experts it is routed to); 0: all
  int layers = 0, hidden = 0, sequence = 0, micro_batch = 1, global_batch = 0;
  DType dtype = DType::bfloat16;
  int experts = 0, top_k = 1, moe_every = 1;  // experts 0: dense
  double expert_parameters = 0;               // of `parameters`, those in experts (sharded over ep)
  // model.routing: how tokens pick their experts, as --traffic moe: takes it
  // ("uniform", "hot=R[:rank=K]", "lognormal=SIGMA", each [:seed=N]);
  // empty: ep sends the uniform alltoall of A x top_k (docs/workload.md).
  std::string routing;
  // Parallelism (dp 0: the ranks left after tp * pp).
  int tp = 1, pp = 1, dp = 0, ep = 1, zero = 0;
  double bucket_bytes = 25.0 * (1 << 20);  // PyTorch DDP's default bucket_cap_mb
  bool dp_overlap = true;                  // dp buckets start during backward (false: after it)
  PipelineSchedule schedule = PipelineSchedule::gpipe;
  int virtual_stages = 1;          // model chunks per pipeline stage (> 1: interleaved 1F1B)
  bool sequence_parallel = false;  // tp: all_gather before and reduce_scatter after each block, not all_reduce
  // Compute: forward_s per micro-batch and stage, or mfu x peak.
  double forward_s = 0, backward_ratio = 2, mfu = 0, peak_tflops = 0;
  // Goodput inputs (analysis/workload/goodput.hpp); negative: not given.
  double node_mtbf_hours = -1, checkpoint_s = -1, restart_s = -1;
  // The scale the step is meant for (`target:`; 0: not given): the default of
  // --ranks / --ranks-per-node, and where compare --workload decides.
  int target_ranks = 0, target_ranks_per_node = 0;
};

// The pipeline schedule in words ("GPipe", "1F1B", "interleaved 1F1B, 2
// virtual stages"); empty without a pipeline (pp 1).
std::string schedule_words(const TrainingWorkload& w);

// Throws UsageError "FILE:LINE: KEY: what is wrong" on bad content.
TrainingWorkload load_training_workload(const std::string& path);
// Whether a YAML file is a training step (it has `parallelism:`), not one of
// compare's one-collective workload profiles. False without yaml-cpp.
bool is_training_step_file(const std::string& path);

// One kind of communication in the step.
enum class P2p { none, send, recv };
struct CommOp {
  std::string phase;  // "tp all_reduce (forward)"
  Dim dim = Dim::tp;
  CollectiveId coll = CollectiveId::all_reduce;
  std::uint64_t bytes = 0;  // the size column (nccl-tests): all_reduce the buffer; all_gather, reduce_scatter,
                            // alltoall the whole buffer of the group; pp: one message
  P2p p2p = P2p::none;      // pp: this side of a message to or from a neighbouring stage
  int direction = 0;        // pp: +1 the next stage, -1 the previous (around the ring: interleaved 1F1B's
                            // last stage passes on to the first)
  // ep with model.routing: an alltoallv whose counts the MoE model gives
  // (collectives/moe_routing.hpp) at the ep group's size, and the bytes its
  // busiest rank moves: it is read off the uniform alltoall curve there.
  std::optional<TrafficModel> traffic;
  std::uint64_t busiest_bytes = 0;
};
// The curve an op is read off and at what size: its own collective at its
// bytes; an alltoallv with a traffic model the uniform alltoall at its
// busiest rank's bytes (as model predict --traffic without the link bound).
std::string_view curve_collective(const CommOp& op);
std::uint64_t curve_bytes(const CommOp& op);

// The stage a pipeline message of `direction` goes to or comes from (around the ring).
inline int pp_neighbour(int stage, int direction, int pp) { return ((stage + direction) % pp + pp) % pp; }

// The most actions a step's programs may hold, all stages together (a
// file that expands further is refused: UsageError, exit 2): a prediction
// at the bound took 1-2 s and 0.4 GB here (docs/workload.md).
inline constexpr std::size_t kMaxStepActions = 8'000'000;

struct Action {
  enum class Kind { compute, start, wait, wait_all };
  Kind kind = Kind::compute;
  double seconds = 0;  // compute
  int op = -1;         // start: the CommOp
  int of = -1;         // wait: the index of its start action in the stage's program
};

struct StepProgram {
  int ranks = 0, ranks_per_node = 0;
  DType dtype = DType::bfloat16;
  std::array<int, kDims> size{};  // group size per Dim (tp, pp, dp, ep, edp)
  int micro_batches = 0, virtual_stages = 1;
  double forward_s = 0, backward_s = 0;  // per micro-batch and stage
  double tokens_per_step = 0;
  std::vector<CommOp> ops;
  std::vector<std::vector<Action>> stages;  // one program per pipeline stage
  std::vector<std::string> notes;           // roundings and assumptions the derivation made

  int group_size(Dim d) const { return size[static_cast<int>(d)]; }
  // The pipeline bubble per step: (pp - 1) / v x (forward + backward).
  double bubble_s() const { return (group_size(Dim::pp) - 1) * (forward_s + backward_s) / virtual_stages; }
  double compute_per_step_s() const { return micro_batches * (forward_s + backward_s); }
};

// This rank's coordinates and the members of its group in each dimension.
struct RankPlace {
  int t = 0, d = 0, p = 0;
  std::array<std::vector<int>, kDims> groups;  // world ranks, in group order
};
RankPlace place_rank(const StepProgram& prog, int rank);
// How many nodes a group spans (ranks_per_node consecutive ranks per node).
int nodes_of(const std::vector<int>& group, int ranks_per_node);

// The programs for `ranks` ranks, `ranks_per_node` per node. UsageError when
// the parallelism does not fit them ("tp 2 x pp 3 = 6 does not divide the 8 ranks").
StepProgram derive_step(const TrainingWorkload& w, int ranks, int ranks_per_node);

}  // namespace ccb
