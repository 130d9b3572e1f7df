// The scale model (analysis/model) and the decision at scale
// (analysis/compare/decision), on curves generated from known formulas.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "common/errors.hpp"
#include "analysis/decide/decision.hpp"
#include "analysis/model/comm_model.hpp"
#include "analysis/model/projection.hpp"
#include "analysis/model/step_cost.hpp"
#include "analysis/report/report.hpp"
#include "tests/unit/synthetic_runs.hpp"

namespace ccb {
namespace {

using synthetic::TimeOf;

// A ring all_reduce on a non-blocking fabric: 2(n-1) steps of s/n bytes,
// each costing alpha + bytes / bandwidth.
double ring(int n, double s) { return 2.0 * (n - 1) * (20.0 + (s / n) / 1000.0); }
// A binomial tree: log2 n steps of the whole buffer.
double tree(int n, double s) { return std::ceil(std::log2(n)) * (20.0 + s / 1000.0); }

ResultSet sweep(const std::vector<int>& counts, const TimeOf& time, int ranks_per_node = 1,
                const std::string& backend = "mpi") {
  synthetic::Shape shape;
  shape.ranks_per_node = ranks_per_node;
  shape.backend = backend;
  return synthetic::sweep(counts, time, shape);
}

Prediction out_of_place(const std::vector<Prediction>& v) {
  for (const Prediction& p : v)
    if (p.series->in_place == 0) return p;
  throw std::runtime_error("no out-of-place prediction");
}

TEST(Model, RecoversRingScalingAndCoversTheTruth) {
  const Model m = fit_model({sweep({2, 3, 4}, ring)});
  ASSERT_EQ(m.series.size(), 2u);
  EXPECT_EQ(m.series[0].family, ModelFamily::ring);
  EXPECT_EQ(m.series[0].counts, (std::vector<int>{2, 3, 4}));
  const Prediction p = out_of_place(predict(m, 16, 16, {}));
  ASSERT_FALSE(p.points.empty());
  for (const PredictedPoint& q : p.points) {
    if (q.bytes < (64u << 10)) continue;  // its steps are smaller than any measured: the floor, flagged
    const double truth = ring(16, static_cast<double>(q.bytes));
    EXPECT_NEAR(q.time_us / truth, 1.0, 0.06) << q.bytes;
    EXPECT_LE(q.lo_us, q.time_us);
    EXPECT_GE(q.hi_us, q.time_us);
    EXPECT_NEAR(q.busbw_gbps, static_cast<double>(q.bytes) / (q.time_us * 1e3) * 2 * 15 / 16, 1e-9);
  }
  EXPECT_TRUE(p.points.front().size_extrapolated);  // 1 KiB at 16 ranks: 64-byte steps, below the measured 256
  EXPECT_FALSE(p.points.back().size_extrapolated);
}

TEST(Model, SwitchesFamilyOnlyWhenClearlyBetter) {
  // Tree data: ring cannot predict left-out counts, tree can.
  const Model t = fit_model({sweep({2, 3, 4, 6, 8}, tree)});
  EXPECT_EQ(t.series[0].family, ModelFamily::tree) << t.series[0].chosen_by;
  const Prediction p = out_of_place(predict(t, 32, 32, {16u << 20}));
  EXPECT_NEAR(p.points[0].time_us / tree(32, 16u << 20), 1.0, 0.06);
  // Ring data stays ring, the usual algorithm, with the reason recorded.
  const Model r = fit_model({sweep({2, 3, 4, 6, 8}, ring)});
  EXPECT_EQ(r.series[0].family, ModelFamily::ring);
  EXPECT_NE(r.series[0].chosen_by.find("usual"), std::string::npos);
}

TEST(Model, LeftOutErrorsAreRecordedAndFailWhenTheDataDisagree) {
  // A 4-rank run twice as slow as ring predicts: the left-out check sees it.
  const Model m = fit_model({sweep({2, 3, 4}, [](int n, double s) { return ring(n, s) * (n == 4 ? 2.0 : 1.0); })});
  double worst = 0;
  for (const ModelPoint& q : m.series[0].points)
    if (q.ranks == 4) worst = std::max(worst, q.left_out);
  EXPECT_GT(worst, 0.4);  // log(2) = 0.69 before smoothing
  const Model clean = fit_model({sweep({2, 3, 4}, ring)});
  for (const ModelPoint& q : clean.series[0].points)
    if (q.bytes >= (1u << 20)) {
      EXPECT_LT(q.left_out, 0.1) << q.ranks << " " << q.bytes;
    }
}

TEST(Model, IntervalWidensWithDistance) {
  const Model m = fit_model({sweep({2, 3, 4}, [](int n, double s) {
    return ring(n, s) * (1 + 0.05 * ((n * 7 + static_cast<int>(s) / 1024) % 3 - 1));
  })});
  const auto width = [&](int ranks) {
    const PredictedPoint q = out_of_place(predict(m, ranks, ranks, {16u << 20})).points[0];
    return q.hi_us / q.lo_us;
  };
  EXPECT_GT(width(64), width(8));
  EXPECT_GE(width(8), width(4));
}

TEST(Model, FlagsWhatTheFitCannotKnow) {
  const Model single = fit_model({sweep({2, 4}, ring, 0)});  // one node, two counts
  const Prediction p = out_of_place(predict(single, 128, 16, {}));
  std::string flags;
  for (const auto& f : p.flags) flags += f + "\n";
  EXPECT_NE(flags.find("no multi-node measurement"), std::string::npos) << flags;
  EXPECT_NE(flags.find("beyond the model's validity"), std::string::npos) << flags;
  EXPECT_NE(flags.find("two rank counts"), std::string::npos) << flags;
  const Model eight = fit_model({sweep({16, 32}, ring, 8)});
  const Prediction q = out_of_place(predict(eight, 64, 16, {}));
  ASSERT_EQ(q.flags.size(), 2u);
  EXPECT_NE(q.flags[0].find("4 ranks per node not measured: fitted at 8"), std::string::npos) << q.flags[0];
}

// Issue 53 item 3: a constant family (cost independent of n) carries no
// scaling: beyond 2x its largest count its predictions are unbounded.
TEST(Model, AConstantFamilyIsNotExtrapolatedFar) {
  const auto flat = [](int, double s) { return 30.0 + s / 1000.0; };
  const Model m = fit_model({sweep({2, 3, 4}, flat)});
  ASSERT_FALSE(m.series.empty());
  ASSERT_EQ(m.series[0].family, ModelFamily::constant);
  const Prediction near = out_of_place(predict(m, 8, 8, {}));
  for (const PredictedPoint& q : near.points) EXPECT_FALSE(q.unbounded) << q.bytes;
  const Prediction far = out_of_place(predict(m, 1024, 128, {}));
  ASSERT_FALSE(far.points.empty());
  for (const PredictedPoint& q : far.points) EXPECT_TRUE(q.unbounded) << q.bytes;
  std::string flags;
  for (const auto& f : far.flags) flags += f + "\n";
  EXPECT_NE(flags.find("family constant (its cost does not grow with the rank count): not extrapolated beyond 2x"),
            std::string::npos)
      << flags;
  // A ring fit, as far, stays bounded by the family rule (its interval decides).
  const Model r = fit_model({sweep({2, 3, 4}, ring)});
  for (const auto& f : out_of_place(predict(r, 1024, 128, {})).flags)
    EXPECT_EQ(f.find("family constant"), std::string::npos) << f;
}

// The UsageError f throws, or "no error".
std::string message(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

// The model is of one group on its own, of one kind of MPI call.
TEST(Model, LeavesOutGroupsSideBySideAndRefusesMixedMpiCalls) {
  const Model alone = fit_model({sweep({2, 3, 4}, ring)});
  ResultSet with_split = sweep({2, 3, 4}, ring);
  ResultSet split = sweep({2, 3, 4}, [](int n, double s) { return 5 * ring(n, s); });  // shared links: slower
  for (ImportedPoint& p : split.points) p.groups = 2;
  with_split.points.insert(with_split.points.end(), split.points.begin(), split.points.end());
  const Model m = fit_model({with_split});
  ASSERT_EQ(m.series.size(), alone.series.size());
  const Prediction a = out_of_place(predict(alone, 16, 16, {})), b = out_of_place(predict(m, 16, 16, {}));
  ASSERT_EQ(a.points.size(), b.points.size());
  for (std::size_t i = 0; i < a.points.size(); ++i) EXPECT_DOUBLE_EQ(a.points[i].time_us, b.points[i].time_us);
  bool noted = false;
  for (const std::string& n : m.notes) noted |= n.find("groups side by side (--split) left out") != std::string::npos;
  EXPECT_TRUE(noted);

  ResultSet blocking = sweep({2, 3}, ring), nonblocking = sweep({4}, ring);
  for (ImportedPoint& p : blocking.points) p.mpi_calls = "blocking";
  for (ImportedPoint& p : nonblocking.points) p.mpi_calls = "nonblocking";
  EXPECT_NE(message([&] {
              fit_model({blocking, nonblocking});
            }).find("mix MPI's blocking and nonblocking calls"),
            std::string::npos);
}

TEST(Model, BadInputIsOneLine) {
  EXPECT_NE(message([] { fit_model({sweep({4}, ring)}); }).find("two or more rank counts"), std::string::npos);
  EXPECT_NE(message([] {
              fit_model({sweep({2, 3}, ring, 1, "mpi"), sweep({4}, ring, 1, "nccl")});
            }).find("mix backends (mpi, nccl)"),
            std::string::npos);
  ResultSet mixed = sweep({2, 3}, ring);
  mixed.note_env("config.backend", "nccl");
  EXPECT_NE(message([&] { fit_model({mixed}); }).find("mix backends"), std::string::npos);
  EXPECT_NE(message([] { model_from_json("{}", "m.json"); }).find("m.json: not a ccbench model file"),
            std::string::npos);
  // A "type" that is not a string (the fuzzer's find: an uncaught exception ended the process).
  EXPECT_NE(message([] { model_from_json(R"({"type": 5})", "m.json"); }).find("m.json: not a ccbench model file"),
            std::string::npos);
  const std::string good = model_to_json(fit_model({sweep({2, 3}, ring)}));
  std::string negative = good;
  negative.replace(negative.find("\"time_us\": ") + 11, 1, "-");
  EXPECT_NE(message([&] { model_from_json(negative, "m.json"); }).find("out of range"), std::string::npos);
  std::string truncated = good.substr(0, good.size() / 2);
  EXPECT_NE(message([&] { model_from_json(truncated, "m.json"); }).find("m.json:"), std::string::npos);
}

// A number that does not fit its field is a malformed file, not a cast
// (the fuzzer found "bytes": 8.9e121; under UBSan a cast aborts).
TEST(Model, FileNumbersThatDoNotFitAreMalformed) {
  const std::string good = model_to_json(fit_model({sweep({2, 3}, ring)}));
  const auto with = [&](const std::string& field, const std::string& value) {
    std::string text = good;
    const std::size_t at = text.find("\"" + field + "\": ");
    EXPECT_NE(at, std::string::npos) << field;
    const std::size_t from = at + field.size() + 4;
    const std::size_t end = text[from] == '[' ? text.find(']', from) + 1 : text.find_first_of(",\n}", from);
    text.replace(from, end - from, value);
    return text;
  };
  for (const auto& bad : {std::pair{"bytes", "8.88889e+121"},
                          {"bytes", "-1"},
                          {"ranks", "2.5"},
                          {"ranks", "1e300"},
                          {"ranks_per_node", "-3e9"},
                          {"in_place", "\"0\""}}) {
    const std::string m = message([&] { model_from_json(with(bad.first, bad.second), "m.json"); });
    EXPECT_NE(m.find("m.json: malformed model file"), std::string::npos)
        << bad.first << " = " << bad.second << ": " << m;
  }
  const std::string wide = with("counts", "[2, 1e20]");
  EXPECT_NE(message([&] { model_from_json(wide, "m.json"); }).find("1e+20 is not a whole number in range"),
            std::string::npos);
  // A whole number written as a float is still that number.
  const Model m = model_from_json(with("ranks_per_node", "0.0"), "m.json");
  EXPECT_EQ(m.series.at(0).ranks_per_node, 0);
}

// NCCL's algorithm per point (--nccl-algorithms): a fit across a switch is
// named in the notes, and a checked point that ran another algorithm than the
// fit's largest count is marked.
TEST(Model, NcclAlgorithmSwitchesAreNamed) {
  ResultSet set = sweep({2, 3, 4}, ring, 1, "nccl");
  for (ImportedPoint& p : set.points) p.algorithm = p.ranks == 4 && p.bytes >= (1u << 20) ? "TREE" : "RING";
  const Model m = fit_model({set});
  ASSERT_EQ(m.notes.size(), 2u);  // one per series (out-of-place, in-place)
  EXPECT_NE(m.notes[0].find("NCCL chose different algorithms at different rank counts (1048576 B: RING at 2, 3 ranks; "
                            "TREE at 4 ranks; 3 more sizes)"),
            std::string::npos)
      << m.notes[0];
  const ModelSeries& s = m.series.at(0);
  EXPECT_EQ(algorithm_switch(s, 1u << 20, "RING"), "TREE at 4 ranks in the fit, RING here");
  EXPECT_EQ(algorithm_switch(s, 1u << 20, "TREE"), "");
  EXPECT_EQ(algorithm_switch(s, 1024, "RING"), "");
  EXPECT_EQ(algorithm_switch(s, 1024, ""), "");          // not recorded at the checked point
  EXPECT_EQ(algorithm_switch(s, 3u << 20, "TREE"), "");  // a size the fit did not measure
  const Model back = model_from_json(model_to_json(m), "m.json");
  EXPECT_EQ(algorithm_switch(back.series.at(0), 1u << 20, "RING"), "TREE at 4 ranks in the fit, RING here");
  std::string hostile = model_to_json(m);
  hostile.replace(hostile.find("\"TREE\""), 6, "\"\\u001b[2J\"");
  EXPECT_NE(message([&] { model_from_json(hostile, "m.json"); }).find("algorithm is not NCCL algorithm names"),
            std::string::npos);
  // One algorithm everywhere, or none recorded: no note.
  for (ImportedPoint& p : set.points) p.algorithm = "RING";
  EXPECT_TRUE(fit_model({set}).notes.empty());
  EXPECT_TRUE(fit_model({sweep({2, 3, 4}, ring, 1, "nccl")}).notes.empty());
}

TEST(Model, FileRoundTripPredictsTheSame) {
  const Model m = fit_model({sweep({2, 3, 4}, ring)});
  const Model back = model_from_json(model_to_json(m), "m.json");
  const auto a = predict(m, 24, 24, {1u << 20, 3u << 20});
  const auto b = predict(back, 24, 24, {1u << 20, 3u << 20});
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t k = 0; k < a[i].points.size(); ++k) {
      EXPECT_DOUBLE_EQ(a[i].points[k].time_us, b[i].points[k].time_us);
      EXPECT_DOUBLE_EQ(a[i].points[k].hi_us, b[i].points[k].hi_us);
    }
}

TEST(Model, ProjectionIsMarkedPredicted) {
  std::string why;
  const auto p = project_set(sweep({2, 3, 4}, ring), 64, 8, &why);
  ASSERT_TRUE(p) << why;
  EXPECT_EQ(p->set.label, "synthetic (predicted 64x8)");
  EXPECT_NE(p->set.predicted_from.find("family ring"), std::string::npos);
  for (const ImportedPoint& q : p->set.points) {
    EXPECT_EQ(q.ranks, 64);
    EXPECT_LE(q.time_lo_us, q.time_us);
  }
  EXPECT_FALSE(project_set(sweep({4}, ring), 64, 8, &why));
  EXPECT_NE(why.find("two or more rank counts"), std::string::npos);
  const auto t = scaled_time(p->model, "all_reduce", 64, 8, 256e6);
  ASSERT_TRUE(t);
  EXPECT_TRUE(t->extrapolated);  // 64 ranks > 8x the largest measured count (4)
}

TEST(StepCostCurve, FloorBelowProportionalAbove) {
  StepCost c(1);
  for (double x = 10; x <= 20; x += 1) c.add(x, std::log(5 + std::exp2(x) / 1000), 0);
  EXPECT_NEAR(c.eval(2), c.eval(10), 1e-12);
  EXPECT_NEAR(c.eval(30) - c.eval(20), 10 * std::log(2.0), 1e-9);
  EXPECT_TRUE(c.inside(15));
  EXPECT_FALSE(c.inside(25));
  EXPECT_TRUE(std::isnan(c.eval(15, 0)));  // nothing left without group 0
}

TEST(Decision, BreakEvenAndCostsFollowTheFormulas) {
  CostProfile own;
  own.kind = "bare_metal";
  own.capital_cost = 1.2e6, own.amortisation_years = 4, own.yearly_operating_cost = 1e5, own.utilisation = 0.7,
  own.gpus = 64;
  own.per_gpu_hour = (own.capital_cost / 4 + own.yearly_operating_cost) / (64 * 8760.0 * 0.7);
  CostProfile rent;
  rent.kind = "cloud";
  rent.per_gpu_hour = 4;
  rent.transfer_per_tb = 90;
  Workload w;
  w.gpus = 64, w.parameters = 1e9, w.dtype_bytes = 2, w.compute_s = 1;
  w.dataset_tb = 100, w.transfer_gbit_s = 80;
  StepAtScale a, b;
  a.label = "owned", a.cost = &own, a.comm_s = a.comm_lo_s = a.comm_hi_s = 0.5;
  b.label = "rented", b.cost = &rent, b.comm_s = b.comm_lo_s = b.comm_hi_s = 1.0;
  const Decision d = decide(w, {a, b}, 8, true);
  EXPECT_DOUBLE_EQ(d.sets[0].step_s, 1.5);
  EXPECT_NEAR(d.sets[1].unit_cost, 1000 * 2.0 * 64 * 4 / 3600, 1e-9);
  ASSERT_TRUE(d.break_even);
  const double yearly = 1.2e6 / 4 + 1e5, speed = 2.0 / 1.5;
  EXPECT_NEAR(d.break_even->utilisation, yearly / (64 * 8760.0 * 4 * speed), 1e-12);
  EXPECT_NEAR(d.break_even->months, 1.2e6 / (4 * 64 * 730.0 * 0.7 * speed - 1e5 / 12), 1e-9);
  // At the break-even utilisation, owning costs as much per step as renting.
  for (std::size_t i = 0; i < d.break_even->utilisations.size(); ++i)
    EXPECT_EQ(d.break_even->own_over_rent[i][1]<1, d.break_even->utilisations[i]> d.break_even->utilisation);
  ASSERT_TRUE(d.data);
  EXPECT_NEAR(d.data->seconds, 100 * 8e12 / 80e9, 1e-6);
  ASSERT_EQ(d.data->cost.size(), 1u);
  EXPECT_DOUBLE_EQ(d.data->cost[0].second, 9000);
  // A cloud that is cheap enough never lets the purchase pay back.
  rent.per_gpu_hour = 0.1;
  EXPECT_TRUE(std::isinf(decide(w, {a, b}, 8, true).break_even->months));
}

// A winner needs an interval that excludes equal and is not wider than 10x.
TEST(Decision, AnUninformativeIntervalCannotTell) {
  EXPECT_EQ(call_ratio("a", "b", 2, 1.5, 3).kind, RatioCall::winner);
  EXPECT_EQ(call_ratio("a", "b", 2, 2, 2).kind, RatioCall::winner);                    // measured, no interval width
  EXPECT_EQ(call_ratio("a", "b", 5.82, 3.54e-58, 9.56e58).kind, RatioCall::too_wide);  // the report's case
  EXPECT_EQ(call_ratio("a", "b", 1.3, 0.8, 2.0).kind, RatioCall::contains_equal);
  EXPECT_EQ(call_ratio("a", "b", 1.5, 0.5, 8).kind, RatioCall::too_wide);  // 16x wide
  EXPECT_EQ(call_ratio("a", "b", 1.005, 1.001, 1.01).kind, RatioCall::on_par);
  EXPECT_EQ(call_ratio("a", "b", 1.0, 1.0, 1.0).kind, RatioCall::on_par);  // identical sets: never "faster by 1.00x"
  EXPECT_EQ(call_ratio("a", "b", kNaN, 1, 2).kind, RatioCall::none);
}

Decision two_sets(double own_comm, double own_lo, double own_hi, double rent_comm, double rent_lo, double rent_hi,
                  double cloud_price, CostProfile& own, CostProfile& rent) {
  own.kind = "bare_metal";
  own.capital_cost = 1.2e6, own.amortisation_years = 4, own.yearly_operating_cost = 1e5, own.utilisation = 0.7,
  own.gpus = 64;
  own.per_gpu_hour = (own.capital_cost / 4 + own.yearly_operating_cost) / (64 * 8760.0 * 0.7);
  rent.kind = "cloud";
  rent.per_gpu_hour = cloud_price;
  Workload w;
  w.gpus = 64, w.parameters = 1e9, w.dtype_bytes = 2, w.compute_s = 0;
  StepAtScale a, b;
  a.label = "owned", a.cost = &own, a.comm_s = own_comm, a.comm_lo_s = own_lo, a.comm_hi_s = own_hi, a.predicted = true;
  b.label = "rented", b.cost = &rent, b.comm_s = rent_comm, b.comm_lo_s = rent_lo, b.comm_hi_s = rent_hi,
  b.predicted = true;
  return decide(w, {a, b}, 8, true);
}

TEST(Decision, SpeedAndCostAreCalledOnlyOnTheEvidence) {
  CostProfile own, rent;
  const Decision clear = two_sets(1, 0.9, 1.1, 2, 1.8, 2.2, 4, own, rent);
  EXPECT_EQ(clear.faster.kind, RatioCall::winner);
  EXPECT_EQ(clear.faster.lower, "owned");
  EXPECT_NEAR(clear.faster.lo, 1.8 / 1.1, 1e-12);
  EXPECT_NEAR(clear.faster.hi, 2.2 / 0.9, 1e-12);
  // The predicted times of the report: 5.82x apart, intervals from 1e-58 to 1e58.
  const Decision wide = two_sets(1, 1e-30, 1e30, 5.82, 5.82e-28, 5.82e28, 4, own, rent);
  EXPECT_EQ(wide.faster.kind, RatioCall::too_wide);
  EXPECT_EQ(wide.cheaper.kind, RatioCall::too_wide);
  const Section s = summary_section(wide);
  ASSERT_GE(s.paragraphs.size(), 3u);
  EXPECT_NE(s.paragraphs[0].find("cannot tell which is faster"), std::string::npos) << s.paragraphs[0];
  EXPECT_EQ(s.paragraphs[0].find("is faster by"), std::string::npos);
  EXPECT_NE(s.paragraphs[1].find("cannot tell which is cheaper"), std::string::npos) << s.paragraphs[1];
  EXPECT_NE(s.paragraphs[2].find("Cannot tell whether owning"), std::string::npos) << s.paragraphs[2];
}

// A break-even beyond 100% utilisation reads "never", not "at 178%".
TEST(Decision, BreakEvenOutsideZeroToHundredPercentReadsNever) {
  CostProfile own, rent;
  const Decision d = two_sets(1, 1, 1, 1, 1, 1, 0.5, own, rent);  // a cheap cloud, the same speed
  ASSERT_TRUE(d.break_even);
  EXPECT_GT(d.break_even->utilisation, 1);
  const Section s = summary_section(d);
  bool never = false;
  for (const std::string& p : s.paragraphs) {
    never = never || p.find("never costs less per step than renting") != std::string::npos;
    EXPECT_EQ(p.find("costs the same per step as renting"), std::string::npos) << p;
  }
  EXPECT_TRUE(never);
  const Decision in_range = two_sets(1, 1, 1, 2, 2, 2, 4, own, rent);
  EXPECT_LE(in_range.break_even->utilisation_hi, 1);
  bool stated = false;
  for (const std::string& p : summary_section(in_range).paragraphs)
    stated = stated || p.find("costs the same per step as renting ('rented') at") != std::string::npos;
  EXPECT_TRUE(stated);
}

}  // namespace
}  // namespace ccb
