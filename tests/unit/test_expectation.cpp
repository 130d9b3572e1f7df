// "Is this number normal?" (analysis/compare/expectation): GPU families from
// device names, line rates as typed, the limit of each path, the 2-node
// inflation flag, and references only for the same hardware.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <regex>

#include "tests/unit/compare_csv.hpp"
#include "analysis/compare/catalogue.hpp"
#include "analysis/compare/comparison.hpp"
#include "analysis/compare/expectation.hpp"
#include "analysis/compare/reference.hpp"
#include "analysis/history/fleet_references.hpp"
#include "analysis/history/prometheus_text.hpp"
#include "analysis/report/render.hpp"
#include "common/errors.hpp"
#include "results/json_records.hpp"
#include "results/import/importer.hpp"

namespace ccb {
namespace expectation_test {  // named: the unit tests are one unity build

const std::string kFixtures = std::string(CCBENCH_FIXTURES);

TEST(Expectation, GpuFamiliesAndLineRates) {
  EXPECT_EQ(gpu_family("NVIDIA H100 80GB HBM3"), "H100");
  EXPECT_EQ(gpu_family("8 x NVIDIA H200"), "H200");
  EXPECT_EQ(gpu_family("NVIDIA GB200"), "GB200");
  EXPECT_EQ(gpu_family("NVIDIA B200"), "B200");
  EXPECT_EQ(gpu_family("NVIDIA A100-SXM4-80GB"), "A100");
  EXPECT_EQ(gpu_family("NVIDIA H1000"), "");  // a longer number is another model
  EXPECT_EQ(gpu_family("Tesla V100"), "");
  EXPECT_DOUBLE_EQ(*link_rate_gbps("200Mbit"), 0.025);
  EXPECT_DOUBLE_EQ(*link_rate_gbps("400G"), 50);
  EXPECT_DOUBLE_EQ(*link_rate_gbps("25Gbit"), 3.125);
  for (const char* bad : {"", "fast", "200", "-1G", "nanG", "1e400G"}) EXPECT_FALSE(link_rate_gbps(bad)) << bad;
}

TEST(Expectation, TheLimitOfEachPath) {
  PathFacts net;
  net.nic_gbps = 50, net.nics_per_node = 8, net.basis = "given";
  EXPECT_DOUBLE_EQ(busbw_ceiling("all_reduce", 16, 2, "H100", net).gbps, 400);  // the node's NICs
  EXPECT_DOUBLE_EQ(busbw_ceiling("alltoall", 16, 2, "H100", net).gbps, 50);     // one NIC per rank
  EXPECT_DOUBLE_EQ(busbw_ceiling("all_reduce", 8, 1, "H100", net).gbps, 700);   // NVLS: 450 x 14/9
  EXPECT_DOUBLE_EQ(busbw_ceiling("all_reduce", 4, 1, "H100", net).gbps, 450);   // no NVLS at 4 GPUs
  EXPECT_DOUBLE_EQ(busbw_ceiling("all_gather", 8, 1, "A100", net).gbps, 300);
  EXPECT_TRUE(std::isnan(busbw_ceiling("all_reduce", 2, 1, "", net).gbps));  // host memory: not measured
  EXPECT_TRUE(std::isnan(busbw_ceiling("all_reduce", 1, 1, "H100", net).gbps));
  EXPECT_TRUE(std::isnan(busbw_ceiling("all_reduce", 16, 2, "H100", PathFacts{}).gbps));
  net.memory_copy_gbps = 12, net.memory_basis = "2 ranks copying 32 MiB each at once";
  const Ceiling shm = busbw_ceiling("all_reduce", 2, 1, "", net);  // host memory, measured beside the run
  EXPECT_DOUBLE_EQ(shm.gbps, 12);
  EXPECT_NE(shm.basis.find("2 ranks copying 32 MiB"), std::string::npos);
}

// A run's own --link-rate and memory copy rate (its record's limits) are
// what path_facts reads when none is given; a given one wins; runs that
// disagree give none.
TEST(Expectation, ThePathFactsARunRecords) {
  ResultSet set;
  set.note_env("limits.link_rate", "400mbit");
  set.note_env("limits.link_rate_gbps", "0.05");
  set.note_env("limits.memory_copy_gbps", "9.5");
  set.note_env("hardware.nics", "ethernet eth0 10000 Mb/s");
  const PathFacts own = path_facts(set, 0, 0);
  EXPECT_DOUBLE_EQ(own.nic_gbps, 0.05);
  EXPECT_EQ(own.nics_per_node, 1);
  EXPECT_NE(own.basis.find("the run's --link-rate 400mbit"), std::string::npos) << own.basis;
  EXPECT_DOUBLE_EQ(own.memory_copy_gbps, 9.5);
  EXPECT_DOUBLE_EQ(path_facts(set, 3.125, 2).nic_gbps, 3.125);
  set.note_env("limits.link_rate_gbps", "0.025");          // a second run at another rate
  EXPECT_DOUBLE_EQ(path_facts(set, 0, 0).nic_gbps, 1.25);  // not theirs: the NICs listed (10000 Mb/s)
}

// The emulated cluster's links at two shaped rates: the same run is twice
// the share of a link half as fast.
TEST(Expectation, EmulatedLinksAtTwoRates) {
  const ResultSet set = load_result_set("emu", kFixtures + "/model/emu-200mbit-2-hosts.jsonl", {});
  const auto at = [&](const char* rate) {
    const auto e = expectations(set, path_facts(set, *link_rate_gbps(rate), 0), published_figures());
    EXPECT_FALSE(e.empty());
    return e.front();
  };
  const Expectation fast = at("200Mbit"), slow = at("100Mbit");
  EXPECT_DOUBLE_EQ(fast.ceiling.gbps, 0.025);
  EXPECT_NEAR(slow.share_of_limit, 2 * fast.share_of_limit, 1e-12);
  EXPECT_GT(fast.share_of_limit, 0.3);  // a 4 MiB all_reduce over 200 Mbit/s: far from nothing
  EXPECT_LT(fast.share_of_limit, 1.0);
  EXPECT_FALSE(fast.reference);  // host memory: no GPU, no reference
}

// A 2-node H100 log above its network's limit is flagged, never a triumph;
// and it borrows no figure from another node count or GPU.
TEST(Expectation, TwoNodeInflationIsFlagged) {
  const ResultSet set = load_result_set("two", kFixtures + "/compare/nccl-tests/two-nodes-concatenated.log", {});
  const auto all = expectations(set, path_facts(set, 50, 8), published_figures());
  ASSERT_FALSE(all.empty());
  const Expectation& e = all.front();
  EXPECT_EQ(e.gpu, "H100");
  EXPECT_EQ(e.nodes, 2);
  EXPECT_GT(e.share_of_limit, 1.0);
  EXPECT_TRUE(e.above_limit);
  EXPECT_NE(e.above_limit_why.find("tree"), std::string::npos);
  EXPECT_FALSE(e.reference);  // aws-2x-p5 is at 8 GiB: the log's largest is 128 MiB
  EXPECT_NE(e.no_reference_why.find("other sizes"), std::string::npos);
  EXPECT_NE(expectations_text(all, path_facts(set, 50, 8).basis).find("ABOVE THE LIMIT"), std::string::npos);
}

// A figure at the reference's size matches the same GPU only.
TEST(Expectation, ReferencesOnlyForTheSameHardware) {
  const auto run = [](const char* gpu) {
    ResultSet set;
    set.note_env("hardware.gpu", gpu);
    ImportedPoint p;
    p.collective = "all_reduce", p.ranks = 8, p.nodes = 1, p.bytes = 8ull << 30, p.busbw_gbps = 431;
    set.points.push_back(p);
    return expectations(set, PathFacts{}, published_figures()).front();
  };
  const Expectation h100 = run("NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(h100.reference);
  EXPECT_EQ(h100.reference->id, "azure-nd-h100-v5");
  EXPECT_NEAR(h100.share_of_reference, 431 / 478.9, 1e-12);
  const Expectation b200 = run("NVIDIA B200");
  EXPECT_FALSE(b200.reference);
  EXPECT_NE(b200.no_reference_why.find("no reference for B200 all_reduce on 8 ranks, 1 node"), std::string::npos);
  EXPECT_DOUBLE_EQ(b200.ceiling.gbps, 900 * 14.0 / 9);
}

// The property: over generated runs (one or two nodes, host or device
// memory, H100 or no GPU, with and without a link rate or a measured copy
// rate), every output that shows a series' share says the same number:
// the object (busbw / limit, flagged exactly when above 1), its text (the
// percentage), its JSON, and the --prom share of its largest point.
TEST(Expectation, EveryOutputSaysTheSameShare) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> unit(0.05, 1.6);
  int checked = 0;
  for (int scenario = 0; scenario < 300; ++scenario) {
    ResultSet set;
    const int nodes = 1 + static_cast<int>(rng() % 2), ranks = nodes * (1 + static_cast<int>(rng() % 8));
    const bool device = rng() % 2, gpu = rng() % 2;
    if (gpu) set.note_env("hardware.gpu", "NVIDIA H100 80GB HBM3");
    if (rng() % 2) set.note_env("limits.link_rate_gbps", "50");
    if (rng() % 2) set.note_env("limits.memory_copy_gbps", "12.5");
    set.hosts = {"a"};
    const PathFacts facts = path_facts(set, 0, 0);
    const Ceiling limit = busbw_ceiling("all_reduce", ranks, nodes, device ? (gpu ? "H100" : "") : "", facts);
    for (std::uint64_t bytes : {std::uint64_t{1} << 20, std::uint64_t{1} << 30}) {
      ImportedPoint p;
      p.collective = "all_reduce", p.dtype = "float", p.op = "sum", p.path = "auto";
      p.memory = device ? "device" : "host";
      p.ranks = ranks, p.nodes = nodes, p.in_place = 0, p.bytes = bytes;
      p.busbw_gbps = (limit.gbps > 0 ? limit.gbps : 100) * unit(rng);
      set.points.push_back(p);
    }
    const std::vector<Expectation> all = expectations(set, facts, published_figures());
    ASSERT_EQ(all.size(), 1u) << scenario;
    const Expectation& e = all.front();
    const double top = set.points.back().busbw_gbps;
    EXPECT_EQ(e.busbw_gbps, top);
    const std::string text = expectations_text(all, facts.basis);
    const std::string prom = prometheus_text({PromRun{&set, "", ""}});
    const nlohmann::json j = expectation_json(e);
    if (!(limit.gbps > 0)) {
      EXPECT_TRUE(std::isnan(e.share_of_limit)) << scenario;
      EXPECT_TRUE(j["share_of_limit"].is_null());
      EXPECT_EQ(prom.find("ccbench_busbw_share_of_limit"), std::string::npos) << scenario;
      continue;
    }
    ++checked;
    EXPECT_DOUBLE_EQ(e.ceiling.gbps, limit.gbps);
    EXPECT_DOUBLE_EQ(e.share_of_limit, top / limit.gbps);
    EXPECT_EQ(e.above_limit, e.share_of_limit > 1) << scenario;
    EXPECT_NE(text.find(fmt::format("({:.0f}% of it{}", e.share_of_limit * 100, e.above_limit ? ", ABOVE" : ")")),
              std::string::npos)
        << text;
    EXPECT_DOUBLE_EQ(j["share_of_limit"].get<double>(), e.share_of_limit);
    EXPECT_DOUBLE_EQ(j["limit_gbps"].get<double>(), e.ceiling.gbps);
    const std::regex share(R"(ccbench_busbw_share_of_limit\{[^}]*size_bytes="1073741824"[^}]*\} ([0-9.e+-]+))");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(prom, m, share)) << prom;
    EXPECT_NEAR(std::stod(m[1].str()), e.share_of_limit, 1e-9 * e.share_of_limit) << scenario;
    if (scenario % 10 == 0) {  // compare --csv: the run against itself, each side's share at 1 GiB
      ResultSet other = set;
      other.label = "other";
      set.label = "base";
      const Comparison c = compare_sets({set, other}, ComparisonOptions{});
      const std::string csv = compare_csv_text(c);
      const auto field = [](const std::string& line, std::size_t k) {
        std::size_t at = 0;
        for (std::size_t i = 0; i < k; ++i) at = line.find(',', at) + 1;
        return line.substr(at, line.find(',', at) - at);
      };
      const std::string header = csv.substr(0, csv.find('\n'));
      const std::size_t hit = csv.find(",1073741824,");
      ASSERT_NE(hit, std::string::npos) << csv;
      const std::size_t start = csv.rfind('\n', hit) + 1;
      const std::string row = csv.substr(start, csv.find('\n', hit) - start);
      std::size_t share_col = 0, limit_col = 0;
      const auto columns = static_cast<std::size_t>(std::count(header.begin(), header.end(), ',')) + 1;
      for (std::size_t k = 0; k < columns; ++k) {
        if (field(header, k) == "baseline_share_of_limit") share_col = k;
        if (field(header, k) == "other_busbw_limit_gbps") limit_col = k;
      }
      ASSERT_GT(share_col, 0u) << header;
      EXPECT_NEAR(std::stod(field(row, share_col)), e.share_of_limit, 1e-9 * e.share_of_limit) << row;
      EXPECT_NEAR(std::stod(field(row, limit_col)), e.ceiling.gbps, 1e-9 * e.ceiling.gbps) << row;
    }
  }
  EXPECT_GT(checked, 100);  // the generator reaches limits often enough to mean something
}

// Your own catalogue file: each field checked, one line naming the figure;
// what catalogue_text writes reads back the same.
TEST(Catalogue, EveryFieldIsCheckedAndTheTextReadsBack) {
  const std::string good =
      R"({"id": "mine", "system": "our H100 nodes", "collective": "all_reduce", "gpu": "H100", "ranks": 8,
          "nodes": 1, "bytes": 134217728, "busbw_gbps": 440.5, "source": "our acceptance", "date": "2026-11"})";
  const std::vector<PublishedFigure> one = read_catalogue("[" + good + "]", "FILE");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].gpu, "H100");
  EXPECT_EQ(one[0].source, "our acceptance (FILE)");
  const std::vector<PublishedFigure> again = read_catalogue(catalogue_text(one), "AGAIN");
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].id, "mine");
  EXPECT_EQ(again[0].bytes, 134217728u);
  EXPECT_DOUBLE_EQ(again[0].busbw_gbps, 440.5);
  EXPECT_EQ(again[0].date, "2026-11");
  const auto error = [&](const std::string& key, const std::string& value) {
    nlohmann::json j = nlohmann::json::parse(good);
    if (value.empty()) j.erase(key);
    else j[key] = nlohmann::json::parse(value);
    try {
      read_catalogue("[" + j.dump() + "]", "FILE");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error("gpu", R"("H300")"),
            "FILE: figure 1: gpu 'H300': not a family the limits know (A100, H100, H200, B200, GB200)");
  EXPECT_EQ(error("gpu", R"("NVIDIA H100 80GB HBM3")").find("accepted"),
            std::string::npos);  // a family, not a device name
  EXPECT_NE(error("collective", R"("allreduce")").find("collective 'allreduce': not one ccbench runs"),
            std::string::npos);
  EXPECT_NE(error("ranks", "1").find("ranks must be a whole number from 2"), std::string::npos);
  EXPECT_NE(error("nodes", "9").find("nodes must be a whole number from 1 to 8"), std::string::npos);
  EXPECT_NE(error("bytes", "0.5").find("bytes must be a whole number"), std::string::npos);
  EXPECT_NE(error("busbw_gbps", "-3").find("busbw_gbps must be a number above 0"), std::string::npos);
  EXPECT_NE(error("busbw_gbps", R"("fast")").find("busbw_gbps must be a number above 0"), std::string::npos);
  EXPECT_NE(error("date", R"("2026-13")").find("date '2026-13': YYYY-MM or YYYY-MM-DD"), std::string::npos);
  EXPECT_NE(error("source", "").find("figure 1: no source"), std::string::npos);
  EXPECT_NE(error("id", R"("")").find("id must be a text"), std::string::npos);
  EXPECT_THROW(read_catalogue("[" + good + "," + good + "]", "FILE"), UsageError);  // an id twice
  EXPECT_THROW(read_catalogue("{}", "FILE"), UsageError);
  EXPECT_THROW(read_catalogue("[1]", "FILE"), UsageError);
  EXPECT_THROW(read_catalogue("not json", "FILE"), UsageError);
}

