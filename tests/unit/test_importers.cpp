// Importers on fixture files in each format (tests/fixtures/compare, made by
// make_fixtures.py), including broken ones: what is read, and what is listed
// as unread with file:line.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "results/import/importer.hpp"
#include "results/json_records.hpp"
#include "results/import/text_input.hpp"

namespace ccb {
namespace {

const std::string kDir = std::string(CCBENCH_FIXTURES) + "/compare/";

ResultSet load(const std::string& rel, int ranks = 0) {
  ImportOptions o;
  o.ranks = ranks;
  return load_result_set("t", kDir + rel, o);
}

bool unread_has(const ResultSet& s, const std::string& needle) {
  return std::any_of(s.unread.begin(), s.unread.end(),
                     [&](const std::string& u) { return u.find(needle) != std::string::npos; });
}

std::vector<const ImportedPoint*> with(const ResultSet& s, const std::string& collective, int in_place) {
  std::vector<const ImportedPoint*> out;
  for (const auto& p : s.points)
    if (p.collective == collective && p.in_place == in_place) out.push_back(&p);
  return out;
}

TEST(Importers, DetectsEachFormat) {
  EXPECT_EQ(detect_format("{\"type\":\"run\",\"schema_version\":2}\n"), Format::ccbench_jsonl);
  EXPECT_EQ(detect_format("{\"version\":2,\"results\":[{\"type\":\"float\"}],\"nccl_version\":22309}"),
            Format::nccl_tests_json);
  EXPECT_EQ(detect_format("# nThread 1 nGpus 1 minBytes 8\n"), Format::nccl_tests_text);
  EXPECT_EQ(detect_format("\n# OSU MPI Allreduce Latency Test v7.3\n"), Format::osu);
  EXPECT_EQ(detect_format("#  Intel(R) MPI Benchmarks 2021.7, MPI-1 part\n"), Format::imb);
  EXPECT_EQ(detect_format("{\"header\":{\"id\":\"0x1\"},\"metadata\":{},\"coll_perf\":{\"coll\":\"AllReduce\"}}\n"),
            Format::nccl_inspector_json);
  EXPECT_EQ(detect_format("# HELP nccl_bus_bandwidth_gbs x\nnccl_bus_bandwidth_gbs{collective=\"AllReduce\"} 3\n"),
            Format::nccl_inspector_prom);
  EXPECT_EQ(detect_format("hello\n"), Format::unknown);
}

TEST(Importers, NcclTestsCurrentLayoutWithNoise) {
  const ResultSet s = load("nccl-tests/bare-metal-all_reduce.log");
  EXPECT_TRUE(s.unread.empty()) << s.unread.front();
  ASSERT_EQ(s.points.size(), 26u);
  const auto oop = with(s, "all_reduce", 0);
  ASSERT_EQ(oop.size(), 13u);
  EXPECT_EQ(oop[0]->bytes, 8u);
  EXPECT_EQ(oop[0]->ranks, 8);
  EXPECT_EQ(oop[0]->nodes, 1);
  EXPECT_EQ(oop[0]->dtype, "float");
  EXPECT_EQ(oop[0]->op, "sum");
  EXPECT_EQ(oop[0]->memory, "device");
  EXPECT_DOUBLE_EQ(oop[0]->time_us, 20.0);
  EXPECT_DOUBLE_EQ(oop.back()->busbw_gbps, 461.15);
  EXPECT_EQ(oop.back()->wrong, 0u);
  EXPECT_EQ(with(s, "all_reduce", 1)[0]->time_us, 20.4);
  EXPECT_EQ(s.environment.at("hardware.gpu"), "NVIDIA H100 80GB HBM3");
  EXPECT_NE(s.environment.at("versions.nccl").find("2.23.9"), std::string::npos);
}

TEST(Importers, NcclTestsErrorColumnAndCollectiveFromFileName) {
  const ResultSet s = load("nccl-tests/old-2.11-all_gather.log");
  EXPECT_TRUE(s.unread.empty());
  const auto oop = with(s, "all_gather", 0);
  ASSERT_EQ(oop.size(), 11u);
  EXPECT_EQ(oop[0]->op, "-");
  EXPECT_EQ(oop[0]->bytes, 64u);
  EXPECT_EQ(oop[0]->wrong, 0u);  // error 0e+00
}

// A header with a redop column over rows that print no op (issue 53): the rows decide.
TEST(Importers, NcclTestsRowsWithoutTheHeadersRedop) {
  const ResultSet s = load("nccl-tests/alltoall-empty-redop.log");
  EXPECT_TRUE(s.unread.empty()) << s.unread.front();
  const auto oop = with(s, "alltoall", 0), ip = with(s, "alltoall", 1);
  ASSERT_EQ(oop.size(), 6u);
  ASSERT_EQ(ip.size(), 6u);
  EXPECT_EQ(oop[0]->op, "-");
  EXPECT_DOUBLE_EQ(oop[0]->time_us, 10.52);
  EXPECT_DOUBLE_EQ(ip[5]->busbw_gbps, 14.93);
}

// nccl-tests 2.19's alltoallv_perf: its own collective, in-place #wrong N/A.
TEST(Importers, NcclTestsAlltoallv) {
  const ResultSet s = load("nccl-tests/alltoallv-2.19.log");
  EXPECT_TRUE(s.unread.empty()) << s.unread.front();
  const auto oop = with(s, "alltoallv", 0), ip = with(s, "alltoallv", 1);
  ASSERT_EQ(oop.size(), 3u);
  ASSERT_EQ(ip.size(), 3u);
  EXPECT_EQ(oop[2]->bytes, 16777216u);
  EXPECT_DOUBLE_EQ(oop[2]->busbw_gbps, 27.78);
  EXPECT_EQ(oop[0]->ranks, 4);
  EXPECT_EQ(collective_in_filename("runs/alltoallv_perf-hot4.log"), "alltoallv");
}

// NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY: the per-rank lines before each row name
// its busiest rank (and its host from the '#  Rank' lines), per placement.
TEST(Importers, NcclTestsAlltoallvPerRankSummary) {
  const ResultSet s = load("nccl-tests/alltoallv-2.19-summary.log");
  EXPECT_TRUE(s.unread.empty()) << s.unread.front();
  const auto oop = with(s, "alltoallv", 0), ip = with(s, "alltoallv", 1);
  ASSERT_EQ(oop.size(), 2u);
  ASSERT_EQ(ip.size(), 2u);
  EXPECT_EQ(oop[0]->busiest_rank, 2);
  EXPECT_EQ(oop[0]->busiest_bytes, 2097152u);
  EXPECT_EQ(oop[0]->busiest_host, "gpu-a2");
  EXPECT_EQ(ip[1]->busiest_bytes, 8388608u);
  EXPECT_EQ(oop[0]->nodes, 2);
  // Without the summary: no busiest rank.
  EXPECT_EQ(with(load("nccl-tests/alltoallv-2.19.log"), "alltoallv", 0)[0]->busiest_rank, -1);
  // A summary line of more than 32 fields (the fuzzers found one read past
  // the tokens) is skipped; the others still name the busiest.
  const ResultSet longer = load("nccl-tests/alltoallv-summary-long-line.log");
  ASSERT_EQ(with(longer, "alltoallv", 0).size(), 1u);
  EXPECT_EQ(with(longer, "alltoallv", 0)[0]->busiest_rank, 1);
}

// NCCL Inspector's records of a running job: one point per collective,
// ranks, nodes and size bucket (the nearest power of two), busbw the median
// over its records, time the bucket's bytes / the median algbw.
TEST(Importers, NcclInspectorRecordsBecomeBucketedPoints) {
  const ResultSet s = load("inspector/dgx-a01-job4711.log");
  EXPECT_TRUE(s.unread.empty()) << s.unread.front();
  EXPECT_EQ(s.formats.front(), "NCCL Inspector JSON");
  const auto ar = with(s, "all_reduce", -1);
  ASSERT_EQ(ar.size(), 4u);  // 2, 8, 32, 128 MiB; the 0.95 x sizes fall in the same buckets
  EXPECT_EQ(ar[2]->bytes, 32u << 20);
  EXPECT_EQ(ar[2]->ranks, 8);
  EXPECT_EQ(ar[2]->nodes, 1);
  EXPECT_NEAR(ar[2]->busbw_gbps, 412.55 * 0.85, 412.55 * 0.85 * 0.03);
  EXPECT_NEAR(ar[2]->time_us, static_cast<double>(32u << 20) / (ar[2]->algbw_gbps * 1e3), 1e-9);
  EXPECT_EQ(ar[2]->samples_us.size(), 48u);  // 6 collectives x 8 ranks, each scaled to the bucket's size
  const auto rs = with(s, "reduce_scatter", -1);
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0]->ranks, 16);
  EXPECT_EQ(rs[0]->nodes, 2);
  EXPECT_EQ(s.environment.at("inspector.not_read"), "6 records of point-to-point or unknown operations");
  EXPECT_TRUE(s.hosts.contains("dgx-a01"));

