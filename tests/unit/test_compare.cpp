// Alignment, statistics and the cost model, on result sets built in code.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "common/errors.hpp"
#include "analysis/compare/comparison.hpp"
#include "analysis/compare/cost.hpp"
#include "analysis/decide/decision.hpp"
#include "analysis/compare/mann_whitney.hpp"
#include "analysis/compare/peer_time.hpp"
#include "analysis/compare/reference.hpp"

namespace ccb {
namespace {

ImportedPoint point(std::uint64_t bytes, double time_us, double busbw, const std::string& path = "shm",
                    int in_place = 0) {
  ImportedPoint p;
  p.collective = "all_reduce";
  p.dtype = "float";
  p.op = "sum";
  p.path = path;
  p.memory = "host";
  p.ranks = 4;
  p.nodes = 1;
  p.in_place = in_place;
  p.bytes = bytes;
  p.time_us = time_us;
  p.busbw_gbps = busbw;
  return p;
}

ResultSet set_of(const std::string& label, std::vector<ImportedPoint> pts) {
  ResultSet s;
  s.label = label;
  s.points = std::move(pts);
  return s;
}

TEST(MannWhitney, ExactForSmallSamplesWithoutTies) {
  const std::vector<double> a{1, 2, 3}, b{4, 5, 6};
  const auto r = mann_whitney(a, b);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->exact);
  EXPECT_DOUBLE_EQ(r->u, 0);
  EXPECT_NEAR(r->p, 0.1, 1e-12);  // 2 / C(6,3)
  std::vector<double> x, y;
  for (int i = 0; i < 20; ++i) x.push_back(i), y.push_back(100 + i);
  EXPECT_NEAR(mann_whitney(x, y)->p, 1.4508889103849688e-11, 1e-20);  // 2 / C(40,20)
}

TEST(MannWhitney, NormalApproximationWithTies) {
  const std::vector<double> a{1, 2, 3, 4, 5, 5}, b{5, 6, 7, 8, 9, 10};
  const auto r = mann_whitney(a, b);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->exact);
  EXPECT_DOUBLE_EQ(r->u, 1);
  EXPECT_NEAR(r->p, 0.007795826617354629, 1e-12);
}

TEST(MannWhitney, SameDistributionIsNotSignificantAndShiftIs) {
  std::vector<double> a, b, shifted;
  for (int i = 0; i < 40; ++i) {
    a.push_back(10 + (i * 7) % 13);
    b.push_back(10 + (i * 5) % 13);
    shifted.push_back(13 + (i * 5) % 13);
  }
  EXPECT_GT(mann_whitney(a, b)->p, 0.5);
  EXPECT_LT(mann_whitney(a, shifted)->p, 0.05);
  EXPECT_FALSE(mann_whitney(std::vector<double>{1}, b));
  const std::vector<double> same(10, 3.0);
  EXPECT_DOUBLE_EQ(mann_whitney(same, same)->p, 1);
}

TEST(Comparison, AlignsRatiosGeomeanAndOneSidedPoints) {
  const ResultSet base = set_of("base", {point(1024, 10, 2), point(2048, 10, 4), point(4096, 10, 8)});
  const ResultSet other = set_of("other", {point(1024, 5, 4), point(2048, 20, 2), point(8192, 1, 1)});
  const Comparison c = compare_sets({base, other}, {});
  ASSERT_EQ(c.pairs.size(), 1u);
  const PairComparison& pc = c.pairs[0];
  EXPECT_EQ(pc.aligned, 2u);
  ASSERT_EQ(pc.series.size(), 1u);
  const SeriesComparison& sc = pc.series[0];
  EXPECT_EQ(sc.only_base, std::vector<std::uint64_t>{4096});
  EXPECT_EQ(sc.only_other, std::vector<std::uint64_t>{8192});
  EXPECT_DOUBLE_EQ(sc.points[0].busbw_ratio, 2);
  EXPECT_DOUBLE_EQ(sc.points[1].busbw_ratio, 0.5);
  EXPECT_NEAR(sc.geomean_busbw_ratio, 1, 1e-12);
  EXPECT_NEAR(sc.geomean_time_ratio, 1, 1e-12);
  EXPECT_EQ(pc.tested, 0u);  // no samples: no test
  EXPECT_TRUE(sc.points[0].significant());
}

