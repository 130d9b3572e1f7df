// The libraries' algorithm facts (analysis/model/library_rules) and the scale
// model's use of them: one fit per forced algorithm, the library's own choice
// predicted by its fixed rules from those fits.
#include <gtest/gtest.h>

#include <cmath>

#include "common/errors.hpp"
#include "results/import/importer.hpp"
#include "analysis/model/comm_model.hpp"
#include "analysis/model/library_rules.hpp"
#include "tests/unit/synthetic_runs.hpp"

namespace ccb {
namespace library_rules_test {  // named: the unit tests are one unity build

const std::string kOmpi = "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4";

TEST(LibraryRules, OpenMpi41AllreduceChoicesAreItsFixedRules) {
  struct Case {
    int ranks;
    std::uint64_t bytes;
    const char* forced;
  };
  // Thresholds of coll_tuned_decision_fixed.c (4.1.x), commutative ops, each side of a switch.
  for (const Case& c :
       {Case{2, 4, "ompi:4"}, Case{2, 4095, "ompi:3"}, Case{3, 4096, "ompi:4"}, Case{3, 100000, "ompi:5"},
        Case{3, 262144, "ompi:6"}, Case{4, 8191, "ompi:3"}, Case{6, 8192, "ompi:6"}, Case{8, 4 << 20, "ompi:6"},
        Case{100, 262143, "ompi:3"}, Case{200, 1000, "ompi:2"}, Case{3000, 3000, "ompi:5"}, Case{5000, 20000, "ompi:3"},
        Case{5000, 1 << 20, "ompi:6"}}) {
    const auto choice = library_choice(RuleQuery{kOmpi, "blocking", "all_reduce", c.ranks, c.bytes});
    ASSERT_TRUE(choice) << c.ranks << " " << c.bytes;
    EXPECT_EQ(choice->forced, c.forced) << c.ranks << " ranks, " << c.bytes << " B";
  }
  EXPECT_EQ(library_choice(RuleQuery{kOmpi, "blocking", "all_reduce", 6, 4 << 20})->why,
            "Open MPI 4.1 fixed rules: 4 <= ranks < 8, >= 8192 B");
  EXPECT_EQ(library_choice(RuleQuery{kOmpi, "", "all_reduce", 3, 100000})->why,
            "Open MPI 4.1 fixed rules: 1 <= ranks < 4, 65536 to 262143 B");
  // Not tabulated: another version, another collective, another library.
  EXPECT_FALSE(library_choice(RuleQuery{"Open MPI v5.0.3", "blocking", "all_reduce", 8, 1 << 20}));
  EXPECT_FALSE(library_choice(RuleQuery{kOmpi, "blocking", "broadcast", 8, 1 << 20}));
  EXPECT_FALSE(library_choice(RuleQuery{"MPICH 4.1", "nonblocking", "all_reduce", 8, 1 << 20}));
  EXPECT_EQ(algorithm_label("ompi:6", "all_reduce"), "rabenseifner (ompi:6)");
  EXPECT_EQ(algorithm_label("ompi:2", "broadcast"), "Open MPI algorithm 2");
  EXPECT_EQ(algorithm_family("ompi:3", "all_reduce"), ModelFamily::recursive_doubling);
  EXPECT_FALSE(algorithm_family("nccl:Ring", "all_reduce"));
}

// Nonblocking calls are libnbc's (nbc_iallreduce.c, read from Open MPI's
// source; 4.1.4's curves here follow it): binomial below 4
// ranks, below 64 KiB or in place; rabenseifner while the count holds a power
// of two's elements; ring below that. The measured 2-4 host iallreduce
// curves of docs/workload.md follow it (2 and 3 hosts at binomial's 2 and 4
// whole-buffer levels, 4 hosts out of place at rabenseifner's 1.5 s).
TEST(LibraryRules, OpenMpi41NonblockingAllreduceChoicesAreLibnbcs) {
  struct Case {
    int ranks;
    std::uint64_t bytes, count;
    bool in_place;
    const char* forced;
  };
  for (const Case& c : {Case{2, 4 << 20, 1 << 20, false, "libnbc:2"}, Case{3, 4 << 20, 1 << 20, false, "libnbc:2"},
                        Case{4, 65535, 16383, false, "libnbc:2"}, Case{4, 65536, 16384, false, "libnbc:3"},
                        Case{4, 4 << 20, 1 << 20, true, "libnbc:2"}, Case{6, 1 << 20, 1 << 18, false, "libnbc:3"},
                        Case{9000, 65536, 8192, false, "libnbc:3"}, Case{20000, 65536, 8192, false, "libnbc:1"}}) {
    const auto choice =
        library_choice(RuleQuery{kOmpi, "nonblocking", "all_reduce", c.ranks, c.bytes, c.count, c.in_place});
    ASSERT_TRUE(choice) << c.ranks << " " << c.bytes;
    EXPECT_EQ(choice->forced, c.forced) << c.ranks << " ranks, " << c.bytes << " B, in place " << c.in_place;
  }
  EXPECT_EQ(library_choice(RuleQuery{kOmpi, "nonblocking", "all_reduce", 8, 1 << 20, 1 << 18})->why,
            "Open MPI 4.1 libnbc rules (nonblocking calls): ranks >= 4, >= 65536 B, out of place");
  EXPECT_EQ(library_choice(RuleQuery{kOmpi, "nonblocking", "all_reduce", 3, 1 << 20, 1 << 18})->why,
            "Open MPI 4.1 libnbc rules (nonblocking calls): ranks < 4");
  // The same operation blocking is coll/tuned's: rabenseifner at 3 ranks.
  EXPECT_EQ(library_choice(RuleQuery{kOmpi, "blocking", "all_reduce", 3, 1 << 20, 1 << 18})->forced, "ompi:6");
  EXPECT_EQ(algorithm_label("libnbc:3", "all_reduce"), "rabenseifner (libnbc:3)");
  EXPECT_EQ(algorithm_label("libnbc:9", "all_reduce"), "Open MPI libnbc algorithm 9");
  EXPECT_EQ(algorithm_family("libnbc:2", "all_reduce"), ModelFamily::tree);
  EXPECT_EQ(algorithm_family("libnbc:3", "all_reduce"), ModelFamily::rabenseifner);
  EXPECT_FALSE(algorithm_family("libnbc:3", "all_gather"));
}

// coll_tuned_decision_fixed.c (4.1.x) for MPI_Allgather and
// MPI_Reduce_scatter_block: their rules read one rank's block (the size
// column / ranks), each side of a switch.
TEST(LibraryRules, OpenMpi41AllgatherAndReduceScatterChoicesAreItsFixedRules) {
  struct Case {
    const char* collective;
    int ranks;
    std::uint64_t per_rank;
    const char* forced;
  };
  for (const Case& c :
       {Case{"all_gather", 2, 1 << 20, "ompi:6"}, Case{"all_gather", 3, 1 << 20, "ompi:3"},
        Case{"all_gather", 31, 8, "ompi:3"}, Case{"all_gather", 40, 1023, "ompi:3"},
        Case{"all_gather", 40, 1024, "ompi:5"}, Case{"all_gather", 40, 65536, "ompi:4"},
        Case{"all_gather", 300, 100, "ompi:2"}, Case{"all_gather", 1500, 5000, "ompi:5"},
        Case{"all_gather", 9000, 4, "ompi:2"}, Case{"reduce_scatter", 3, 131071, "ompi:4"},
        Case{"reduce_scatter", 3, 131072, "ompi:1"}, Case{"reduce_scatter", 6, 100, "ompi:4"},
        Case{"reduce_scatter", 6, 1 << 20, "ompi:1"}, Case{"reduce_scatter", 6, (1 << 20) - 1, "ompi:3"},
        Case{"reduce_scatter", 10, 1 << 20, "ompi:1"}, Case{"reduce_scatter", 10, 8 << 20, "ompi:4"},
        Case{"reduce_scatter", 100, 100000, "ompi:1"}}) {
    const std::uint64_t bytes = c.per_rank * static_cast<std::uint64_t>(c.ranks);
    const auto choice = library_choice(RuleQuery{kOmpi, "blocking", c.collective, c.ranks, bytes});
    ASSERT_TRUE(choice) << c.collective << " " << c.ranks;
    EXPECT_EQ(choice->forced, c.forced) << c.collective << ", " << c.ranks << " ranks, " << c.per_rank << " B/rank";
  }
  EXPECT_EQ(library_choice(RuleQuery{kOmpi, "blocking", "all_gather", 40, 40 * 2048})->why,
            "Open MPI 4.1 fixed rules: 32 <= ranks < 64, 1024 to 65535 B per rank");
  EXPECT_EQ(library_choice(RuleQuery{kOmpi, "blocking", "all_gather", 8, 8 << 20})->why,
            "Open MPI 4.1 fixed rules: 3 <= ranks < 32, any size");
  // libnbc's choice for them is not tabulated.
  EXPECT_FALSE(library_choice(RuleQuery{kOmpi, "nonblocking", "all_gather", 8, 1 << 20}));
  EXPECT_EQ(algorithm_label("ompi:5", "all_gather"), "neighbor (ompi:5)");
  EXPECT_EQ(algorithm_family("ompi:5", "all_gather"), ModelFamily::neighbor_exchange);
  EXPECT_EQ(algorithm_family("ompi:6", "all_gather"), ModelFamily::halving_doubling);
  EXPECT_EQ(algorithm_label("ompi:3", "reduce_scatter"), "recursive_halving (ompi:3)");
  EXPECT_EQ(algorithm_family("ompi:1", "reduce_scatter"), ModelFamily::tree);
  // Neighbor exchange: n/2 steps moving (n-1)/n of the result; ring's steps at an odd count.
  const double s = 1 << 20;
  const Steps n8 = family_steps(ModelFamily::neighbor_exchange, 8, s);
  EXPECT_DOUBLE_EQ(n8.count, 4);
  EXPECT_DOUBLE_EQ(n8.count * n8.bytes, 0.875 * s);
  EXPECT_DOUBLE_EQ(family_steps(ModelFamily::neighbor_exchange, 7, s).count, 6);
}

// Both fold a non-power-of-two count into the largest power of two below it.
TEST(LibraryRules, FoldingFamiliesCountTheExtraSteps) {
  const double s = 1 << 20;
  EXPECT_DOUBLE_EQ(family_steps(ModelFamily::recursive_doubling, 8, s).count, 3);
  EXPECT_DOUBLE_EQ(family_steps(ModelFamily::recursive_doubling, 6, s).count, 4);  // 2 + 2 folding steps
  EXPECT_DOUBLE_EQ(family_steps(ModelFamily::recursive_doubling, 6, s).bytes, s);
  const Steps r8 = family_steps(ModelFamily::rabenseifner, 8, s), r6 = family_steps(ModelFamily::rabenseifner, 6, s);
  EXPECT_DOUBLE_EQ(r8.count, 6);
  EXPECT_DOUBLE_EQ(r8.count * r8.bytes, 1.75 * s);  // 2 s (p-1)/p
  EXPECT_DOUBLE_EQ(r6.count, 7);                    // 4 + 3 folding steps
  EXPECT_DOUBLE_EQ(r6.count * r6.bytes, 3.5 * s);   // 1.5 s + 2 s
}

// A run's record of a forced algorithm: Open MPI's dynamic rules with an
// algorithm for the collective; the algorithm alone does nothing in Open MPI.
TEST(LibraryRules, ForcedAlgorithmIsReadFromTheRunRecord) {
  // The forced algorithm of a one-point record with `env` as its environment;
  // `calls` "nonblocking" marks the run's MPI calls so (libnbc's), else none.
  const auto forced_in = [](const std::string& env, const std::string& calls = "",
                            const std::string& collective = "all_reduce") {
    const std::string config =
        calls.empty() ? R"({"collective":")" + collective + R"("})"
                      : R"({"collective":")" + collective + R"(","backend":"mpi","mpi_calls":")" + calls + R"("})";
    const std::string text = R"({"type":"run","schema_version":3,"config":)" + config + R"(,"environment":{)" + env +
                             "}}\n" + R"({"type":"point","collective":")" + collective +
                             R"(","dtype":"float","op":"sum","ranks":4,"nodes":4,"bytes":1024,)"
                             R"("out_of_place":{"time_us":10.0}})" +
                             "\n";
    ResultSet set;
    set.label = "t";
    import_text(text, "r.jsonl", set, ImportOptions{});
    return set.points.empty() ? std::string("no point") : set.points[0].forced_algorithm;
  };
  EXPECT_EQ(forced_in(R"("OMPI_MCA_coll_tuned_use_dynamic_rules":"1","OMPI_MCA_coll_tuned_allreduce_algorithm":"6")"),
            "ompi:6");
  EXPECT_EQ(forced_in(R"("OMPI_MCA_coll_tuned_allreduce_algorithm":"6")"), "");
  EXPECT_EQ(
      forced_in(R"("OMPI_MCA_coll_tuned_use_dynamic_rules":"true","OMPI_MCA_coll_tuned_allreduce_algorithm":"0")"), "");
  EXPECT_EQ(forced_in(R"("OMPI_MCA_coll_tuned_use_dynamic_rules":"1","OMPI_MCA_coll_tuned_bcast_algorithm":"6")"), "");
  EXPECT_EQ(forced_in(R"("NCCL_ALGO":"Ring")"), "nccl:Ring");
  // Nonblocking calls are libnbc's: its setting counts, coll/tuned's does not.
  EXPECT_EQ(forced_in(R"("OMPI_MCA_coll_libnbc_iallreduce_algorithm":"3")", "nonblocking"), "libnbc:3");
  EXPECT_EQ(forced_in(R"("OMPI_MCA_coll_libnbc_iallreduce_algorithm":"0")", "nonblocking"), "");
  EXPECT_EQ(forced_in(R"("OMPI_MCA_coll_tuned_use_dynamic_rules":"1","OMPI_MCA_coll_tuned_allreduce_algorithm":"6")",
                      "nonblocking"),
            "");
  EXPECT_EQ(forced_in(R"("OMPI_MCA_coll_libnbc_iallreduce_algorithm":"3")"), "");  // blocking: tuned's call
  // ccbench's reduce_scatter is MPI_Reduce_scatter_block: its own variable.
  const std::string block =
      R"("OMPI_MCA_coll_tuned_use_dynamic_rules":"1","OMPI_MCA_coll_tuned_reduce_scatter_block_algorithm":"3")";
  EXPECT_EQ(forced_in(block, "", "reduce_scatter"), "ompi:3");
  EXPECT_EQ(
      forced_in(R"("OMPI_MCA_coll_tuned_use_dynamic_rules":"1","OMPI_MCA_coll_tuned_reduce_scatter_algorithm":"3")", "",
                "reduce_scatter"),
      "");
}

