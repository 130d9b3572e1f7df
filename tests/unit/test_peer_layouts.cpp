// Importers on every table layout the peers have printed across versions
// (tests/fixtures/compare/layouts, written by make_layouts.py with each
// version's printf formats): every row read, with the peer's meaning.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "results/import/importer.hpp"

namespace ccb {
namespace peer_layouts_test {  // named: the unit tests are one unity build

const std::string kDir = std::string(CCBENCH_FIXTURES) + "/compare/layouts/";

ResultSet load(const std::string& name) { return load_result_set("t", kDir + name, ImportOptions{}); }

std::string text_of(const std::string& name) {
  std::ifstream in(kDir + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Column `column` (0-based) of a peer's table rows, as printed.
std::vector<double> printed(const std::string& name, int column) {
  std::vector<double> out;
  std::istringstream in(text_of(name));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line.find_first_not_of(' ') == std::string::npos) continue;
    std::istringstream f(line);
    std::vector<std::string> tok;
    for (std::string t; f >> t;) tok.push_back(t);
    if (tok.size() > static_cast<std::size_t>(column) && tok[0] != "#bytes") out.push_back(std::stod(tok[column]));
  }
  return out;
}

double one_message_us(double bytes) { return 2.0 + bytes / 5000.0; }  // make_layouts.py's t_msg

TEST(PeerLayouts, NcclTestsEveryVersionsColumns) {
  struct Case {
    std::string file, collective, op;
    std::uint64_t first_bytes;
  };
  const Case cases[] = {
      {"nccl-tests-2.4-all_gather_perf.log", "all_gather", "-", 64},  // size count type
      {"nccl-tests-2.4-broadcast_perf.log", "broadcast", "-", 8},     // + root
      {"nccl-tests-2.11-all_gather_perf.log", "all_gather", "-", 64},
      {"nccl-tests-2.11-all_reduce_perf.log", "all_reduce", "sum", 8},  // + redop
      {"nccl-tests-2.11-alltoall_perf.log", "alltoall", "-", 64},       // redop printed, no op
      {"nccl-tests-2.11-broadcast_perf.log", "broadcast", "-", 8},
      {"nccl-tests-2.11-reduce_perf.log", "reduce", "sum", 8},  // + redop root
      {"nccl-tests-2.13-all_gather_perf.log", "all_gather", "-", 64},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    const ResultSet s = load(c.file);
    EXPECT_TRUE(s.unread.empty()) << s.unread.front();
    ASSERT_EQ(s.points.size(), 24u);
    for (const ImportedPoint& p : s.points) {
      EXPECT_EQ(p.collective, c.collective);
      EXPECT_EQ(p.op, c.op);
      EXPECT_EQ(p.dtype, "float");
      EXPECT_EQ(p.ranks, 8);
      EXPECT_EQ(p.nodes, 1);
    }
    EXPECT_EQ(s.points[0].bytes, c.first_bytes);
    EXPECT_DOUBLE_EQ(s.points[0].time_us, 30.0);  // out-of-place
    EXPECT_DOUBLE_EQ(s.points[1].time_us, 30.9);  // in-place
    EXPECT_EQ(s.points[1].in_place, 1);
    EXPECT_EQ(s.points[0].wrong, 0u);
    EXPECT_GT(s.points.back().busbw_gbps, 100.0);
    EXPECT_EQ(s.environment.at("hardware.gpu"), "Tesla V100-SXM2-32GB");
  }
}

// Without the column header (lost to an editor, a grep), the token count and
// the fourth token (a number: root) tell the pre-2.13 layouts apart.
TEST(PeerLayouts, NcclTestsRowsWithoutTheirHeader) {
  for (const char* file : {"nccl-tests-2.11-all_gather_perf.log", "nccl-tests-2.11-broadcast_perf.log",
                           "nccl-tests-2.11-all_reduce_perf.log", "nccl-tests-2.11-reduce_perf.log"}) {
    SCOPED_TRACE(file);
    std::istringstream in(text_of(file));
    std::string rows;
    for (std::string line; std::getline(in, line);)
      if (line.find("out-of-place") == std::string::npos && line.find("(B)") == std::string::npos &&
          line.find("size") == std::string::npos)
        rows += line + "\n";
    ResultSet set;
    set.label = "t";
    import_text(rows, file, set, ImportOptions{});
    EXPECT_TRUE(set.unread.empty()) << set.unread.front();
    ASSERT_EQ(set.points.size(), 24u);
    EXPECT_DOUBLE_EQ(set.points[0].time_us, 30.0);
    const bool reduces = std::string(file).find("reduce") != std::string::npos;
    EXPECT_EQ(set.points[0].op, reduces ? "sum" : "-");
  }
}

TEST(PeerLayouts, NcclTestsFailureIsQuotedWhereTheRunFailed) {
  const ResultSet cut = load("nccl-tests-2.13-failed-all_reduce_perf.log");
  ASSERT_EQ(cut.points.size(), 12u);  // the six rows before the failure
  ASSERT_EQ(cut.unread.size(), 1u);   // the cut row; the TESTCHECK line of the same failure is not listed again
  EXPECT_NE(cut.unread[0].find("_perf.log:22: the run failed here: nccl-tests printed 'Test CUDA failure "
                               "common.cu:892 'an illegal memory access was encountered''"),
            std::string::npos)
      << cut.unread[0];
  const ResultSet first = load("nccl-tests-2.13-failed-first-row-all_reduce_perf.log");
  EXPECT_TRUE(first.points.empty());
  ASSERT_EQ(first.unread.size(), 1u);
  EXPECT_NE(first.unread[0].find(":16: the run failed here: nccl-tests printed 'Test CUDA failure"), std::string::npos)
      << first.unread[0];
}

// osu_bw prints size x window / time, osu_bibw size x window x 2 / time: the
// import gives both the same one-message time, and ccbench's bus bandwidth of
// the imported bi_bw is the figure OSU printed (not twice it).
TEST(PeerLayouts, OsuBandwidthTestsKeepTheirDefinition) {
  for (const std::string version : {"5.3", "7.4"}) {
    SCOPED_TRACE(version);
    const ResultSet bw = load("osu-" + version + "-bw.txt"), bibw = load("osu-" + version + "-bibw.txt");
    EXPECT_TRUE(bw.unread.empty() && bibw.unread.empty());
    const std::vector<double> bi_printed = printed("osu-" + version + "-bibw.txt", 1);
    ASSERT_EQ(bw.points.size(), 12u);
    ASSERT_EQ(bibw.points.size(), bi_printed.size());
    for (std::size_t i = 0; i < bibw.points.size(); ++i) {
      const ImportedPoint &u = bw.points[i], &b = bibw.points[i];
      EXPECT_EQ(u.collective, "uni_bw");
      EXPECT_EQ(b.collective, "bi_bw");
      EXPECT_NEAR(u.time_us / one_message_us(static_cast<double>(u.bytes)), 1.0, 0.01) << u.bytes;
      EXPECT_NEAR(b.time_us / u.time_us, 1.0, 0.01) << b.bytes;
      EXPECT_NEAR(b.busbw_gbps * 1e3 / bi_printed[i], 1.0, 0.01) << b.bytes;
    }
  }
  const ResultSet lat = load("osu-7.4-latency.txt");
  ASSERT_EQ(lat.points.size(), 12u);
  EXPECT_EQ(lat.points[0].collective, "pingpong");  // 7.x: "Latency (us)"
  EXPECT_DOUBLE_EQ(lat.points[0].time_us, 2.0);
}

// IMB's Uniband and Biband: Mbytes/sec summed over num_procs/2 pairs (and both
// directions for Biband). Multi-* sections are skipped, said once.
TEST(PeerLayouts, ImbBandsArePerPairAndMultiIsSaidOnce) {
  const ResultSet s = load("IMB-MPI1-2021-bands.txt");
  ASSERT_EQ(s.unread.size(), 1u);
  EXPECT_NE(s.unread[0].find("IMB Multi-* benchmarks (several groups at once) are not compared"), std::string::npos);
  std::size_t uni = 0, bi = 0;
  for (const ImportedPoint& p : s.points) {
    EXPECT_EQ(p.ranks, 4);
    ASSERT_TRUE(p.collective == "uni_bw" || p.collective == "bi_bw") << p.collective.str();
    ++(p.collective == "uni_bw" ? uni : bi);
    EXPECT_NEAR(p.time_us / one_message_us(static_cast<double>(p.bytes)), 1.0, 0.01) << p.bytes;
  }
  EXPECT_EQ(uni, 12u);  // the 0-byte row has no bandwidth to read a time from
  EXPECT_EQ(bi, 12u);
}

}  // namespace peer_layouts_test
}  // namespace ccb