  // Its Prometheus dump: one record per label set, sizes in decimal units.
  const ResultSet prom = load("inspector/dgx-a01-GPU.prom");
  EXPECT_TRUE(prom.unread.empty()) << prom.unread.front();
  const auto p = with(prom, "all_reduce", -1);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0]->bytes, 128u << 20);  // 134.22MB
  EXPECT_NEAR(p[0]->busbw_gbps, 391.98 * 1.007, 1.0);

  // What cannot be read is said, line by line.
  ResultSet bad;
  import_text(
      "{\"header\": {\"n_ranks\": 8, \"nnodes\": 1}, \"coll_perf\": {\"coll\": \"AllReduce\", \"coll_msg_size_bytes\": "
      "8}}\n"
      "{\"header\": {\"n_ranks\": -3}, \"coll_perf\": {\"coll\": \"AllReduce\", \"coll_exec_time_us\": 5}}\n"
      "{\"coll_perf\": 1, \"header\": 2}\nnot json\n"
      "{\"header\": {\"n_ranks\": 8, \"nnodes\": 1}, \"coll_perf\": {\"coll\": \"AllReduce\", \"coll_msg_size_bytes\": "
      "8, \"coll_exec_time_us\": 5, \"coll_algobw_gbs\": 1, \"coll_busbw_gbs\": -350}}\n"
      "{\"header\": {\"n_ranks\": 8, \"nnodes\": 1}, \"coll_perf\": {\"coll\": \"AllReduce\", \"coll_msg_size_bytes\": "
      "8, \"coll_exec_time_us\": -5, \"coll_algobw_gbs\": 1}}\n",
      "bad.log", bad, {});
  ASSERT_EQ(bad.unread.size(), 6u);
  EXPECT_NE(bad.unread[4].find("bad.log:5: coll_busbw_gbs -350: not a bandwidth of 0 or more"), std::string::npos)
      << bad.unread[4];
  EXPECT_NE(bad.unread[5].find("bad.log:6: coll_exec_time_us -5: not a time above 0"), std::string::npos);
  EXPECT_NE(bad.unread[0].find("bad.log:1: neither coll_exec_time_us nor coll_algobw_gbs"), std::string::npos);
  EXPECT_NE(bad.unread[1].find("bad.log:2: n_ranks, nnodes or coll_msg_size_bytes"), std::string::npos);
  EXPECT_TRUE(bad.points.empty());
}