// Issue 67: the busbw ratio came from the printed two-decimal busbw: 0.000x
// at 128 B beside a time ratio of 1.968x, 11.000x beside 0.112x at 1 KiB. It
// comes from the times; the columns only where a side has none.
TEST(Comparison, TheBusbwRatioComesFromTheTimesNotTheRoundedColumns) {
  const ResultSet base = set_of("b", {point(128, 10.00, 0.01), point(1024, 91.13, 0.01)});
  const ResultSet other = set_of("o", {point(128, 19.68, 0.00), point(1024, 10.21, 0.11)});
  const Comparison c = compare_sets({base, other}, {});
  const auto& pts = c.pairs[0].series[0].points;
  ASSERT_EQ(pts.size(), 2u);
  EXPECT_NEAR(pts[0].busbw_ratio, 1 / 1.968, 1e-9);
  EXPECT_NEAR(pts[0].busbw_ratio * pts[0].time_ratio, 1, 1e-12);
  EXPECT_NEAR(pts[1].busbw_ratio, 91.13 / 10.21, 1e-9);
  // Other rank counts (--ignore-key ranks): the factors' ratio, 2(n-1)/n at 8 over 4.
  ResultSet eight = other;
  for (ImportedPoint& p : eight.points) p.ranks = 8;
  ComparisonOptions o;
  o.ignored = kKeyRanks;
  const Comparison r = compare_sets({base, eight}, o);
  ASSERT_FALSE(r.pairs[0].series.empty());
  const AlignedPoint& a = r.pairs[0].series[0].points[0];
  EXPECT_NEAR(a.busbw_ratio * a.time_ratio, (2 * 7 / 8.0) / (2 * 3 / 4.0), 1e-12);
  // No time on a side: the columns.
  ResultSet no_time = other;
  for (ImportedPoint& p : no_time.points) p.time_us = kNaN, p.busbw_gbps = 0.05;
  EXPECT_NEAR(compare_sets({base, no_time}, {}).pairs[0].series[0].points[0].busbw_ratio, 5, 1e-9);
}

