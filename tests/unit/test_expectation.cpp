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

#include "analysis/compare/comparison.hpp"
#include "analysis/compare/expectation.hpp"
#include "analysis/compare/reference.hpp"
#include "analysis/history/prometheus_text.hpp"
#include "analysis/report/render.hpp"
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
      std::FILE* f = std::tmpfile();
      write_csv(c, f);
      std::string csv(static_cast<std::size_t>(std::ftell(f)), '\0');
      std::rewind(f);
      ASSERT_EQ(std::fread(csv.data(), 1, csv.size(), f), csv.size());
      std::fclose(f);
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

}  // namespace expectation_test
}  // namespace ccb