TEST(Importers, NcclTestsPerIterationColumns) {
  const ResultSet s = load("nccl-tests/per-iteration.log");
  EXPECT_TRUE(s.unread.empty());
  const auto ip = with(s, "all_reduce", 1);
  ASSERT_EQ(ip.size(), 13u);
  EXPECT_DOUBLE_EQ(ip[0]->time_us, 21.42);  // the in-place time, after 4 per-iteration columns
}

TEST(Importers, NcclTestsConcatenatedRunsWithTaggedOutput) {
  const ResultSet s = load("nccl-tests/two-nodes-concatenated.log");
  EXPECT_TRUE(s.unread.empty());
  const auto ar = with(s, "all_reduce", 0), rs = with(s, "reduce_scatter", 0);
  ASSERT_EQ(ar.size(), 13u);
  ASSERT_EQ(rs.size(), 11u);
  EXPECT_EQ(ar[0]->ranks, 16);
  EXPECT_EQ(ar[0]->nodes, 2);
  EXPECT_EQ(rs[0]->ranks, 16);
  EXPECT_EQ(rs[0]->bytes, 128u);
}

TEST(Importers, NcclTestsJsonWithSamplesAndNoEnvironmentLeak) {
  const ResultSet s = load("nccl-tests/cloud-c.json");
  EXPECT_TRUE(s.unread.empty());
  ASSERT_EQ(s.points.size(), 26u);
  EXPECT_EQ(s.points[0].collective, "all_reduce");
  EXPECT_EQ(s.points[0].ranks, 8);
  EXPECT_EQ(s.points[0].samples_us.size(), 20u);
  for (const auto& [k, v] : s.environment) {
    EXPECT_EQ(k.find("AWS"), std::string::npos);
    EXPECT_EQ(v.find("do-not-copy-me"), std::string::npos);
  }
  EXPECT_EQ(s.environment.at("versions.nccl"), "2.23.9");
  // A version code that is no NCCL version is left out (a cast of 1e300 to an integer is undefined).
  std::ifstream in(kDir + "nccl-tests/cloud-c.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t at = text.find("\"nccl_version\": 22309");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 21, "\"nccl_version\": 1e300");
  const std::string file = ::testing::TempDir() + "/huge-version.json";
  std::ofstream(file) << text;
  const ResultSet huge = load_result_set("t", file, {});
  EXPECT_EQ(huge.points.size(), 26u);
  EXPECT_EQ(huge.environment.count("versions.nccl"), 0u);
}