// Rabenseifner's cost: each step alpha + bytes / bandwidth.
double rabenseifner(int n, double s) {
  const Steps st = family_steps(ModelFamily::rabenseifner, n, s);
  return st.count * (30.0 + st.bytes / 1000.0);
}

// 64 KiB to 4 MiB by 2, out-of-place, every point forcing `forced`.
ResultSet forced_sweep(const std::vector<int>& counts, const std::string& forced, const std::string& library) {
  synthetic::Shape shape;
  shape.from = 64 << 10, shape.to = 4u << 20, shape.factor = 2;
  shape.placements = {0};
  shape.forced = forced;
  shape.library = library;
  return synthetic::sweep(counts, rabenseifner, shape);
}

TEST(LibraryRules, TheLibrarysChoiceIsPredictedFromTheForcedFits) {
  const Model m = fit_model({forced_sweep({2, 3, 4}, "ompi:6", kOmpi)});
  ASSERT_EQ(m.series.size(), 1u);
  EXPECT_EQ(m.series[0].family, ModelFamily::rabenseifner);  // from the forced algorithm, not the data
  EXPECT_NE(m.series[0].key().find("forced rabenseifner (ompi:6)"), std::string::npos);
  const Model back = model_from_json(model_to_json(m), "m.json");
  EXPECT_EQ(back.series[0].forced, "ompi:6");
  EXPECT_EQ(back.library, kOmpi);

  // At 6 and 8 ranks the rules choose rabenseifner for every size: predicted
  // from its fit, power-of-two folding included (8 ranks faster than 6).
  for (int ranks : {6, 8}) {
    const std::vector<Prediction> preds = predict(back, ranks, ranks, {1 << 20, 4 << 20});
    ASSERT_EQ(preds.size(), 2u);  // the library's choice, and the forced fit itself
    const Prediction& chosen = preds[0];
    EXPECT_TRUE(chosen.by_rules);
    EXPECT_EQ(chosen.forced, "");
    EXPECT_EQ(preds[1].forced, "ompi:6");
    for (const PredictedPoint& q : chosen.points) {
      ASSERT_NE(q.from, nullptr);
      EXPECT_EQ(q.assumes, "rabenseifner (ompi:6)");
      EXPECT_NEAR(q.time_us / rabenseifner(ranks, static_cast<double>(q.bytes)), 1.0, 0.05) << ranks;
    }
  }
  // At 3 ranks, 64-256 KiB the rules choose segmented_ring, not fitted: said, not guessed.
  const Prediction three = predict(back, 3, 3, {128 << 10, 1 << 20})[0];
  ASSERT_TRUE(three.by_rules);
  EXPECT_EQ(three.points[0].from, nullptr);
  EXPECT_TRUE(std::isnan(three.points[0].time_us));
  EXPECT_EQ(three.points[0].assumes, "segmented_ring (ompi:5)");
  EXPECT_NE(three.points[1].from, nullptr);  // 1 MiB: rabenseifner, fitted
  // Where no size's algorithm was fitted there is no library's-choice table;
  // the forced fit's table says what the library would run instead.
  const std::vector<Prediction> only = predict(back, 3, 3, {128 << 10});
  ASSERT_EQ(only.size(), 1u);
  EXPECT_EQ(only[0].forced, "ompi:6");
  ASSERT_EQ(only[0].flags.size(), 2u);
  EXPECT_EQ(only[0].flags[0],
            "unforced, the library would run segmented_ring (ompi:5) for 131072 B, not this forced "
            "algorithm");
  EXPECT_EQ(only[0].flags[1], "  (by Open MPI 4.1 fixed rules: 1 <= ranks < 4, 65536 to 262143 B)");

  // Rules not tabulated for the library: only the forced fit is predicted.
  const Model other = fit_model({forced_sweep({2, 3, 4}, "ompi:6", "Open MPI v5.0.3")});
  const std::vector<Prediction> alone = predict(other, 8, 8, {1 << 20});
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_FALSE(alone[0].by_rules);
  EXPECT_EQ(alone[0].flags.back(),
            "which algorithm the library chooses here is not tabulated: this table is one candidate");
}