// Issue 67: the verdicts the report renders, on the cases users saw.
TEST(SeriesVerdicts, PredictionsNoiseAndCrossoversAreCalledByOneRule) {
  const auto curve = [](const std::string& label, double factor) {
    std::vector<ImportedPoint> pts;
    for (std::uint64_t b = 1024; b <= (1u << 20); b *= 4) pts.push_back(point(b, factor * (5 + b / 1e3), 1));
    return set_of(label, pts);
  };
  const auto verdict = [](const ResultSet& a, const ResultSet& b) {
    const Comparison c = compare_sets({a, b}, {});
    return c.pairs[0].series[0].verdict;
  };
  // A prediction whose interval the data cannot bound: never a winner ("cannot
  // tell", then "faster in every series by 1.97x" was printed).
  ResultSet predicted = curve("bare (predicted 1024x128)", 0.5);
  predicted.predicted_from = "model";
  for (ImportedPoint& p : predicted.points) p.time_lo_us = p.time_us * 0.9, p.time_hi_us = INFINITY;
  SeriesVerdict v = verdict(curve("cloud", 1), predicted);
  EXPECT_EQ(v.kind, SeriesVerdict::cannot_tell);
  EXPECT_NE(v.reason.find("cannot bound"), std::string::npos) << v.reason;
  for (ImportedPoint& p : predicted.points) p.time_hi_us = p.time_us * 1.1;  // bounded: called, with its interval
  v = verdict(curve("cloud", 1), predicted);
  EXPECT_EQ(v.kind, SeriesVerdict::faster);
  EXPECT_TRUE(std::isfinite(v.call.lo) && v.call.lo > 1.5 && v.call.hi < 2.5) << v.call.lo << " " << v.call.hi;
  // 7x apart on a machine busy at load 3 on 2 CPUs (2.5x at most): called, naming it; 1.3x: not.
  ResultSet tcp = curve("tcp", 7);
  tcp.oversubscribed = true;
  tcp.noise = {"oversubscribed: 3 ranks on 2 CPUs of vm", "busy before the run: load average 3.00 on 2 CPUs of vm"};
  v = verdict(curve("shm", 1), tcp);
  EXPECT_EQ(v.kind, SeriesVerdict::faster);
  EXPECT_NE(v.noise.find("exceeds the 2.5x"), std::string::npos) << v.noise;
  ResultSet near = curve("tcp", 1.3);
  near.oversubscribed = true, near.noise = tcp.noise;
  v = verdict(curve("shm", 1), near);
  EXPECT_EQ(v.kind, SeriesVerdict::cannot_tell);
  EXPECT_TRUE(v.noise_explains);
  // Faster at small sizes, slower at large ones: mixed, never "faster".
  ResultSet crossing = curve("x", 1);
  for (ImportedPoint& p : crossing.points) p.time_us *= p.bytes < 65536 ? 0.5 : 1.6;
  v = verdict(curve("y", 1), crossing);
  EXPECT_EQ(v.kind, SeriesVerdict::mixed);
  EXPECT_NE(v.reason.find("'y' ahead above"), std::string::npos) << v.reason;
}

TEST(Comparison, CrossoversIgnoreTies) {
  const ResultSet base = set_of("b", {point(8, 1, 10), point(16, 1, 10), point(32, 1, 10), point(64, 1, 10)});
  const ResultSet other = set_of(
      "o", {point(8, 10 / 9.0, 9), point(16, 10 / 10.1, 10.1), point(32, 10 / 11.0, 11), point(64, 10 / 12.0, 12)});
  const Comparison c = compare_sets({base, other}, {});
  const auto& x = c.pairs[0].series[0].crossovers;
  ASSERT_EQ(x.size(), 1u);
  EXPECT_EQ(x[0].below_bytes, 8u);
  EXPECT_EQ(x[0].above_bytes, 32u);
  EXPECT_TRUE(x[0].other_wins_above);
}

TEST(Comparison, CurveFactsHalfPeakIsInterpolatedInLogSize) {
  Series s;
  for (auto [b, bw] : {std::pair{512.0, 5.0}, {1024.0, 10.0}, {2048.0, 30.0}, {4096.0, 40.0}}) {
    SeriesPoint p;
    p.bytes = static_cast<std::uint64_t>(b);
    p.busbw_gbps = bw;
    p.time_us = b / 1000;
    s.points.push_back(p);
  }
  const CurveFacts f = curve_facts(s);
  EXPECT_DOUBLE_EQ(f.peak_busbw_gbps, 40);
  EXPECT_EQ(f.peak_bytes, 4096u);
  EXPECT_EQ(f.small_bytes, 512u);
  EXPECT_NEAR(f.half_peak_bytes, 1448.1546878700494, 1e-9);
}

TEST(Comparison, RepeatedPointsMergeToMedianWithPooledSamples) {
  ImportedPoint a = point(1024, 10, 1), b = point(1024, 30, 3), d = point(1024, 20, 2);
  a.samples_us = {10, 11};
  b.samples_us = {30};
  const SeriesTable t = build_series(set_of("x", {a, b, d}), kKeyAll);
  ASSERT_EQ(t.series.size(), 1u);
  ASSERT_EQ(t.series[0].points.size(), 1u);
  const SeriesPoint& p = t.series[0].points[0];
  EXPECT_EQ(p.merged, 3u);
  EXPECT_DOUBLE_EQ(p.time_us, 20);
  EXPECT_DOUBLE_EQ(p.busbw_gbps, 2);
  EXPECT_EQ(p.samples().size(), 3u);
  EXPECT_EQ(t.merged_points, 2u);
}