TEST(Importers, OsuLatencyBandwidthAndPerProcessSizes) {
  const ResultSet plain = load("osu/osu_allreduce.txt");
  ASSERT_EQ(plain.points.size(), 10u);
  EXPECT_EQ(plain.points[0].dtype, "float");
  EXPECT_EQ(plain.points[0].op, "sum");
  EXPECT_EQ(plain.points[0].memory, "host");
  EXPECT_DOUBLE_EQ(plain.points[0].time_us, 3.0);
  const ResultSet full = load("osu/osu_allreduce_full.txt");
  ASSERT_EQ(full.points.size(), 10u);
  EXPECT_DOUBLE_EQ(full.points[0].time_us, 3.1);  // the Avg column, not Min or Max
  const ResultSet bw = load("osu/osu_bw.txt");
  ASSERT_FALSE(bw.points.empty());
  EXPECT_EQ(bw.points[0].collective, "uni_bw");
  EXPECT_EQ(bw.points[0].ranks, 2);
  EXPECT_DOUBLE_EQ(bw.points.back().time_us, 1048576.0 / 12000.0);  // size / (MB/s)
  const ResultSet lat = load("osu/osu_latency.txt");
  EXPECT_EQ(lat.points[0].collective, "pingpong");
  const ResultSet no_ranks = load("osu/osu_allgather.txt");
  EXPECT_TRUE(no_ranks.points.empty());
  EXPECT_TRUE(unread_has(no_ranks, "osu_allgather.txt:4: OSU all_gather: sizes are per process"))
      << no_ranks.unread.front();
  const ResultSet ranks = load("osu/osu_allgather.txt", 4);
  ASSERT_EQ(ranks.points.size(), 11u);
  EXPECT_EQ(ranks.points[1].bytes, 16u);  // 4 B per process x 4 ranks
  EXPECT_EQ(ranks.points[0].ranks, 4);
}

TEST(Importers, ImbBlocksAndProcessCounts) {
  const ResultSet s = load("imb/IMB-MPI1.txt");
  EXPECT_TRUE(unread_has(s, "IMB test 'Barrier': not one ccbench compares"));
  const auto pp = with(s, "pingpong", 0);
  ASSERT_EQ(pp.size(), 12u);
  EXPECT_EQ(pp[0]->ranks, 2);
  EXPECT_EQ(pp[0]->dtype, "uint8");
  EXPECT_DOUBLE_EQ(pp[1]->time_us, 0.35);
  const auto ar = with(s, "all_reduce", 0);
  ASSERT_EQ(ar.size(), 24u);
  EXPECT_EQ(ar[0]->ranks, 2);
  EXPECT_EQ(ar[12]->ranks, 4);
  EXPECT_EQ(ar[0]->dtype, "float");
  EXPECT_DOUBLE_EQ(ar[13]->time_us, 2.0);  // the t_avg column (t_min 0.90, t_max 1.20)
  const auto ag = with(s, "all_gather", 0);
  ASSERT_EQ(ag.size(), 12u);
  EXPECT_EQ(ag[1]->bytes, 16u);  // 4 B per process x 4
  EXPECT_EQ(s.environment.at("versions.imb"), "2021.7");
}