// A step's data-parallel all_reduce issued nonblocking (ccbench replay): fits
// of libnbc's forced rabenseifner at 2-4 ranks predict the library's own
// choice at 6 and 8 (rabenseifner out of place, with 6's folding), and say
// that in place the library would run binomial, which was not fitted.
TEST(LibraryRules, NonblockingCallsArePredictedByLibnbcsRules) {
  synthetic::Shape shape;
  shape.from = 64 << 10, shape.to = 4u << 20, shape.factor = 2;
  shape.forced = "libnbc:3";
  shape.library = kOmpi;
  shape.mpi_calls = "nonblocking";
  const Model m = model_from_json(model_to_json(fit_model({synthetic::sweep({2, 3, 4}, rabenseifner, shape)})), "m");
  EXPECT_EQ(m.mpi_calls, "nonblocking");
  ASSERT_EQ(m.series.size(), 2u);
  for (const ModelSeries& s : m.series) EXPECT_EQ(s.family, ModelFamily::rabenseifner);
  for (int ranks : {6, 8}) {
    const std::vector<Prediction> preds = predict(m, ranks, ranks, {1 << 20});
    int by_rules = 0;
    for (const Prediction& p : preds) {
      ASSERT_NE(p.series, nullptr);
      if (p.by_rules) {
        ++by_rules;
        EXPECT_EQ(p.series->in_place, 0);
        ASSERT_EQ(p.points.size(), 1u);
        ASSERT_NE(p.points[0].from, nullptr);
        EXPECT_EQ(p.points[0].assumes, "rabenseifner (libnbc:3)");
        EXPECT_NEAR(p.points[0].time_us / rabenseifner(ranks, 1 << 20), 1.0, 0.05) << ranks;
      } else if (p.series->in_place == 1) {  // no library's choice from it: its flags say what would run
        ASSERT_EQ(p.flags.size(), 2u);
        EXPECT_EQ(p.flags[0],
                  "unforced, the library would run binomial (libnbc:2) for 1048576 B, not this forced "
                  "algorithm");
        EXPECT_EQ(p.flags[1], "  (by Open MPI 4.1 libnbc rules (nonblocking calls): in place)");
      }
    }
    EXPECT_EQ(by_rules, 1) << ranks;
  }
  // The same fits read as blocking calls would be predicted by coll/tuned's
  // rules, whose algorithms they do not hold: nothing is claimed from them.
  Model blocking = m;
  blocking.mpi_calls = "blocking";
  for (const Prediction& p : predict(blocking, 8, 8, {1 << 20})) EXPECT_FALSE(p.by_rules);
}