TEST(Comparison, NothingLinesUpEvenWhenEveryFieldHasACommonValue) {
  // Each set has a shm and a tcp series, at other rank counts: every field
  // shares a value with the other set, no series matches on all of them.
  ImportedPoint a = point(1024, 1, 1, "shm"), b = point(1024, 1, 1, "tcp");
  ImportedPoint c = point(1024, 1, 1, "shm"), d = point(1024, 1, 1, "tcp");
  a.ranks = 2, b.ranks = 4, c.ranks = 4, d.ranks = 8;
  const Comparison r = compare_sets({set_of("x", {a, b}), set_of("y", {c, d})}, {});
  EXPECT_EQ(r.pairs[0].aligned, 0u);
  EXPECT_EQ(r.pairs[0].hint,
            "none, but no series matches on all of them together; leaving out one would line up: "
            "ranks (2 series), path (1 series)");
}

TEST(Comparison, DifferentPathsDoNotAlignUnlessIgnored) {
  const ResultSet shm = set_of("shm", {point(1024, 1, 1, "shm")});
  const ResultSet tcp = set_of("tcp", {point(1024, 2, 0.5, "tcp")});
  const Comparison strict = compare_sets({shm, tcp}, {});
  EXPECT_EQ(strict.pairs[0].aligned, 0u);
  EXPECT_EQ(strict.pairs[0].only_base.size(), 1u);
  EXPECT_EQ(strict.pairs[0].hint, "path (shm vs tcp)");
  ComparisonOptions o;
  o.ignored = kKeyPath;
  const Comparison relaxed = compare_sets({shm, tcp}, o);
  EXPECT_EQ(relaxed.pairs[0].aligned, 1u);
  EXPECT_DOUBLE_EQ(relaxed.pairs[0].series[0].points[0].time_ratio, 2);
}

TEST(Comparison, FieldsASetDoesNotRecordLeaveTheKey) {
  ResultSet other = set_of("osu", {point(1024, 2, 1)});
  other.points[0].dtype = Symbol();
  other.points[0].nodes = 0;
  const Comparison c = compare_sets({set_of("b", {point(1024, 1, 2)}), other}, {});
  EXPECT_EQ(c.pairs[0].fields, kKeyAll & ~kKeyDtype & ~kKeyNodes);
  EXPECT_EQ(c.pairs[0].aligned, 1u);
}

TEST(Comparison, SignificanceMarksOnlyWhereBothHaveSamples) {
  ImportedPoint a = point(1024, 10, 1), b = point(1024, 10.1, 1);
  for (int i = 0; i < 30; ++i) a.samples_us.push_back(10 + i % 7), b.samples_us.push_back(10 + (i * 3) % 7);
  ComparisonOptions o;
  const Comparison same = compare_sets({set_of("a", {a}), set_of("b", {b})}, o);
  EXPECT_EQ(same.pairs[0].tested, 1u);
  EXPECT_EQ(same.pairs[0].not_significant, 1u);
  for (double& v : b.samples_us) v += 5;
  const Comparison shifted = compare_sets({set_of("a", {a}), set_of("b", {b})}, o);
  EXPECT_EQ(shifted.pairs[0].not_significant, 0u);
}