// Real output: OSU 5.3 and IMB-MPI1 2021.11 built from ../shared/peers and run
// on Open MPI 4.1 (tests/fixtures/compare/real/README.md has the commands).
TEST(Importers, RealOsuAndImbOutputIsReadWhole) {
  const ResultSet ar = load("real/osu-5.3-allreduce-np2.txt");
  EXPECT_TRUE(ar.unread.empty()) << ar.unread.front();
  ASSERT_EQ(ar.points.size(), 15u);  // 4 B .. 64 KiB
  EXPECT_EQ(ar.points[0].collective, "all_reduce");
  EXPECT_EQ(ar.points[0].op, "sum");
  EXPECT_EQ(ar.points[0].bytes, 4u);
  EXPECT_DOUBLE_EQ(ar.points[0].time_us, 0.17);
  EXPECT_EQ(ar.points.back().bytes, 65536u);
  EXPECT_DOUBLE_EQ(ar.points.back().time_us, 4.08);
  EXPECT_EQ(ar.environment.at("versions.osu"), "5.3");

  const ResultSet ag = load("real/osu-5.3-allgather-np3-full.txt", 3);
  EXPECT_TRUE(ag.unread.empty()) << ag.unread.front();
  ASSERT_EQ(ag.points.size(), 9u);
  EXPECT_EQ(ag.points[0].bytes, 48u);            // 16 B per process x 3
  EXPECT_DOUBLE_EQ(ag.points[0].time_us, 3.85);  // Avg Latency, not Min or Max

  const ResultSet lat = load("real/osu-5.3-latency.txt");
  EXPECT_TRUE(lat.unread.empty()) << lat.unread.front();
  ASSERT_EQ(lat.points.size(), 24u);  // 0 B, then 1 B .. 4 MiB
  EXPECT_EQ(lat.points[0].collective, "pingpong");
  EXPECT_EQ(lat.points[0].ranks, 2);
  EXPECT_EQ(lat.points[0].bytes, 0u);
  EXPECT_DOUBLE_EQ(lat.points.back().time_us, 100.15);

  const ResultSet bw = load("real/osu-5.3-bw.txt");
  EXPECT_TRUE(bw.unread.empty()) << bw.unread.front();
  ASSERT_EQ(bw.points.size(), 23u);  // 1 B .. 4 MiB
  EXPECT_EQ(bw.points[0].collective, "uni_bw");
  EXPECT_DOUBLE_EQ(bw.points.back().time_us, 4194304.0 / 54425.82);

  const ResultSet imb = load("real/IMB-MPI1-2021-np3.txt");
  ASSERT_EQ(imb.unread.size(), 1u);
  EXPECT_TRUE(unread_has(imb, "IMB test 'Barrier': not one ccbench compares")) << imb.unread.front();
  const auto pp = with(imb, "pingpong", 0);
  ASSERT_EQ(pp.size(), 12u);   // 0 B, then 4 B .. 4 KiB
  EXPECT_EQ(pp[0]->ranks, 2);  // "#processes = 2 (1 additional process waiting in MPI_Barrier)"
  EXPECT_DOUBLE_EQ(pp[1]->time_us, 1.25);
  const auto ir = with(imb, "all_reduce", 0);
  ASSERT_EQ(ir.size(), 12u);
  EXPECT_EQ(ir[1]->ranks, 3);
  EXPECT_DOUBLE_EQ(ir[1]->time_us, 3.06);  // t_avg (t_min 1.97, t_max 3.67)
  const auto ig = with(imb, "all_gather", 0);
  ASSERT_EQ(ig.size(), 12u);
  EXPECT_EQ(ig[1]->bytes, 12u);  // 4 B per process x 3
  EXPECT_EQ(imb.environment.at("versions.imb"), "2021.11");
}

TEST(Importers, CcbenchJsonlBrokenLinesAreListed) {
  const ResultSet s = load("broken/ccbench-corrupt.jsonl");
  ASSERT_EQ(s.points.size(), 1u);
  EXPECT_EQ(s.points[0].bytes, 1024u);
  EXPECT_EQ(s.points[0].path, "auto");
  EXPECT_TRUE(unread_has(s, "ccbench-corrupt.jsonl:3: not a JSON object"));
  EXPECT_TRUE(unread_has(s, "ccbench-corrupt.jsonl:4: point record without a valid collective, ranks or bytes"));
  EXPECT_TRUE(unread_has(s, "ccbench-corrupt.jsonl:5: out_of_place: time_us missing or not a positive number"));
  EXPECT_TRUE(unread_has(s, "ccbench-corrupt.jsonl:6: record type 'mystery'"));
  const ResultSet future = load("broken/ccbench-future.jsonl");
  EXPECT_TRUE(future.points.empty());
  EXPECT_TRUE(unread_has(future, ":1: run record with schema_version '9': this ccbench reads 1 to 3"));
}