// Unforced all_gather runs of Open MPI 4.1 at 2-4 ranks, on a network at two
// link speeds (issue 53 item 3: the data chose different families on the
// two, and 256x further the difference made a 144x call). Both fits follow
// the library's rules at every point: two_proc, bruck and
// recursive_doubling at the fitted counts, ring where the rules choose it
// at 64 ranks, so the two networks differ by their speed only.
TEST(LibraryRules, AnUnforcedFitFollowsTheLibrarysRules) {
  const auto cost = [](double bandwidth) {  // per step: 30 us + bytes / bandwidth
    return [bandwidth](ModelFamily f, int n, double s) {
      const Steps st = family_steps(f, n, s);
      return st.count * (30.0 + st.bytes / bandwidth);
    };
  };
  const auto fit = [&](double bandwidth) {
    synthetic::Shape shape;
    shape.collective = "all_gather";
    shape.from = 64 << 10, shape.to = 64u << 20, shape.factor = 2;
    shape.placements = {0};
    shape.library = kOmpi;
    const auto c = cost(bandwidth);
    return model_from_json(
        model_to_json(fit_model({synthetic::sweep(
            {2, 3, 4}, [&](int n, double s) { return c(ModelFamily::halving_doubling, n, s); }, shape)})),
        "m.json");
  };
  const Model fast = fit(1000), slow = fit(500);
  for (const Model* m : {&fast, &slow}) {
    ASSERT_EQ(m->series.size(), 1u);
    EXPECT_EQ(m->series[0].family, ModelFamily::library_rules);
    EXPECT_NE(m->series[0].chosen_by.find("recursive_doubling (ompi:3), two_proc (ompi:6)"), std::string::npos)
        << m->series[0].chosen_by;
  }
  // 8 ranks: recursive doubling, as fitted.
  const PredictedPoint at8 = predict(fast, 8, 8, {8 << 20})[0].points[0];
  EXPECT_EQ(at8.assumes, "recursive_doubling (ompi:3)");
  EXPECT_NEAR(at8.time_us / cost(1000)(ModelFamily::halving_doubling, 8, 8 << 20), 1.0, 0.05);
  // 64 ranks, 1 MiB per rank: the rules run ring; its 63 steps of 1 MiB.
  const std::uint64_t big = 64u << 20;
  const PredictedPoint fast64 = predict(fast, 64, 64, {big})[0].points[0];
  const PredictedPoint slow64 = predict(slow, 64, 64, {big})[0].points[0];
  EXPECT_EQ(fast64.assumes, "ring (ompi:4)");
  EXPECT_EQ(fast64.why, "Open MPI 4.1 fixed rules: 64 <= ranks < 128, >= 65536 B per rank");
  EXPECT_NEAR(fast64.time_us / cost(1000)(ModelFamily::ring, 64, big), 1.0, 0.1);
  EXPECT_NEAR(slow64.time_us / fast64.time_us, 2.0, 0.2);  // the links' ratio, not a family's artefact
  // A model file whose library has no tabulated rules cannot hold the family.
  std::string text = model_to_json(fast);
  text.replace(text.find("Open MPI v4.1.4"), 15, "Open MPI v5.0.3");
  try {
    model_from_json(text, "m.json");
    ADD_FAILURE() << "loaded";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("family library_rules, but the rules of its library"), std::string::npos)
        << e.what();
  }
}

}  // namespace library_rules_test
}  // namespace ccb