// Next to OSU or IMB, a ccbench collective is compared on their figure (the
// average over ranks of each rank's mean), point-to-point tests are not, and
// nothing changes without an OSU or IMB set.
TEST(PeerTime, CcbenchTakesOsusDefinitionNextToOsu) {
  ImportedPoint ar = point(1024, 10.0, 2.0);  // the table's time: 10 us
  ar.rank_mean_avg_us = 8.0;                  // OSU's figure: 8 us
  ar.algbw_gbps = 1.0;
  ar.samples_us = {9, 10, 11};
  ImportedPoint pp = point(8, 1.0, 0.008);
  pp.collective = "pingpong";
  pp.rank_mean_avg_us = 0.6;
  ImportedPoint old = point(2048, 12.0, 3.0);  // a file without rank means
  ResultSet osu = set_of("osu", {point(1024, 8.1, 1.9)});
  osu.formats = {"OSU micro-benchmarks"};
  ResultSet ccb = set_of("ccbench", {ar, pp, old});
  ccb.formats = {"ccbench JSON Lines"};

  std::vector<ResultSet> alone{ccb, set_of("other", {point(1024, 9.0, 2.2)})};
  EXPECT_EQ(match_peer_time_definition(alone), "");
  EXPECT_DOUBLE_EQ(alone[0].points[0].time_us, 10.0);

  std::vector<ResultSet> sets{osu, ccb};
  EXPECT_EQ(match_peer_time_definition(sets),
            "Times of 'ccbench' (1 points) are the average over ranks of each rank's mean per-iteration time, the "
            "figure OSU and IMB print, instead of the table's time; per-iteration samples left out");
  const ImportedPoint& moved = sets[1].points[0];
  EXPECT_DOUBLE_EQ(moved.time_us, 8.0);
  EXPECT_DOUBLE_EQ(moved.busbw_gbps, 2.5);  // 2 GB/s x 10 / 8
  EXPECT_DOUBLE_EQ(moved.algbw_gbps, 1.25);
  EXPECT_TRUE(moved.samples_us.empty());
  EXPECT_DOUBLE_EQ(sets[1].points[1].time_us, 1.0);   // pingpong: a loop in every tool
  EXPECT_DOUBLE_EQ(sets[1].points[2].time_us, 12.0);  // no rank means recorded
  EXPECT_DOUBLE_EQ(sets[0].points[0].time_us, 8.1);   // OSU itself untouched
}