// --nccl-algorithms records what NCCL chose per point; the importer keeps the
// algorithm names (the model flags a switch between rank counts with them).
TEST(Importers, CcbenchJsonlNcclAlgorithmNames) {
  const std::string file = ::testing::TempDir() + "/algorithms.jsonl";
  const std::string run =
      R"({"type":"run","schema_version":2,"config":{"collective":"all_reduce","memory_kind":"device"},)"
      R"("path":{"requested":"auto"},"ranks":8,"nodes":1})";
  const auto point = [](int bytes, const std::string& path) {
    return R"({"type":"point","collective":"all_reduce","dtype":"float","op":"sum","ranks":8,"nodes":1,"bytes":)" +
           std::to_string(bytes) + R"(,"out_of_place":{"time_us":50},"in_place":null,"path":)" + path + "}\n";
  };
  std::ofstream(file) << run << "\n"
                      << point(1024, R"({"algorithms":["TREE/LL/2ch","RING/LL128/16ch","RING/SIMPLE/8ch"]})")
                      << point(2048, R"({"algorithms":[]})")
                      << point(4096, R"({"algorithms":["NVLS/SIMPLE/16ch","\u001b[31mX/LL/1ch",7]})")
                      << point(8192, "null");
  const ResultSet s = load_result_set("t", file, {});
  ASSERT_EQ(s.points.size(), 4u) << (s.unread.empty() ? "" : s.unread[0]);
  EXPECT_EQ(s.points[0].algorithm, "RING+TREE");
  EXPECT_EQ(s.points[1].algorithm, "");
  EXPECT_EQ(s.points[2].algorithm, "NVLS");  // a name with a control character, and a number, are left out
  EXPECT_EQ(s.points[3].algorithm, "");
}

TEST(Importers, BrokenTextFilesNameFileAndLine) {
  const ResultSet rows = load("broken/truncated-rows-all_reduce.log");
  EXPECT_TRUE(unread_has(rows, "truncated-rows-all_reduce.log:25: out-of-place: time/algbw/busbw 'fast'"));
  EXPECT_TRUE(unread_has(rows, "truncated-rows-all_reduce.log:28: nccl-tests row has 3 fields, expected 9 or 13"));
  EXPECT_EQ(rows.points.size(), 26u - 2 - 1);  // row 28 lost both placements, row 25 its out-of-place
  const ResultSet json = load("broken/truncated.json");
  EXPECT_TRUE(json.points.empty());
  EXPECT_TRUE(unread_has(json, "truncated.json:1: not valid JSON here"));
  const ResultSet osu = load("broken/osu-garbage.txt");
  EXPECT_EQ(osu.points.size(), 2u);
  EXPECT_TRUE(unread_has(osu, "osu-garbage.txt:4: OSU value 'NaN' is not a positive number"));
  EXPECT_TRUE(unread_has(osu, "osu-garbage.txt:5: OSU row has 1 fields"));
  EXPECT_TRUE(unread_has(osu, "osu-garbage.txt:6: OSU value '-4'"));
  const ResultSet none = load("broken/no-collective.log");
  EXPECT_TRUE(none.points.empty());
  EXPECT_TRUE(unread_has(none, "cannot tell which collective this nccl-tests table measured"));
  const ResultSet unknown = load("broken/unknown-format.txt");
  EXPECT_TRUE(unread_has(unknown, "unknown-format.txt:1: not a result format ccbench reads"));
  const ResultSet binary = load("broken/binary.bin");
  EXPECT_TRUE(binary.points.empty());
}

TEST(Importers, FolderSkipsHiddenFilesAndKeepsGoing) {
  const ResultSet s = load("broken");
  EXPECT_EQ(s.files.size(), 8u);
  EXPECT_GT(s.points.size(), 0u);
  EXPECT_GE(s.unread.size(), 10u);
}

TEST(Importers, PathsThatCannotBeReadAtAll) {
  EXPECT_THROW(load_result_set("x", "/nonexistent/file", {}), ImportError);
  const std::string empty_dir = testing::TempDir() + "ccb-empty-dir";
  std::filesystem::create_directories(empty_dir);
  EXPECT_THROW(load_result_set("x", empty_dir, {}), ImportError);
  EXPECT_THROW(load_result_set("x", "/dev/null", {}), ImportError);  // not a regular file
}

TEST(Importers, OverlongLinesAreReportedNotRead) {
  std::string text = "# nccl-tests version 2.13.9\n# Collective test starting: all_reduce_perf\n";
  text += std::string(kMaxLine + 10, '7') + "\n";
  ResultSet s;
  import_text(text, "long.log", s, {});
  EXPECT_TRUE(unread_has(
      s, fmt::format("long.log:3: line of {} bytes: longer than {} bytes, skipped", kMaxLine + 10, kMaxLine)));
}

// What ccbench writes, ccbench reads: a point with the most samples --samples
// writes, in both placements, each sample as long as a double's text gets.
TEST(Importers, TheLongestLineCcbenchWritesIsRead) {
  RunInfo run;
  run.collective = "all_reduce";
  PointRecord p;
  p.collective = "all_reduce";
  p.dtype = "float";
  p.op = "sum";
  p.ranks = 2;
  p.nodes = 1;
  p.requested_bytes = p.bytes = 1024;
  p.count = 256;
  for (Measurement* pl : {&p.out_of_place, &p.in_place}) {
    pl->measured = true;
    pl->time_us = 1.0;
    pl->samples_us.assign(kMaxSamplesWritten, 1.2345678901234567e+300);
  }
  const std::string line = point_to_json(p).dump();
  ASSERT_GT(line.size(), std::size_t{40} << 20);  // the 1 MiB limit of earlier versions could not read it
  ASSERT_LE(line.size(), kMaxLine);
  const std::string text = run_to_json(run).dump() + "\n" + line + "\n";
  ResultSet s;
  import_text(text, "samples.jsonl", s, {});
  EXPECT_TRUE(s.unread.empty()) << s.unread.front();
  ASSERT_EQ(s.points.size(), 2u);
  EXPECT_EQ(s.points[0].samples_us.size(), kMaxSamplesWritten);
}

TEST(Importers, NumbersAreStrict) {
  EXPECT_FALSE(parse_double("nan"));
  EXPECT_FALSE(parse_double("inf"));
  EXPECT_FALSE(parse_double("1e999"));
  EXPECT_FALSE(parse_double("12abc"));
  EXPECT_EQ(parse_double("1.5e+03"), 1500.0);
  EXPECT_FALSE(parse_uint("-3"));
  EXPECT_FALSE(parse_uint("99999999999999999999999"));
  EXPECT_EQ(strip_mpirun_tag("[1,0]<stdout>:   8  2 float"), "   8  2 float");
  EXPECT_EQ(quote_value(std::string("a\x01z")), "'a?z'");
}

}  // namespace
}  // namespace ccb

