// The training-step workload: derivation (sizes, counts, groups, refusals),
// the simulated clock (overlap, pipeline, queues), curve reading, goodput.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "common/errors.hpp"
#include "analysis/decide/decision.hpp"
#include "analysis/compare/series.hpp"
#include "analysis/report/decision_words.hpp"
#include "analysis/workload/goodput.hpp"
#include "analysis/workload/prediction_file.hpp"
#include "analysis/workload/step_prediction.hpp"
#include "analysis/workload/training_step.hpp"
#include "synthetic_runs.hpp"

namespace ccb::workload_tests {

TrainingWorkload tiny() {
  TrainingWorkload w;
  w.file = "tiny.yaml", w.name = "tiny";
  w.parameters = 8e6, w.layers = 8, w.hidden = 256, w.sequence = 256, w.micro_batch = 2, w.global_batch = 8;
  w.tp = 2, w.pp = 2, w.bucket_bytes = 1 << 20, w.forward_s = 0.004;
  return w;
}

const CommOp* find_op(const StepProgram& p, const std::string& phase) {
  for (const CommOp& o : p.ops)
    if (o.phase == phase) return &o;
  return nullptr;
}

int calls(const StepProgram& p, const std::string& phase, int stage) {
  int n = 0;
  for (const Action& a : p.stages[static_cast<std::size_t>(stage)])
    if (a.kind == Action::Kind::start && p.ops[static_cast<std::size_t>(a.op)].phase == phase) ++n;
  return n;
}

TEST(Workload, DerivesMegatronSizesAndCounts) {
  const StepProgram p = derive_step(tiny(), 8, 2);
  EXPECT_EQ(p.group_size(Dim::dp), 2);
  EXPECT_EQ(p.micro_batches, 2);           // 8 / (2 x dp 2)
  const double act = 2.0 * 256 * 256 * 2;  // micro_batch x sequence x hidden x bf16
  ASSERT_NE(find_op(p, "tp all_reduce (forward)"), nullptr);
  EXPECT_EQ(find_op(p, "tp all_reduce (forward)")->bytes, act);
  // 2 per layer, 4 layers per stage, 2 micro-batches.
  EXPECT_EQ(calls(p, "tp all_reduce (forward)", 0), 16);
  EXPECT_EQ(calls(p, "tp all_reduce (backward)", 1), 16);
  EXPECT_EQ(calls(p, "pp send (forward)", 0), 2);
  EXPECT_EQ(calls(p, "pp send (forward)", 1), 0);
  EXPECT_EQ(calls(p, "pp recv (forward)", 1), 2);
  // dp: 8e6 / 4 parameters x 2 B = 4 MB in buckets of >= 1 MiB (2 layers of 0.95 MiB each).
  int dp_calls = 0;
  double dp_bytes = 0;
  for (const Action& a : p.stages[0])
    if (a.kind == Action::Kind::start && p.ops[static_cast<std::size_t>(a.op)].dim == Dim::dp)
      ++dp_calls, dp_bytes += static_cast<double>(p.ops[static_cast<std::size_t>(a.op)].bytes);
  EXPECT_EQ(dp_calls, 2);
  EXPECT_NEAR(dp_bytes, 4e6, 4);
  EXPECT_DOUBLE_EQ(p.compute_per_step_s(), 2 * (0.004 + 0.008));
  EXPECT_DOUBLE_EQ(p.tokens_per_step, 8.0 * 256);
}

TEST(Workload, ZeroStagesChangeTheDataParallelPhases) {
  TrainingWorkload w = tiny();
  w.zero = 2;
  StepProgram p = derive_step(w, 8, 2);
  ASSERT_NE(find_op(p, "dp reduce_scatter (gradient buckets)"), nullptr);
  ASSERT_NE(find_op(p, "dp all_gather (updated parameters)"), nullptr);
  EXPECT_EQ(find_op(p, "dp all_gather (updated parameters)")->bytes % 2, 0u);  // a whole count per dp rank
  w.zero = 3;
  p = derive_step(w, 8, 2);
  // FSDP: per layer and micro-batch, forward and backward.
  EXPECT_EQ(calls(p, "dp all_gather (forward, FSDP)", 0), 4 * 2);
  EXPECT_EQ(calls(p, "dp all_gather (backward, FSDP)", 0), 4 * 2);
  EXPECT_EQ(calls(p, "dp reduce_scatter (FSDP)", 0), 4 * 2);
  EXPECT_EQ(find_op(p, "dp all_reduce (gradient buckets)"), nullptr);
}

TEST(Workload, ExpertsAddAlltoallOnTheirLayers) {
  TrainingWorkload w = tiny();
  w.tp = 1, w.pp = 1, w.experts = 8, w.ep = 2, w.top_k = 2, w.moe_every = 2, w.global_batch = 8;
  const StepProgram p = derive_step(w, 4, 2);  // dp 4, ep groups of 2
  ASSERT_NE(find_op(p, "ep alltoall (forward)"), nullptr);
  EXPECT_EQ(find_op(p, "ep alltoall (forward)")->bytes, 2.0 * 256 * 256 * 2 * 2);  // x top_k
  // Every second of 8 layers, dispatch + combine, 1 micro-batch.
  EXPECT_EQ(calls(p, "ep alltoall (forward)", 0), 4 * 2 * 1);
  const RankPlace pl = place_rank(p, 3);
  EXPECT_EQ(pl.groups[static_cast<int>(Dim::ep)], (std::vector<int>{2, 3}));
  EXPECT_EQ(pl.groups[static_cast<int>(Dim::dp)], (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(pl.groups[static_cast<int>(Dim::edp)], (std::vector<int>{1, 3}));  // the same experts as rank 3
  EXPECT_EQ(find_op(p, "edp all_reduce (gradient buckets)"), nullptr);         // no expert_parameters given
  // With the experts' parameters given: they are reduced over edp (dp / ep ranks), the rest over dp.
  w.expert_parameters = 6e6, w.bucket_bytes = 1e12;  // one bucket each
  const StepProgram e = derive_step(w, 4, 2);
  EXPECT_EQ(e.group_size(Dim::edp), 2);
  ASSERT_NE(find_op(e, "edp all_reduce (gradient buckets)"), nullptr);
  EXPECT_EQ(find_op(e, "edp all_reduce (gradient buckets)")->bytes, 6e6 / 2 * 2);  // experts / ep, bfloat16
  EXPECT_EQ(find_op(e, "dp all_reduce (gradient buckets)")->bytes, (8e6 - 6e6) * 2);
}

TEST(Workload, RanksAreLaidOutTensorFirstThenDataThenPipeline) {
  const StepProgram p = derive_step(tiny(), 8, 2);
  const RankPlace pl = place_rank(p, 5);  // t 1, d 0, p 1
  EXPECT_EQ(pl.t, 1);
  EXPECT_EQ(pl.d, 0);
  EXPECT_EQ(pl.p, 1);
  EXPECT_EQ(pl.groups[static_cast<int>(Dim::tp)], (std::vector<int>{4, 5}));
  EXPECT_EQ(pl.groups[static_cast<int>(Dim::dp)], (std::vector<int>{5, 7}));
  EXPECT_EQ(pl.groups[static_cast<int>(Dim::pp)], (std::vector<int>{1, 5}));
  EXPECT_EQ(nodes_of(pl.groups[static_cast<int>(Dim::tp)], 2), 1);
  EXPECT_EQ(nodes_of(pl.groups[static_cast<int>(Dim::dp)], 2), 2);
}

TEST(Workload, RefusesWhatDoesNotFit) {
  const auto error = [](TrainingWorkload w, int ranks, int per_node) {
    try {
      derive_step(w, ranks, per_node);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(error(tiny(), 6, 2), "tiny.yaml: parallelism: tp 2 x pp 2 = 4 does not divide the 6 ranks");
  TrainingWorkload w = tiny();
  w.tp = 4;
  EXPECT_NE(error(w, 8, 2).find("tp 4: a tensor-parallel group must lie inside a node"), std::string::npos);
  w = tiny();
  w.global_batch = 6;
  EXPECT_NE(error(w, 8, 2).find("global_batch 6 is not a whole number of micro-batches"), std::string::npos);
  w = tiny();
  w.pp = 3;
  EXPECT_NE(error(w, 12, 2).find("pp 3 does not divide the model's 8 layers"), std::string::npos);
  w = tiny();
  w.dp = 4;
  EXPECT_NE(error(w, 8, 2).find("tp 2 x pp 2 x dp 4 = 16, not the 8 ranks"), std::string::npos);
}

// A data-parallel program with one stage: forward 1 s, backward 2 s over 2
// layers, a bucket per layer.
StepProgram two_buckets() {
  TrainingWorkload w = tiny();
  w.tp = 1, w.pp = 1, w.layers = 2, w.global_batch = 4, w.micro_batch = 2, w.forward_s = 1;
  w.bucket_bytes = 1;  // every layer fills one
  return derive_step(w, 2, 1);
}

TEST(WorkloadSimulation, DataParallelBucketsHideBehindBackward) {
  const StepProgram p = two_buckets();
  ASSERT_EQ(p.micro_batches, 1);
  ASSERT_EQ(p.ops.size(), 1u);
  const std::vector<bool> cross{true};
  // Bucket 1 starts when layer 2's backward ends (t = 2), bucket 2 at t = 3.
  SimulatedStep s = simulate_step(p, {0.5}, cross, false);
  EXPECT_NEAR(s.step_s, 3.5, 1e-12);
  EXPECT_NEAR(s.slowest().exposed_s[static_cast<int>(Dim::dp)], 0.5, 1e-12);
  s = simulate_step(p, {2.0}, cross, false);  // the queue: bucket 2 waits for bucket 1 (2 -> 4 -> 6)
  EXPECT_NEAR(s.step_s, 6, 1e-12);
  EXPECT_NEAR(s.slowest().exposed_s[static_cast<int>(Dim::dp)], 3, 1e-12);
  EXPECT_NEAR(s.slowest().compute_s, 3, 1e-12);
}

TEST(WorkloadSimulation, PipelineWaitsForTheOtherStage) {
  TrainingWorkload w = tiny();
  w.tp = 1, w.pp = 2, w.layers = 2, w.micro_batch = 1, w.global_batch = 2, w.forward_s = 1;
  const StepProgram p = derive_step(w, 2, 1);
  ASSERT_EQ(p.micro_batches, 2);
  std::vector<double> secs(p.ops.size(), 0.1);
  const SimulatedStep s = simulate_step(p, secs, std::vector<bool>(p.ops.size(), true), false);
  // GPipe by hand, a message taking 0.1 once both sides have posted it: stage
  // 1 receives at 1.1 and 2.2 (posted at 2.1), forwards until 3.2, sends its
  // gradients at 5.2 and 7.2; stage 0 waits 2 -> 5.3 and 7.3 -> 7.4, ends at 9.4.
  EXPECT_EQ(s.slowest_stage, 0);
  EXPECT_NEAR(s.step_s, 9.4, 1e-9);
  EXPECT_NEAR(s.stages[1].step_s, 7.4, 1e-9);
  EXPECT_NEAR(s.stages[0].exposed_s[static_cast<int>(Dim::pp)], 3.4, 1e-9);
}

// The pipeline messages of a stage in program order: F a forward send or
// receive, B a backward one.
std::string pipeline_order(const StepProgram& p, int stage) {
  std::string out;
  for (const Action& a : p.stages[static_cast<std::size_t>(stage)])
    if (a.kind == Action::Kind::start && p.ops[static_cast<std::size_t>(a.op)].dim == Dim::pp)
      out += p.ops[static_cast<std::size_t>(a.op)].phase.find("forward") != std::string::npos ? 'F' : 'B';
  return out;
}

TEST(WorkloadSimulation, OneFOneBInterleavesAfterFillingThePipeline) {
  TrainingWorkload w = tiny();
  w.tp = 1, w.pp = 3, w.layers = 3, w.micro_batch = 1, w.global_batch = 4, w.forward_s = 1;
  EXPECT_EQ(pipeline_order(derive_step(w, 3, 1), 0), "FFFFBBBB");  // GPipe
  w.schedule = PipelineSchedule::one_f_one_b;
  const StepProgram p = derive_step(w, 3, 1);
  EXPECT_EQ(pipeline_order(p, 0), "FFFBFBBB");          // 2 forwards to fill, then 1F1B, then the rest
  EXPECT_EQ(pipeline_order(p, 1), "FFFFBBFFBBFFBBBB");  // a receive and a send per pass
  EXPECT_EQ(pipeline_order(p, 2), "FBFBFBFB");          // the last stage: one forward, one backward
  // Both schedules end in the same time when messages cost nothing (the same bubble).
  const auto step = [&](const StepProgram& q) {
    return simulate_step(q, std::vector<double>(q.ops.size(), 0.0), std::vector<bool>(q.ops.size(), true), false)
        .step_s;
  };
  w.schedule = PipelineSchedule::gpipe;
  EXPECT_NEAR(step(p), step(derive_step(w, 3, 1)), 1e-9);
  // The gradients go to dp during the last backward, in the same buckets as GPipe's.
  const StepProgram gpipe = derive_step(w, 6, 1);
  w.schedule = PipelineSchedule::one_f_one_b;
  const StepProgram dp = derive_step(w, 6, 1);
  const std::string buckets = "dp all_reduce (gradient buckets)";
  EXPECT_GT(calls(dp, buckets, 0), 0);
  EXPECT_EQ(calls(dp, buckets, 0), calls(gpipe, buckets, 0));
  const auto& prog = dp.stages[0];
  std::size_t last_pp = 0, first_dp = prog.size();
  for (std::size_t i = 0; i < prog.size(); ++i) {
    if (prog[i].kind != Action::Kind::start) continue;
    const Dim d = dp.ops[static_cast<std::size_t>(prog[i].op)].dim;
    if (d == Dim::pp) last_pp = i;
    if (d == Dim::dp && first_dp == prog.size()) first_dp = i;
  }
  EXPECT_GT(first_dp, last_pp);  // stage 0's last backward begins with its last pipeline message
}

// Megatron-LM's interleaved 1F1B: with messages that cost nothing, the
// step is the compute plus a bubble of (pp - 1) / v x (forward + backward)
// (Narayanan et al. 2021, section 2.2), and no stage waits on another for ever.
TEST(WorkloadSimulation, InterleavedScheduleShrinksTheBubbleByTheVirtualStages) {
  for (int pp : {2, 3, 4})
    for (int v : {1, 2, 3})
      for (int groups : {1, 2, 3}) {
        TrainingWorkload w = tiny();
        w.tp = 1, w.pp = pp, w.virtual_stages = v, w.layers = pp * v * 2, w.micro_batch = 1;
        w.global_batch = pp * groups, w.forward_s = 1, w.schedule = PipelineSchedule::one_f_one_b;
        const StepProgram p = derive_step(w, pp, 1);
        SCOPED_TRACE(fmt::format("pp {} v {} m {}", pp, v, p.micro_batches));
        const SimulatedStep sim =
            simulate_step(p, std::vector<double>(p.ops.size(), 0.0), std::vector<bool>(p.ops.size(), true), false);
        EXPECT_NEAR(p.bubble_s(), (pp - 1) * 3.0 / v, 1e-12);
        EXPECT_NEAR(sim.step_s, p.compute_per_step_s() + p.bubble_s(), 1e-9);
        // Each model chunk's forward goes on; the last stage's chunk c to the first stage's c + 1.
        EXPECT_EQ(calls(p, "pp send (forward)", pp - 1), p.micro_batches * (v - 1));
        EXPECT_EQ(calls(p, "pp recv (forward)", 0), p.micro_batches * (v - 1));
        EXPECT_EQ(calls(p, "pp send (forward)", 0), p.micro_batches * v);
        EXPECT_EQ(calls(p, "pp send (backward)", 0), p.micro_batches * (v - 1));
      }
}

TEST(Workload, InterleavedScheduleReducesEachChunksGradientsOnce) {
  TrainingWorkload w = tiny();
  w.schedule = PipelineSchedule::one_f_one_b, w.global_batch = 16;  // m 4 at dp 2
  const auto dp_bytes = [&](const StepProgram& p) {
    double b = 0;
    for (const Action& a : p.stages[1])
      if (a.kind == Action::Kind::start && p.ops[static_cast<std::size_t>(a.op)].dim == Dim::dp)
        b += static_cast<double>(p.ops[static_cast<std::size_t>(a.op)].bytes);
    return b;
  };
  const double one = dp_bytes(derive_step(w, 8, 2));
  w.virtual_stages = 2;
  const StepProgram p = derive_step(w, 8, 2);
  EXPECT_NEAR(dp_bytes(p), one, one * 1e-6);
  EXPECT_EQ(calls(p, "tp all_reduce (forward)", 0), 2 * 4 * 4);  // 2 per layer, 4 layers per stage, 4 micro-batches
  // Refusals: layers, micro-batches, pp.
  const auto refused = [&](TrainingWorkload x, int ranks, const std::string& what) {
    try {
      derive_step(x, ranks, 2);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  w.virtual_stages = 3;
  refused(w, 8, "pp 2 x virtual_stages 3 = 6 does not divide the model's 8 layers");
  w.virtual_stages = 2, w.global_batch = 6;
  refused(w, 4, "virtual_stages 2: interleaved 1F1B needs the micro-batches per step (3) to be a multiple of pp 2");
  w.pp = 1, w.global_batch = 16;
  refused(w, 4, "virtual_stages 2 needs pp 2 or more");
}

TEST(Workload, SequenceParallelSplitsEachTensorParallelAllReduce) {
  TrainingWorkload w = tiny();
  const StepProgram ar = derive_step(w, 8, 2);
  w.sequence_parallel = true;
  const StepProgram sp = derive_step(w, 8, 2);
  const CommOp* all_reduce = find_op(ar, "tp all_reduce (forward)");
  const CommOp* gather = find_op(sp, "tp all_gather (forward, sequence parallel)");
  const CommOp* scatter = find_op(sp, "tp reduce_scatter (backward, sequence parallel)");
  ASSERT_TRUE(all_reduce && gather && scatter);
  EXPECT_EQ(find_op(sp, "tp all_reduce (forward)"), nullptr);
  // The same bytes on the wire: the size column of all_gather / reduce_scatter is the whole buffer.
  EXPECT_EQ(gather->bytes, all_reduce->bytes);
  EXPECT_EQ(gather->coll, CollectiveId::all_gather);
  EXPECT_EQ(calls(sp, "tp all_gather (forward, sequence parallel)", 0), calls(ar, "tp all_reduce (forward)", 0));
  EXPECT_EQ(calls(sp, "tp reduce_scatter (forward, sequence parallel)", 0), calls(ar, "tp all_reduce (forward)", 0));
}

TEST(WorkloadSimulation, SharedNetworkQueuesDifferentPhases) {
  TrainingWorkload w = tiny();
  w.tp = 1, w.pp = 1, w.layers = 2, w.global_batch = 4, w.micro_batch = 2, w.forward_s = 1, w.zero = 2;
  w.bucket_bytes = 1;
  const StepProgram p = derive_step(w, 2, 1);  // reduce_scatter buckets, then the all_gather
  const std::vector<double> secs(p.ops.size(), 2.0);
  const std::vector<bool> cross(p.ops.size(), true);
  const double apart = simulate_step(p, secs, cross, false).step_s, queued = simulate_step(p, secs, cross, true).step_s;
  EXPECT_NEAR(apart, 8, 1e-9);  // buckets 2-4-6, then the all_gather 6-8
  EXPECT_GE(queued, apart);
}

ResultSet curves() {
  synthetic::Shape shape;
  shape.from = 1024, shape.to = 1 << 20, shape.factor = 4, shape.placements = {0};
  // 10 us + bytes / 1 GB/s at any rank count.
  ResultSet s = synthetic::sweep(
      {2}, [](int, double b) { return 10 + b / 1e3; }, shape);
  ResultSet pp = s;
  for (ImportedPoint& p : pp.points) p.collective = "sendrecv";
  s.points.insert(s.points.end(), pp.points.begin(), pp.points.end());
  return s;
}

TEST(WorkloadPrediction, ReadsEachPhaseOffItsGroupsCurve) {
  TrainingWorkload w = tiny();
  w.tp = 1, w.pp = 2, w.hidden = 64, w.sequence = 64, w.micro_batch = 1, w.global_batch = 2;  // 8 KiB messages
  const StepProgram p = derive_step(w, 2, 1);
  const ResultSet set = curves();  // the table points into it
  const SeriesTable t = build_series(set, kKeyRanks | kKeyNodes | kKeyInPlace);
  const StepPrediction pred = predict_step(p, t);
  ASSERT_FALSE(pred.phases.empty());
  for (const PhaseTime& ph : pred.phases) {
    EXPECT_EQ(ph.group_ranks, 2);
    EXPECT_EQ(ph.group_nodes, 2);
    EXPECT_EQ(ph.sharing, 1);
    // 8192 B lies between 4 KiB and 16 KiB: halfway in log-log, their geometric mean.
    EXPECT_NEAR(ph.s * 1e6, std::sqrt((10 + 4.096) * (10 + 16.384)), 1e-9);
    EXPECT_FALSE(ph.extrapolated);
  }
  EXPECT_GE(pred.hi.step_s, pred.mid.step_s);
  EXPECT_LE(pred.lo.step_s, pred.mid.step_s);
  const PredictedStep sum = summarize_prediction(w, p, pred);
  EXPECT_NEAR(sum.exposed_s.mid, pred.mid.step_s - p.compute_per_step_s(), 1e-9);
}

// A pipeline message is one transfer one way: pingpong's half round trip;
// sendrecv (both ways at once) only raises its high end.
TEST(WorkloadPrediction, PipelineMessagesReadOneWayWithBothWaysAsTheHighEnd) {
  TrainingWorkload w = tiny();
  w.tp = 1, w.pp = 2, w.hidden = 64, w.sequence = 64, w.micro_batch = 1, w.global_batch = 2;  // 8 KiB messages
  const StepProgram p = derive_step(w, 2, 1);
  ResultSet set = curves();  // sendrecv: 10 us + bytes / 1 GB/s
  const ResultSet two_way = set;
  ResultSet one_way = synthetic::sweep(
      {2}, [](int, double b) { return 5 + b / 2e3; }, synthetic::Shape{1024, 1 << 20, 4, {0}, 1, "mpi", "", "", ""});
  for (ImportedPoint& pt : one_way.points) pt.collective = "pingpong";
  set.points.insert(set.points.end(), one_way.points.begin(), one_way.points.end());
  const StepPrediction pred = predict_step(p, build_series(set, kKeyRanks | kKeyNodes | kKeyInPlace));
  const StepPrediction only_two_way = predict_step(p, build_series(two_way, kKeyRanks | kKeyNodes | kKeyInPlace));
  int messages = 0;
  for (std::size_t i = 0; i < pred.phases.size(); ++i) {
    const PhaseTime& ph = pred.phases[i];
    if (p.ops[static_cast<std::size_t>(ph.op)].p2p == P2p::none) continue;
    ++messages;
    EXPECT_NEAR(ph.s * 1e6, std::sqrt((5 + 2.048) * (5 + 8.192)), 1e-9) << ph.curve;
    EXPECT_NEAR(ph.lo_s, ph.s, 1e-12);
    EXPECT_NEAR(ph.hi_s * 1e6, std::sqrt((10 + 4.096) * (10 + 16.384)), 1e-9);  // sendrecv's
    EXPECT_NE(ph.curve.find("pingpong"), std::string::npos) << ph.curve;
    EXPECT_NE(ph.curve.find("high end both ways: sendrecv"), std::string::npos) << ph.curve;
    EXPECT_NEAR(only_two_way.phases[i].s, ph.hi_s, 1e-12);  // without a pingpong: sendrecv throughout
  }
  EXPECT_EQ(messages, 4);
  EXPECT_LT(pred.mid.step_s, only_two_way.mid.step_s);
  EXPECT_NEAR(pred.hi.step_s, only_two_way.hi.step_s, 1e-12);
}

// A step sums many calls: each is read at its curve's mean time (a bimodal
// point's median flips between its modes from one sweep to the next).
TEST(WorkloadPrediction, ReadsTheMeanOfACallsSamples) {
  TrainingWorkload w = tiny();
  w.tp = 1, w.pp = 2, w.hidden = 64, w.sequence = 64, w.micro_batch = 1, w.global_batch = 2;  // 8 KiB messages
  const StepProgram p = derive_step(w, 2, 1);
  ResultSet set = curves();
  for (ImportedPoint& pt : set.points) pt.samples_us = {pt.time_us, pt.time_us, pt.time_us, 3 * pt.time_us};
  const StepPrediction pred = predict_step(p, build_series(set, kKeyRanks | kKeyNodes | kKeyInPlace));
  ASSERT_FALSE(pred.phases.empty());
  for (const PhaseTime& ph : pred.phases) {
    EXPECT_NEAR(ph.s * 1e6, 1.5 * std::sqrt((10 + 4.096) * (10 + 16.384)), 1e-9);  // the mean: 1.5 x the median
    EXPECT_LE(ph.lo_s, ph.s);
    EXPECT_GE(ph.hi_s, ph.s);
  }
}

TEST(WorkloadPrediction, SaysWhichCurveIsMissing) {
  TrainingWorkload w = tiny();
  w.tp = 1, w.pp = 1, w.global_batch = 8, w.micro_batch = 2;
  const StepProgram p = derive_step(w, 4, 1);  // dp all_reduce at 4 ranks on 4 nodes
  const ResultSet set = curves();
  const SeriesTable t = build_series(set, kKeyRanks | kKeyNodes | kKeyInPlace);
  try {
    predict_step(p, t);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(),
                 "no measured curve for 'dp all_reduce (gradient buckets)': all_reduce at 4 ranks on 4 nodes "
                 "(the runs have: 2 ranks on 2 nodes)");
  }
}

TEST(WorkloadPrediction, GroupsSideBySideShareTheLinks) {
  TrainingWorkload w = tiny();
  w.pp = 1;
  const StepProgram p = derive_step(w, 4, 2);  // tp 2 in a node, dp 2 across: 2 dp groups per node
  ResultSet set = curves();
  // The tp curve: 2 ranks on 1 node.
  ResultSet one_node = synthetic::sweep(
      {2}, [](int, double b) { return 10 + b / 1e3; }, synthetic::Shape{1024, 1 << 24, 4, {0}, 0, "mpi", "", "", ""});
  set.points.insert(set.points.end(), one_node.points.begin(), one_node.points.end());
  const StepPrediction pred = predict_step(p, build_series(set, kKeyRanks | kKeyNodes | kKeyInPlace));
  for (const PhaseTime& ph : pred.phases) {
    const CommOp& op = p.ops[static_cast<std::size_t>(ph.op)];
    EXPECT_EQ(ph.sharing, op.dim == Dim::dp ? 2 : 1) << op.phase;
  }
}

// A curve of the two dp groups measured side by side (--split) replaces the
// sharing model: read at the call's own bytes; the low time stays alone.
TEST(WorkloadPrediction, GroupsMeasuredSideBySideAreReadAtTheirOwnBytes) {
  TrainingWorkload w = tiny();
  w.pp = 1;
  const StepProgram p = derive_step(w, 4, 2);
  ResultSet set = curves();
  ResultSet one_node = synthetic::sweep(
      {2}, [](int, double b) { return 10 + b / 1e3; }, synthetic::Shape{1024, 1 << 24, 4, {0}, 0, "mpi", "", "", ""});
  set.points.insert(set.points.end(), one_node.points.begin(), one_node.points.end());
  const StepPrediction modelled = predict_step(p, build_series(set, kKeyRanks | kKeyNodes | kKeyInPlace));
  // Two groups side by side at 2 ranks on 2 nodes: 0.6 GB/s each (the model says 0.5).
  ResultSet shared = synthetic::sweep(
      {2}, [](int, double b) { return 10 + b / 600; }, synthetic::Shape{1024, 1 << 24, 4, {0}, 0, "mpi", "", "", ""});
  for (ImportedPoint& pt : shared.points) pt.nodes = 2, pt.groups = 2;
  set.points.insert(set.points.end(), shared.points.begin(), shared.points.end());
  const StepPrediction measured = predict_step(p, build_series(set, kKeyRanks | kKeyNodes | kKeyInPlace));
  int dp = 0;
  for (std::size_t i = 0; i < measured.phases.size(); ++i) {
    const PhaseTime& m = measured.phases[i];
    const PhaseTime& model = modelled.phases[i];
    if (p.ops[static_cast<std::size_t>(m.op)].dim != Dim::dp) {
      EXPECT_FALSE(m.sharing_measured);
      EXPECT_DOUBLE_EQ(m.s, model.s);
      continue;
    }
    ++dp;
    const double b = static_cast<double>(p.ops[static_cast<std::size_t>(m.op)].bytes);
    EXPECT_TRUE(m.sharing_measured);
    EXPECT_FALSE(model.sharing_measured);
    EXPECT_NE(m.curve.find("2 groups side by side"), std::string::npos) << m.curve;
    EXPECT_NEAR(m.s * 1e6, 10 + b / 600, 0.03 * (10 + b / 600));              // the shared curve at b
    EXPECT_NEAR(model.s * 1e6, 10 + 2 * b / 1e3, 0.03 * (10 + 2 * b / 1e3));  // the model: 2 x b alone
    EXPECT_DOUBLE_EQ(m.lo_s, model.lo_s);                                     // alone at b either way
  }
  EXPECT_GT(dp, 0);
  EXPECT_LT(measured.mid.step_s, modelled.mid.step_s);
}

TEST(WorkloadPrediction, PrefersCurvesOfNonblockingMpiCalls) {
  // The replay issues MPI's nonblocking calls; a sweep of the blocking ones times another algorithm.
  TrainingWorkload w = tiny();
  w.tp = 1, w.pp = 2, w.hidden = 64, w.sequence = 64, w.micro_batch = 1, w.global_batch = 2;
  const StepProgram p = derive_step(w, 2, 1);
  ResultSet blocking = curves();
  for (ImportedPoint& pt : blocking.points) pt.mpi_calls = "blocking";
  const StepPrediction only_blocking = predict_step(p, build_series(blocking, kKeyRanks | kKeyNodes | kKeyInPlace));
  ASSERT_FALSE(only_blocking.phases.empty());
  for (const PhaseTime& ph : only_blocking.phases) EXPECT_TRUE(ph.blocking_mpi) << ph.curve;

  ResultSet both = blocking;
  ResultSet nonblocking = synthetic::sweep(
      {2}, [](int, double b) { return 5 + b / 2e3; }, synthetic::Shape{1024, 1 << 20, 4, {0}, 1, "mpi", "", "", ""});
  ResultSet pp = nonblocking;
  for (ImportedPoint& pt : pp.points) pt.collective = "sendrecv";
  nonblocking.points.insert(nonblocking.points.end(), pp.points.begin(), pp.points.end());
  for (ImportedPoint& pt : nonblocking.points) pt.mpi_calls = "nonblocking";
  // Either order of the runs: the nonblocking curve is read.
  for (const bool first : {true, false}) {
    ResultSet set = first ? nonblocking : both;
    const ResultSet& rest = first ? both : nonblocking;
    set.points.insert(set.points.end(), rest.points.begin(), rest.points.end());
    const StepPrediction pred = predict_step(p, build_series(set, kKeyRanks | kKeyNodes | kKeyInPlace));
    for (const PhaseTime& ph : pred.phases) {
      EXPECT_FALSE(ph.blocking_mpi) << ph.curve;
      EXPECT_NE(ph.curve.find("nonblocking MPI calls"), std::string::npos) << ph.curve;
    }
    EXPECT_LT(pred.mid.step_s, only_blocking.mid.step_s);
  }
}

TEST(WorkloadPrediction, TheFileReadsBackWhatWasWritten) {
  PredictedStep p;
  p.workload = "w", p.ranks = 8, p.ranks_per_node = 2, p.compute_s = 0.1;
  p.step_s = {0.3, 0.25, 0.4}, p.exposed_s = {0.2, 0.15, 0.3};
  p.by_dim[static_cast<int>(Dim::dp)] = {0.2, 0.15, 0.3};
  const std::string path = testing::TempDir() + "/prediction.json";
  {
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(prediction_json(p).c_str(), f);
    std::fclose(f);
  }
  const PredictedStep r = read_prediction(path);
  EXPECT_EQ(r.ranks, 8);
  EXPECT_DOUBLE_EQ(r.step_s.hi, 0.4);
  EXPECT_DOUBLE_EQ(r.by_dim[static_cast<int>(Dim::dp)].lo, 0.15);
}

TEST(Goodput, YoungsIntervalAndTheShareLost) {
  // 100 nodes of 1000 h MTBF: the job fails every 36000 s.
  const Goodput g = young_goodput(1000, 100, 60, 300);
  EXPECT_NEAR(g.job_mtbf_s, 36000, 1e-9);
  EXPECT_NEAR(g.interval_s, std::sqrt(2 * 60 * 36000.0), 1e-9);
  EXPECT_NEAR(g.lost_checkpoint, 60 / g.interval_s, 1e-12);
  EXPECT_NEAR(g.lost_rework, g.interval_s / 72000, 1e-12);
  EXPECT_NEAR(g.lost_restart, 300 / 36000.0, 1e-12);
  // Daly's exact share is Young's first-order one where tau << M (the first
  // order counts some losses twice: the exact share is a little higher).
  EXPECT_NEAR(g.useful, 1 - 2 * 60 / g.interval_s - 300 / 36000.0, 2e-3);  // C / tau = tau / 2M at Young's tau
  EXPECT_EQ(young_goodput(1, 10000, 600, 600).useful, 0);                  // failures faster than checkpoints
}

// Issue 67: a 73-hour step on a job whose MTBF is 44.5 h was "checkpoint every
// 73.1 min: useful 96.9%". A checkpoint comes between steps, and a step longer
// than the MTBF rarely completes.
TEST(Goodput, TheIntervalIsAtLeastAStepAndTheShareStaysPossible) {
  const double step = 73 * 3600.0;
  const Goodput g = young_goodput(44.5 * 16, 16, 60, 300, step);  // job MTBF 44.5 h
  EXPECT_TRUE(g.interval_is_steps);
  EXPECT_GE(g.interval_s, step);
  EXPECT_TRUE(g.step_beyond_mtbf);
  EXPECT_NEAR(g.useful, 1.64 / std::expm1(1.64), 0.01);  // tau / (M (e^(tau/M) - 1)) at tau = 1.64 M: 0.39, not 0.97
  EXPECT_GE(g.useful, 0);
  // A step shorter than Young's interval: whole steps, at least Young's.
  const Goodput w = young_goodput(1000, 100, 60, 300, 7);
  EXPECT_FALSE(w.interval_is_steps);
  EXPECT_GE(w.interval_s, std::sqrt(2 * 60 * 36000.0));
  EXPECT_NEAR(std::fmod(w.interval_s, 7), 0, 1e-6);
  // Over a grid, the share is a share and never above the no-failure case.
  for (double mtbf : {0.01, 1.0, 100.0, 1e5})
    for (double ckpt : {1.0, 60.0, 3600.0})
      for (double st : {0.0, 1.0, 3600.0, 1e6}) {
        const Goodput x = young_goodput(mtbf, 8, ckpt, 30, st);
        EXPECT_GE(x.useful, 0);
        EXPECT_LE(x.useful, 1);
        if (st > 0) {
          EXPECT_GE(x.interval_s, st * (1 - 1e-9));
        }
      }
}

// compare --workload STEP.yaml: two options' predicted steps priced per
// useful token, the break-even on the time per useful step.
struct TwoOptions {
  CostProfile own, rent;
  StepFacts f;
  StepAtScale a, b;
  TwoOptions(double own_step, double rent_step) {
    own.kind = "bare_metal", own.currency = rent.currency = "USD";
    own.capital_cost = 1.2e6, own.amortisation_years = 4, own.yearly_operating_cost = 1e5, own.utilisation = 0.7;
    own.gpus = 64;
    own.per_gpu_hour = (own.capital_cost / 4 + own.yearly_operating_cost) / (64 * 8760.0 * 0.7);
    rent.kind = "cloud", rent.per_gpu_hour = 4;
    f.name = "w", f.ranks = 64, f.ranks_per_node = 8, f.tokens_per_step = 1e6, f.compute_s = 1;
    f.node_mtbf_hours = 1000, f.checkpoint_s = 60, f.restart_s = 300;
    const auto step = [](double t) {
      PredictedStep p;
      p.step_s = {t, t * 0.9, t * 1.1};
      p.exposed_s = {t - 1, (t - 1) * 0.9, (t - 1) * 1.1};
      p.compute_s = 1;
      return p;
    };
    a.label = "own", a.cost = &own, a.step = step(own_step);
    b.label = "rent", b.cost = &rent, b.step = step(rent_step);
  }
  Decision decide() const { return decide_training_step(f, {a, b}, 8, true); }
};

TEST(StepDecision, CostPerUsefulTokenAndBreakEvenFollowTheFormulas) {
  TwoOptions t(2, 3);
  const Decision d = t.decide();
  // Each option's checkpoint interval is whole steps of its own step time.
  const double useful = young_goodput(1000, 8, 60, 300, 3).useful;
  EXPECT_EQ(d.cost_unit, "million useful tokens");
  EXPECT_DOUBLE_EQ(d.sets[0].useful, young_goodput(1000, 8, 60, 300, 2).useful);
  EXPECT_DOUBLE_EQ(d.sets[1].useful, useful);
  EXPECT_NEAR(d.sets[1].unit_cost, 3.0 * 64 * 4 / 3600 / (1e6 * useful) * 1e6, 1e-12);
  EXPECT_NEAR(d.sets[1].cost_hi, 3.3 * 64 * 4 / 3600 / (1e6 * useful) * 1e6, 1e-12);
  EXPECT_DOUBLE_EQ(d.sets[0].comm_s, 1);  // the exposed communication
  EXPECT_EQ(d.faster.kind, RatioCall::winner);
  EXPECT_EQ(d.faster.lower, "own");
  EXPECT_NEAR(d.faster.ratio, 1.5, 1e-12);
  ASSERT_TRUE(d.break_even);
  const double yearly = 1.2e6 / 4 + 1e5;
  EXPECT_NEAR(d.break_even->utilisation, yearly / (64 * 8760.0 * 4 * 1.5), 1e-12);
  ASSERT_EQ(d.goodput_cases.size(), 16u);
  // The same MTBF for both: goodput scales both costs alike, the call holds.
  for (const GoodputCase& g : d.goodput_cases) EXPECT_EQ(g.cheaper.lower, d.cheaper.lower);
  const std::vector<std::string> words = step_summary(d);
  EXPECT_NE(words[0].find("'own' is faster by 1.50x"), std::string::npos) << words[0];
  EXPECT_NE(words[1].find("Per million useful tokens"), std::string::npos) << words[1];
  EXPECT_NE(words[2].find("holds in all 16 cases"), std::string::npos) << words[2];
}

TEST(StepDecision, AProfilesNodeMtbfChangesItsGoodputAndTheBreakEven) {
  TwoOptions t(2, 2);
  t.rent.node_mtbf_hours = 20;  // a cloud whose nodes fail far more often
  const Decision d = t.decide();
  EXPECT_LT(d.sets[1].useful, d.sets[0].useful);
  EXPECT_EQ(d.sets[1].mtbf_basis, "input: cost profile");
  EXPECT_EQ(d.sets[0].mtbf_basis, "input: workload");
  // Equal steps: renting needs more GPU-hours only through its lower useful share.
  const double speed = d.sets[0].useful / d.sets[1].useful;
  EXPECT_NEAR(d.break_even->utilisation, (1.2e6 / 4 + 1e5) / (64 * 8760.0 * 4 * speed), 1e-12);
  EXPECT_EQ(d.faster.kind, RatioCall::contains_equal);  // equal steps, +-10% each
  // Without goodput inputs every step is useful and no sensitivity is computed.
  t.f.checkpoint_s = -1;
  const Decision none = t.decide();
  EXPECT_DOUBLE_EQ(none.sets[1].useful, 1);
  EXPECT_TRUE(none.goodput_cases.empty());
}

TEST(StepDecision, ARefusedSetIsNamedNotDropped) {
  TwoOptions t(2, 3);
  t.b.step.reset();
  t.b.refused = "it was measured oversubscribed";
  const Decision d = t.decide();
  EXPECT_EQ(d.faster.kind, RatioCall::none);
  EXPECT_FALSE(d.break_even);
  const std::string first = step_summary(d)[0];
  EXPECT_NE(first.find("nothing can be decided"), std::string::npos) << first;
  EXPECT_NE(first.find("'rent' has no prediction: it was measured oversubscribed"), std::string::npos) << first;
}

// Times print 3 decimals where they mean something (issue 53: "0.000" for a
// measured time, or 10 digits of a 1e9 ms prediction, were printed).
TEST(WorkloadPrediction, MillisecondsInSignificantFigures) {
  EXPECT_EQ(format_ms(0.006), "6.000");
  EXPECT_EQ(format_ms(2e-7), "0.0002");
  EXPECT_EQ(format_ms(0), "0.000");
  EXPECT_EQ(format_ms(1268451.945461), "1.268e+09");
}

// Issue 53: a phase read off a scale-model point whose interval is
// unbounded makes the step unbounded, and no call rests on it.
TEST(WorkloadPrediction, AnUnboundedScaleModelPointMakesTheStepUnbounded) {
  TrainingWorkload w = tiny();
  w.tp = 1, w.pp = 2, w.hidden = 64, w.sequence = 64, w.micro_batch = 1, w.global_batch = 2;
  const StepProgram p = derive_step(w, 2, 1);
  ResultSet set = curves();
  for (ImportedPoint& q : set.points) {  // the scale model's points: an interval, unbounded
    q.time_lo_us = q.time_us / 500, q.time_hi_us = q.time_us * 500;
    q.time_unbounded = true;
  }
  const SeriesTable t = build_series(set, kKeyRanks | kKeyNodes | kKeyInPlace);
  const StepPrediction pred = predict_step(p, t);
  ASSERT_FALSE(pred.unbounded.empty());
  EXPECT_TRUE(pred.phases.front().unbounded);
  const PredictedStep sum = summarize_prediction(w, p, pred);
  EXPECT_EQ(sum.unbounded, pred.unbounded);
  const std::string file = ::testing::TempDir() + "/unbounded-prediction.json";
  std::ofstream(file) << prediction_json(sum);
  EXPECT_EQ(read_prediction(file).unbounded, sum.unbounded);  // --json keeps it
}

TEST(StepDecision, AStepOnAnUnboundedPhaseIsNeverCalled) {
  TwoOptions t(2, 20);  // 10x apart: a winner on the point estimates
  t.b.step->unbounded = {"dp all_reduce (gradient buckets)"};
  const Decision d = t.decide();
  EXPECT_EQ(d.faster.kind, RatioCall::unbounded);
  EXPECT_EQ(d.cheaper.kind, RatioCall::unbounded);
  EXPECT_EQ(d.sets[1].step_hi_s, INFINITY);
  const std::vector<std::string> words = step_summary(d);
  EXPECT_NE(words[0].find("cannot tell which is faster: the step of 'rent' rests on a scale-model interval the data "
                          "cannot bound (dp all_reduce (gradient buckets))"),
            std::string::npos)
      << words[0];
  EXPECT_NE(words[0].find("interval unbounded: the scale model cannot bound dp all_reduce"), std::string::npos)
      << words[0];
  EXPECT_EQ(words[0].find("inf"), std::string::npos) << words[0];
  // Nothing after "cannot tell" may call what it could not.
  EXPECT_EQ(words[2].find("holds"), std::string::npos) << words[2];
  ASSERT_TRUE(d.break_even);
  EXPECT_NE(break_even_sentence(*d.break_even, "per useful token").find("Cannot tell whether owning"),
            std::string::npos);
  const Table grid = break_even_table(*d.break_even, "per useful token");
  for (const auto& row : grid.rows) EXPECT_NE(row[1].text.find("(unbounded)"), std::string::npos) << row[1].text;
}

TEST(StepDecision, UnderCannotTellTheSensitivityShowsItsIntervals) {
  TwoOptions t(2, 2.1);  // +-10% each: the intervals overlap, no call
  t.a.step->step_s = {2, 1, 4}, t.b.step->step_s = {2.1, 1, 4};
  const Decision d = t.decide();
  EXPECT_NE(d.cheaper.kind, RatioCall::winner);
  const std::string goodput = step_summary(d)[2];
  EXPECT_EQ(goodput.find("The cheaper call holds"), std::string::npos) << goodput;
  ASSERT_TRUE(d.break_even);
  const Table grid = break_even_table(*d.break_even, "per useful token");
  bool straddles = false;
  for (const auto& row : grid.rows)
    for (std::size_t k = 1; k < row.size(); ++k) {
      EXPECT_NE(row[k].text.find(" ("), std::string::npos) << row[k].text;  // every cell with its interval
      straddles = straddles || row[k].tone == Tone::warn;
    }
  EXPECT_TRUE(straddles);  // a cell whose interval includes 1 is not called either way
  const std::string be = break_even_sentence(*d.break_even, "per useful token");
  EXPECT_EQ(be.find("beyond 100%."), std::string::npos) << be;
}

}  // namespace ccb::workload_tests