TEST(Reference, PublishedFiguresCarryTheirSource) {
  const auto figures = published_figures();
  ASSERT_GE(figures.size(), 4u);
  for (const auto& f : figures) {
    EXPECT_FALSE(f.source.empty());
    EXPECT_GT(f.busbw_gbps, 0);
  }
  const ResultSet s = published_set(figures[0]);
  EXPECT_EQ(s.label.rfind("published: ", 0), 0u);
  EXPECT_FALSE(s.published_source.empty());
  // time = bytes / (busbw / (2(n-1)/n))
  EXPECT_NEAR(s.points[0].time_us, 8589934592.0 / (478.9 / 1.75 * 1e3), 1e-6);
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

#if CCBENCH_HAVE_YAML
TEST(Cost, CloudAndBareMetalPrices) {
  const CostProfile cloud = load_cost_profile(
      write_temp("cloud.yaml", "kind: cloud\nname: p5\ncurrency: USD\nprice_per_node_hour: 98.32\ngpus_per_node: 8\n"));
  EXPECT_DOUBLE_EQ(cloud.per_gpu_hour, 12.29);
  const CostProfile metal = load_cost_profile(write_temp(
      "metal.yaml",
      "kind: bare_metal\ncurrency: EUR\ncapital_cost: 4000000\namortisation_years: 4\nyearly_operating_cost: 500000\n"
      "utilisation: 0.5\ngpus: 64\n"));
  EXPECT_NEAR(metal.per_gpu_hour, (1e6 + 5e5) / (64 * 8760 * 0.5), 1e-9);
  EXPECT_NEAR(cost_per_pb(cloud, 400), 12.29 * 1e6 / (3600 * 400), 1e-9);
}

TEST(Cost, ProfileErrorsNameFileLineAndKey) {
  const std::string typo = write_temp("typo.yaml", "kind: cloud\nprice_per_gpu_hr: 3\n");
  EXPECT_EQ(error_of([&] { load_cost_profile(typo); }).rfind(typo + ":2: price_per_gpu_hr: unknown key", 0), 0u);
  const std::string nan = write_temp("nan.yaml", "kind: cloud\nprice_per_gpu_hour: .nan\n");
  EXPECT_NE(error_of([&] { load_cost_profile(nan); }).find(":2: price_per_gpu_hour: nan is out of range"),
            std::string::npos);
  const std::string text = write_temp("text.yaml", "kind: cloud\nprice_per_gpu_hour: cheap\n");
  EXPECT_NE(error_of([&] { load_cost_profile(text); }).find(":2: price_per_gpu_hour: 'cheap' is not a number"),
            std::string::npos);
  const std::string kind = write_temp("kind.yaml", "kind: rented\n");
  EXPECT_NE(error_of([&] { load_cost_profile(kind); }).find(":1: kind: 'rented' is unknown"), std::string::npos);
  const std::string both =
      write_temp("both.yaml", "kind: cloud\nprice_per_gpu_hour: 1\nprice_per_node_hour: 8\ngpus_per_node: 8\n");
  EXPECT_NE(error_of([&] { load_cost_profile(both); }).find("give exactly one"), std::string::npos);
  const std::string broken = write_temp("broken.yaml", "kind: [cloud\n");
  EXPECT_NE(error_of([&] { load_cost_profile(broken); }).find("not valid YAML"), std::string::npos);
  EXPECT_NE(error_of([&] { load_cost_profile("/nonexistent.yaml"); }).find("cannot read"), std::string::npos);
  const std::string bad_dtype = write_temp("w.yaml", "parameters: 7e9\ngpus: 64\ndtype: float128\n");
  EXPECT_NE(error_of([&] { load_workload(bad_dtype); }).find(":3: dtype: 'float128' is not a dtype"),
            std::string::npos);
}

TEST(Cost, WorkloadInterpolatesTheMeasuredCurve) {
  const Workload w =
      load_workload(write_temp("w7b.yaml", "name: 1.5 KiB model\nparameters: 768\ndtype: bfloat16\ngpus: 8\n"));
  EXPECT_DOUBLE_EQ(w.bytes_per_step(), 1536);
  const SeriesTable t = build_series(set_of("x", {point(1024, 1, 10), point(2048, 1, 30)}), kKeyAll);
  const CostProfile cloud =
      load_cost_profile(write_temp("c.yaml", "kind: cloud\ncurrency: USD\nprice_per_gpu_hour: 3.6\n"));
  const auto e = estimate_workload(w, t, &cloud);
  ASSERT_TRUE(e);
  EXPECT_NEAR(e->busbw_gbps, 10 + (std::log2(1536.0) - 10) * 20, 1e-9);
  EXPECT_FALSE(e->extrapolated);
  const double time = 1536 / (e->busbw_gbps * 1e9 / 1.75);
  EXPECT_NEAR(e->time_per_step_s, time, 1e-15);
  EXPECT_NEAR(e->cost_per_1000_steps, 1000 * time * 8 * 3.6 / 3600, 1e-15);
  // 14 GB per step off a curve that ends at 2 KiB still rising (10 -> 30 GB/s): refused.
  const Workload big = load_workload(write_temp("big.yaml", "parameters: 7e9\ngpus: 8\n"));
  EXPECT_NE(estimate_workload(big, t, nullptr)->refused.find("no plateau"), std::string::npos);
}

// The Summary cannot contradict the tables under it: a winner that the
// aligned plateau of the workload's collective contradicts, or that no
// aligned series supports, becomes "cannot tell".
TEST(Decision, TheSummaryCannotContradictTheTables) {
  const auto sized = [](double busbw) {
    return std::vector<ImportedPoint>{point(1 << 20, 1, busbw), point(4 << 20, 1, busbw), point(16 << 20, 1, busbw)};
  };
  ComparisonOptions o;
  const Comparison c = compare_sets({set_of("bare", sized(8)), set_of("cloud", sized(2))}, o);
  RatioCall right = call_ratio("bare", "cloud", 4, 3, 5);
  check_against_tables(right, c, "all_reduce");
  EXPECT_EQ(right.kind, RatioCall::winner);
  RatioCall wrong = call_ratio("cloud", "bare", 12.29, 11, 13);  // the report's Summary against its own table
  check_against_tables(wrong, c, "all_reduce");
  EXPECT_EQ(wrong.kind, RatioCall::not_aligned);
  EXPECT_NE(wrong.why.find("the plateau of all_reduce"), std::string::npos) << wrong.why;
  // Nothing lines up (4 ranks against 8 ranks): no winner either.
  std::vector<ImportedPoint> eight = sized(2);
  for (ImportedPoint& p : eight) p.ranks = 8;
  const Comparison apart = compare_sets({set_of("bare", sized(8)), set_of("cloud", eight)}, o);
  RatioCall lonely = call_ratio("bare", "cloud", 4, 3, 5);
  check_against_tables(lonely, apart, "all_reduce");
  EXPECT_EQ(lonely.kind, RatioCall::not_aligned);
  EXPECT_NE(lonely.why.find("no all_reduce series lines up"), std::string::npos) << lonely.why;
}

// Beyond the largest measured size: the plateau of the largest sizes when it
// is flat (one bad last point cannot move it), refused when it is not or when
// the size is more than 4096x beyond.
TEST(Cost, WorkloadBeyondTheCurveUsesItsPlateauOrIsRefused) {
  const auto curve = [](double last) {
    return build_series(set_of("x", {point(1 << 20, 1, 0.70), point(4 << 20, 1, 0.79), point(16 << 20, 1, 0.75),
                                     point(64 << 20, 1, last)}),
                        kKeyAll);
  };
  const Workload w = load_workload(write_temp("w1g.yaml", "parameters: 536870912\ndtype: float\ngpus: 2\n"));  // 2 GiB
  const SeriesTable flat = curve(0.77);
  const auto e = estimate_workload(w, flat, nullptr);
  ASSERT_TRUE(e && e->refused.empty()) << e->refused;
  EXPECT_TRUE(e->extrapolated);
  EXPECT_DOUBLE_EQ(e->busbw_gbps, 0.77);  // median of 4 MiB, 16 MiB, 64 MiB (1 MiB is 64x below the largest)
  EXPECT_DOUBLE_EQ(e->busbw_lo_gbps, 0.75);
  EXPECT_DOUBLE_EQ(e->busbw_hi_gbps, 0.79);
  EXPECT_LT(e->time_lo_s, e->time_per_step_s);
  EXPECT_GT(e->time_hi_s, e->time_per_step_s);
  EXPECT_NE(e->basis.find("plateau of 4 MiB-64 MiB"), std::string::npos) << e->basis;
  // The outlier of the report (0.03 GB/s at 64 MiB where 16 MiB had 0.79): no plateau, no estimate.
  const SeriesTable outlier = curve(0.03);
  EXPECT_NE(estimate_workload(w, outlier, nullptr)->refused.find("spreads 26.3x"), std::string::npos)
      << estimate_workload(w, outlier, nullptr)->refused;
  // 400 GB off a curve that ends at 64 MiB: 5960x beyond, refused.
  const Workload huge = load_workload(write_temp("w400.yaml", "parameters: 2e11\ndtype: bfloat16\ngpus: 2\n"));
  EXPECT_NE(estimate_workload(huge, flat, nullptr)->refused.find("at most 4096x"), std::string::npos);
}
#else
TEST(Cost, WithoutYamlCppTheErrorSaysSo) {
  const std::string path = write_temp("cloud.yaml", "kind: cloud\nprice_per_gpu_hour: 2\n");
  EXPECT_NE(error_of([&] { load_cost_profile(path); }).find("built without it"), std::string::npos);
  EXPECT_NE(error_of([&] { load_workload(path); }).find("built without it"), std::string::npos);
}
#endif

}  // namespace
}  // namespace ccb