namespace ccb {
namespace {

TEST(Importers, CollectiveFromFileNamesPeopleGive) {
  EXPECT_EQ(collective_in_filename("runs/allreduce.log"), "all_reduce");  // never "reduce"
  EXPECT_EQ(collective_in_filename("all-reduce.txt"), "all_reduce");
  EXPECT_EQ(collective_in_filename("AllReduce_8n.out"), "all_reduce");
  EXPECT_EQ(collective_in_filename("all_reduce_perf.log"), "all_reduce");
  EXPECT_EQ(collective_in_filename("ar.txt"), "all_reduce");
  EXPECT_EQ(collective_in_filename("reduce_scatter-16n.log"), "reduce_scatter");
  EXPECT_EQ(collective_in_filename("reduce.log"), "reduce");
  EXPECT_EQ(collective_in_filename("a2a_64gpus.txt"), "alltoall");
  EXPECT_EQ(collective_in_filename("bcast.out"), "broadcast");
  EXPECT_EQ(collective_in_filename("allreduce_vs_allgather.log"), "");  // two: ambiguous
  EXPECT_EQ(collective_in_filename("results_8n.txt"), "");
  EXPECT_EQ(collective_in_filename("scatter/allgather.log"), "all_gather");  // the file name, not the folder
}

std::string write_temp(const std::string& dir, const std::string& name, const std::string& text) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/" + name) << text;
  return dir + "/" + name;
}

TEST(Importers, CcbenchCsvAndTableTextAreReadAsCcbench) {
  const std::string dir = ::testing::TempDir() + "ccbench-own-formats";
  std::filesystem::remove_all(dir);
  const std::string csv = write_temp(
      dir, "solo.csv",
      "collective,backend,path_requested,path_observed,memory_kind,dtype,op,root,ranks,nodes,placement,bytes,count,"
      "iterations,time_us,time_source,algbw_gbps,busbw_gbps,pipelined_us,p50_us,p90_us,p99_us,min_us,max_us,mean_us,"
      "stddev_us,ci95_lo_us,ci95_hi_us,wrong\n"
      "all_gather,mpi,tcp,tcp,host,float,,,4,2,out_of_place,4096,256,20,12.5,\"pipelined, mean over ranks\",0.33,0.25,"
      "12.5,12,13,14,11,15,12.4,0.5,,,0\n");
  ResultSet s;
  EXPECT_EQ(import_text(std::string(read_head(csv, 1 << 16)), csv, s, {}), Format::ccbench_csv);
  ASSERT_EQ(s.points.size(), 1u);
  EXPECT_EQ(s.points[0].collective, "all_gather");
  EXPECT_EQ(s.points[0].path, "tcp");
  EXPECT_EQ(s.points[0].memory, "host");
  EXPECT_EQ(s.points[0].nodes, 2);
  EXPECT_DOUBLE_EQ(s.points[0].time_us, 12.5);
  EXPECT_EQ(s.environment["config.backend"], "mpi");
  EXPECT_EQ(s.environment["tool"], "ccbench (CSV)");

  const std::string table =
      write_temp(dir, "any-name.txt",
                 "# ccbench 0.1.0 (abc): alltoall backend mpi (default: no GPU visible) memory host\n"
                 "#  ranks 2 nodes 2 iters 20 warmup iters 1 check 1 timing both clock x agg 1 window 64\n"
                 "#  path requested shm observed shm\n"
                 "#  Rank  0 Pid 1 on a cpu 0 bound 0\n#  Rank  1 Pid 2 on b cpu 0 bound 0\n"
                 "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   "
                 "algbw   busbw  #wrong\n"
                 "        1024           128     float    none      -1     2.50    0.41    0.20       0     2.60    "
                 "0.39    0.20       0\n");
  ResultSet t;
  EXPECT_EQ(import_text(std::string(read_head(table, 1 << 16)), table, t, {}), Format::ccbench_table);
  ASSERT_EQ(t.points.size(), 2u);
  EXPECT_EQ(t.points[0].collective, "alltoall");  // from the header, not the file name
  EXPECT_EQ(t.points[0].memory, "host");
  EXPECT_EQ(t.points[0].path, "shm");
  EXPECT_EQ(t.points[0].ranks, 2);
  EXPECT_EQ(t.points[0].nodes, 2);
  EXPECT_EQ(t.environment["tool"], "ccbench 0.1.0 (table text)");
  EXPECT_EQ(t.environment.count("versions.nccl_tests"), 0u);

  // Beside a.jsonl, a.csv and a.txt are the same run: skipped and said so.
  write_temp(dir + "/run", "a.csv", std::string(read_head(csv, 1 << 16)));
  write_temp(dir + "/run", "a.txt", std::string(read_head(table, 1 << 16)));
  write_temp(dir + "/run", "a.jsonl", "");
  const ResultSet folder = load_result_set("f", dir + "/run", {});
  EXPECT_EQ(folder.skipped.size(), 2u);
  std::filesystem::remove_all(dir);
}

// --mpi-calls: which MPI calls the mpi backend timed keys the series; records
// written before the option were of the blocking calls.
TEST(Importers, WhichMpiCallsWereTimed) {
  const std::string dir = ::testing::TempDir() + "ccbench-mpi-calls";
  std::filesystem::remove_all(dir);
  const auto jsonl = [&](const std::string& name, const std::string& config) {
    return write_temp(dir, name,
                      R"({"type":"run","schema_version":3,"config":{"collective":"all_reduce",)" + config +
                          R"(},"ranks":2,"nodes":1})"
                          "\n"
                          R"({"type":"point","collective":"all_reduce","dtype":"float","op":"sum","ranks":2,)"
                          R"("nodes":1,"bytes":1024,"out_of_place":{"time_us":5},"in_place":null})"
                          "\n");
  };
  const std::pair<std::string, std::string> cases[] = {
      {R"("backend":"mpi","mpi_calls":"nonblocking")", "nonblocking"},
      {R"("backend":"mpi","mpi_calls":"blocking")", "blocking"},
      {R"("backend":"mpi")", "blocking"},  // before --mpi-calls
      {R"("backend":"nccl","mpi_calls":null)", ""},
  };
  int n = 0;
  for (const auto& [config, want] : cases) {
    const ResultSet s = load_result_set("t", jsonl(fmt::format("r{}.jsonl", n++), config), {});
    ASSERT_EQ(s.points.size(), 1u) << config << (s.unread.empty() ? "" : s.unread[0]);
    EXPECT_EQ(s.points[0].mpi_calls, want) << config;
  }
  const std::string head =
      "# ccbench 0.1.0 (abc): all_reduce backend mpi memory host{}\n"
      "#  ranks 2 nodes 1 iters 20 warmup iters 1 check 1 timing both clock x agg 1 window 64\n"
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong\n"
      "        1024           256     float     sum      -1     2.50    0.41    0.41       0\n";
  for (const auto& [suffix, want] :
       {std::pair<std::string, std::string>{" calls nonblocking", "nonblocking"}, {"", "blocking"}}) {
    const std::string file = write_temp(dir, fmt::format("t{}.txt", n++), fmt::format(fmt::runtime(head), suffix));
    ResultSet t;
    EXPECT_EQ(import_text(std::string(read_head(file, 1 << 16)), file, t, {}), Format::ccbench_table);
    ASSERT_FALSE(t.points.empty());
    EXPECT_EQ(t.points[0].mpi_calls, want) << suffix;
  }
  std::filesystem::remove_all(dir);
}

TEST(Importers, CollectiveGivenForTextThatNamesNone) {
  const std::string dir = ::testing::TempDir() + "ccbench-named";
  std::filesystem::remove_all(dir);
  const std::string text =
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  "
      "#wrong\n"
      "        1024           256     float     sum      -1     2.50    0.41    0.72       0     2.60    0.39    0.69  "
      "     0\n";
  const std::string file = write_temp(dir, "results_8n.txt", text);
  ResultSet none;
  import_text(text, file, none, {});
  EXPECT_TRUE(none.points.empty());
  ASSERT_FALSE(none.unread.empty());
  EXPECT_NE(none.unread[0].find("compare --collective LABEL=NAME"), std::string::npos);
  ImportOptions o;
  o.collective = "all_reduce";
  ResultSet named;
  import_text(text, file, named, o);
  ASSERT_EQ(named.points.size(), 2u);
  EXPECT_EQ(named.points[0].collective, "all_reduce");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ccb