// The fleet's figure: per GPU family, collective, ranks, nodes and size, the
// median over host sets of each set's median of clean runs; host memory,
// in-place, unknown GPUs and too few runs make none.
TEST(Catalogue, TheFleetsFigureIsTheMedianOfEachHostSetsMedian) {
  const auto series = [](std::string hosts, std::string gpu, std::vector<double> bw, int in_place = 0,
                         std::string memory = "device") {
    FleetSeries s;
    s.key.collective = "all_reduce", s.key.memory = std::move(memory), s.key.gpu = std::move(gpu);
    s.key.ranks = 8, s.key.nodes = 1, s.key.bytes = 1 << 27, s.key.in_place = in_place, s.key.hosts = std::move(hosts);
    int day = 1;
    for (double b : bw) {
      StoredPoint p;
      p.busbw_gbps = b;
      p.started_at = fmt::format("2026-11-{:02d}T00:00:00Z", day++);
      s.points.push_back(p);
    }
    return s;
  };
  std::vector<FleetSeries> all{series("a", "NVIDIA H100 80GB HBM3", {400, 410, 420}),
                               series("b", "NVIDIA H100 80GB HBM3", {300, 310}),
                               series("c", "NVIDIA H100 80GB HBM3", {500}),
                               series("a", "NVIDIA H100 80GB HBM3", {9, 9, 9}, 1),  // in-place
                               series("a", "", {9, 9, 9}, 0, "host"),               // host memory
                               series("d", "Tesla V100", {9, 9, 9})};               // a GPU the limits do not know
  StoredPoint noisy;
  noisy.busbw_gbps = 1, noisy.noise = "oversubscribed", noisy.started_at = "2026-12-01T00:00:00Z";
  all[0].points.push_back(noisy);  // not clean: left out
  const std::vector<PublishedFigure> figures = fleet_figures(all, "");
  ASSERT_EQ(figures.size(), 1u);
  const PublishedFigure& f = figures[0];
  EXPECT_EQ(f.id, "fleet-h100-all_reduce-8r-1n-134217728");
  EXPECT_EQ(f.gpu, "H100");
  EXPECT_DOUBLE_EQ(f.busbw_gbps, 410);  // medians 410, 305, 500: their median
  EXPECT_EQ(f.date, "2026-11-03");
  EXPECT_NE(f.source.find("3 host sets"), std::string::npos) << f.source;
  EXPECT_NE(f.source.find("6 clean runs"), std::string::npos) << f.source;
  EXPECT_EQ(f.system, "this fleet's H100 nodes");
  EXPECT_EQ(read_catalogue(catalogue_text(figures), "F").size(), 1u);  // what it writes, CCBENCH_REFERENCES reads
  EXPECT_TRUE(fleet_figures({series("a", "NVIDIA H100 80GB HBM3", {400, 410})}, "").empty());  // 2 runs: none
}
}  // namespace expectation_test
}  // namespace ccb
