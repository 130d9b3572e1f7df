#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "results/expectation.hpp"
#include "results/json_records.hpp"
#include "results/schema.hpp"
#include "results/writers.hpp"
#include "harness/run_outputs.hpp"
#include "common/errors.hpp"

namespace ccb {
namespace {

RunInfo sample_run() {
  RunInfo r;
  r.ccbench_version = "0.1.0";
  r.collective = "all_reduce";
  r.backend = "mpi";
  r.memory_kind = "host";
  r.path_requested = "auto";
  r.path_observed = "shm";
  r.dtypes = {"float"};
  r.ops = {"sum"};
  r.ranks = 2;
  r.placement.resize(2);
  for (int k = 0; k < 2; ++k) {
    r.placement[k].rank = r.placement[k].local_rank = k;
    r.placement[k].host = "h0";
    r.placement[k].pid = 10 + k;
    r.placement[k].bound_cpus = "0-1";
  }
  r.environment = {{"OMPI_X", "1"}};
  return r;
}

PointRecord sample_point() {
  PointRecord p;
  p.collective = "all_reduce";
  p.dtype = "float";
  p.op = "sum";
  p.ranks = 2;
  p.bytes = 1024;
  p.count = 256;
  p.iterations = 20;
  p.out_of_place.measured = true;
  p.out_of_place.time_us = 12.5;
  p.out_of_place.algbw_gbps = 0.08192;
  p.out_of_place.busbw_gbps = 0.08192;
  p.out_of_place.wrong = 0;
  p.out_of_place.pipelined_us = 12.5;
  p.out_of_place.per_iteration_us = summarize({12, 13, 14, 15, 16, 17, 18});
  p.in_place = p.out_of_place;
  return p;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

TEST(Writers, TimeFormatFollowsNcclTests) {
  EXPECT_EQ(format_time_us(12.345), "  12.35");
  EXPECT_EQ(format_time_us(123.45), " 123.45");  // nccl-tests' getFloatStr: the most decimals that fit
  EXPECT_EQ(format_time_us(12345.6), "12345.6");
  EXPECT_EQ(format_time_us(1234567.8), "1234568");
  EXPECT_EQ(format_time_us(123456789.0), "1.2e+08");
}

// Issue 67: a slow link's busbw is measured, never printed as 0.00; what
// nccl-tests prints as a number keeps its format.
TEST(Writers, AMeasuredBandwidthIsNeverPrintedAsZero) {
  EXPECT_EQ(format_gbps_column(12.345), " 12.35");
  EXPECT_EQ(format_gbps_column(0.006), "  0.01");
  EXPECT_EQ(format_gbps_column(0.0042), "0.0042");
  EXPECT_EQ(format_gbps_column(0.0000421), "4.2e-5");  // within the column's 6 characters
  EXPECT_EQ(format_gbps_column(0.00069), "6.9e-4");
  EXPECT_EQ(format_gbps_column(4.2e-12), " 4e-12");
  EXPECT_EQ(format_gbps_column(0), "  0.00");  // one rank's all_reduce: busbw is 0 by definition
  for (double v = 1e-7; v < 1; v *= 1.7) {
    const std::string text = format_gbps_column(v);
    EXPECT_EQ(text.size(), 6u) << text;
    EXPECT_GT(std::stod(text), 0) << text;
    EXPECT_NEAR(std::stod(text) / v, 1, v < 0.005 ? 0.05 : 0.005 / v + 1e-9) << text;
  }
  EXPECT_GT(std::stod(format_time_us(0.0031)), 0);
}

TEST(Writers, TableHasNcclTestsShape) {
  char* buf = nullptr;
  std::size_t len = 0;
  std::FILE* mem = open_memstream(&buf, &len);
  auto w = make_table_writer(mem, false);
  w->begin(sample_run());
  w->point(sample_point());
  EndInfo e;
  e.points = 1;
  e.avg_busbw_gbps = 0.08192;
  w->end(e);
  std::fclose(mem);
  const std::string out(buf, len);
  std::free(buf);
  EXPECT_NE(out.find("#wrong"), std::string::npos);
  EXPECT_NE(out.find("# Out of bounds values : 0 OK"), std::string::npos);
  EXPECT_NE(out.find("# Avg bus bandwidth    : 0.08192"), std::string::npos);
  // A data row: size count type redop root, then time algbw busbw #wrong twice.
  std::istringstream rows(out);
  std::string line;
  int data_rows = 0;
  while (std::getline(rows, line)) {
    if (line.empty() || line[0] == '#') continue;
    ++data_rows;
    std::istringstream f(line);
    std::vector<std::string> cols;
    for (std::string c; f >> c;) cols.push_back(c);
    ASSERT_EQ(cols.size(), 13u) << line;
    EXPECT_EQ(cols[0], "1024");
    EXPECT_EQ(cols[2], "float");
    EXPECT_EQ(cols[5], "12.50");
    EXPECT_EQ(cols[8], "0");
  }
  EXPECT_EQ(data_rows, 1);
}

TEST(Writers, JsonLinesFollowTheSchema) {
  const std::string path = ::testing::TempDir() + "/ccbench_test.jsonl";
  {
    auto w = make_jsonl_writer(path);
    w->begin(sample_run());
    w->point(sample_point());
    EndInfo e;
    e.status = "completed";
    w->end(e);
  }
  EXPECT_EQ(validate_jsonl_file(path), "");
  const std::string text = read_file(path);
  const auto point = nlohmann::json::parse(
      text.substr(text.find('\n') + 1, text.find('\n', text.find('\n') + 1) - text.find('\n') - 1));
  EXPECT_EQ(point["bytes"], 1024);
  EXPECT_EQ(point["out_of_place"]["per_iteration"]["n"], 7);
  EXPECT_EQ(point["out_of_place"]["per_iteration"]["ci95_median_us"][0], 12.0);
}

// A point whose in-place run was not possible and whose transports differ
// from the request: comment lines in the table, notes and path in JSON.
PointRecord nccl_point() {
  PointRecord p = sample_point();
  p.in_place = Measurement{};
  p.in_place.note = "not measured: NCCL has no avg for fp8 data";
  p.path_classes = std::vector<std::string>{"p2p", "tcp"};
  p.transports = {"NET/Socket/0", "P2P/IPC"};
  p.path_warning = "requested rdma, but NCCL used tcp (observed: p2p, tcp)";
  return p;
}

// Issue 68: notes, traffic and path lines come after nccl-tests' footer,
// each naming its row, so that the data rows stay unbroken.
TEST(Writers, TableShowsNotesAndPathChangesAfterTheFooter) {
  char* buf = nullptr;
  std::size_t len = 0;
  std::FILE* mem = open_memstream(&buf, &len);
  auto w = make_table_writer(mem, false);
  w->begin(sample_run());
  w->point(nccl_point());
  w->point(nccl_point());             // unchanged transports: no second path line
  PointRecord traced = nccl_point();  // --nccl-algorithms: this point's own
  traced.transports_per_point = true;
  traced.algorithms = {"RING/LL/2ch", "TREE/LL/1ch"};
  w->point(traced);
  traced.algorithms.clear();  // point-to-point operations log no algorithm
  w->point(traced);
  w->end(EndInfo{});
  std::fclose(mem);
  const std::string out(buf, len);
  std::free(buf);
  const std::size_t concluded = out.find("# Collective test concluded: all_reduce_perf\n");
  ASSERT_NE(concluded, std::string::npos) << out;
  EXPECT_GT(out.find("#  1024 B float sum in-place not measured: NCCL has no avg for fp8 data"), concluded) << out;
  const std::string warning = " -- WARNING: requested rdma, but NCCL used tcp (observed: p2p, tcp)";
  const std::string path_line = "#  1024 B float sum path observed (set up so far): NET/Socket/0, P2P/IPC" + warning;
  ASSERT_NE(out.find(path_line), std::string::npos) << out;
  EXPECT_GT(out.find(path_line), concluded);
  EXPECT_EQ(out.find(path_line, out.find(path_line) + 1), std::string::npos);
  EXPECT_NE(out.find("path observed (used by this point; NCCL chose RING/LL/2ch, TREE/LL/1ch): NET/Socket/0, P2P/IPC" +
                     warning),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("path observed (used by this point; no algorithm logged: point-to-point): NET/Socket/0, P2P/IPC"),
            std::string::npos)
      << out;
  // The four rows follow each other with no line between them.
  std::istringstream lines(out);
  std::string line, kinds;
  while (std::getline(lines, line)) kinds += line.empty() || line[0] == '#' ? '#' : 'r';
  EXPECT_NE(kinds.find("#rrrr#"), std::string::npos) << out;
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), 'r'), 4);
}

// Issue 68: nccl-tests' header lines first, in its order and format.
TEST(Writers, TableHeaderIsNcclTestsLineForLine) {
  char* buf = nullptr;
  std::size_t len = 0;
  std::FILE* mem = open_memstream(&buf, &len);
  auto w = make_table_writer(mem, false);
  RunInfo r = sample_run();
  r.nccl_headers = r.nccl = "2.28.9";
  r.min_bytes = 8, r.max_bytes = 1024, r.step_factor = 2, r.warmup = 1, r.iterations = 20, r.check_iterations = 1;
  r.blocking_requested = 3;
  r.placement[1].devices = {0, 1};  // -g 2: one line per rank
  w->begin(r);
  std::fclose(mem);
  const std::string out(buf, len);
  std::free(buf);
  const std::string expected =
      "# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809 ccbench=0.1.0\n"
      "# Collective test starting: all_reduce_perf\n"
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 1024 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 "
      "validation: 1 graph: 0 unalign: 0\n"
      "# Blocking Enabled: wait and barrier after each outer iteration (-n); time excludes barrier \n"
      "#\n"
      "# Using devices\n"
      "#  Rank  0 Group  0 Pid     10 on         h0 device -1 [host] host memory\n"
      "#  Rank  1 Group  0 Pid     11 on         h0 device  0 [unknown] unknown\n"
      "#  Rank  2 Group  0 Pid     11 on         h0 device  1 [unknown] unknown\n"
      "#\n"
      "# ccbench 0.1.0 (): all_reduce backend mpi memory host\n";
  EXPECT_EQ(out.substr(0, expected.size()), expected);
  EXPECT_NE(out.find("\n#                                                              out-of-place                 "
                     "      in-place          \n#       size         count      type   redop    root     time   algbw "
                     "  busbw  #wrong     time   algbw   busbw  #wrong \n"),
            std::string::npos)
      << out;
}

TEST(Writers, JsonCarriesNotesAndPath) {
  const auto j = point_to_json(nccl_point());
  EXPECT_EQ(validate_record(j), "");
  EXPECT_TRUE(j["in_place"].is_null());
  EXPECT_EQ(j["notes"][0], "in_place: not measured: NCCL has no avg for fp8 data");
  EXPECT_EQ(j["path"]["observed"][1], "tcp");
  EXPECT_EQ(j["path"]["scope"], "so far");
  EXPECT_TRUE(j["path"]["algorithms"].empty());
  EXPECT_EQ(j["path"]["warning"], "requested rdma, but NCCL used tcp (observed: p2p, tcp)");
  EXPECT_TRUE(point_to_json(sample_point())["path"].is_null());
}

TEST(Writers, SchemaCheckCatchesBrokenRecords) {
  EXPECT_NE(validate_record(nlohmann::json::object()), "");
  auto p = point_to_json(sample_point());
  EXPECT_EQ(validate_record(p), "");
  p.erase("bytes");
  EXPECT_NE(validate_record(p).find("missing \"bytes\""), std::string::npos);
  auto r = run_to_json(sample_run());
  r["schema_version"] = 99;
  EXPECT_NE(validate_record(r).find("schema_version"), std::string::npos);
  const std::string path = ::testing::TempDir() + "/ccbench_truncated.jsonl";
  {
    std::ofstream f(path);
    f << run_to_json(sample_run()).dump() << "\n" << point_to_json(sample_point()).dump() << "\n";
  }
  EXPECT_NE(validate_jsonl_file(path).find("no \"end\" record"), std::string::npos);
}

TEST(Writers, CsvRowPerPlacement) {
  const std::string path = ::testing::TempDir() + "/ccbench_test.csv";
  {
    auto w = make_csv_writer(path);
    w->begin(sample_run());
    w->point(sample_point());
    w->end(EndInfo{});
  }
  const std::string text = read_file(path);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);
  EXPECT_NE(text.find("all_reduce,mpi,auto,shm,host,float,sum,,2,1,out_of_place,1024,256,20,12.5"), std::string::npos);
}

// OSU's and IMB's combination (each rank's mean, then min/avg/max over ranks)
// in the JSON and CSV, and the schema check rejects values that cannot be.
TEST(Writers, RankMeansAsOsuAndImbPrintThem) {
  PointRecord p = sample_point();  // per-iteration samples 12..18 us: mean 15
  p.out_of_place.rank_means = RankMeans{13.5, 14.25, 15};
  const auto j = point_to_json(p);
  EXPECT_EQ(validate_record(j), "");
  EXPECT_EQ(j["out_of_place"]["rank_means"]["avg_us"], 14.25);
  EXPECT_TRUE(j["in_place"]["rank_means"].is_null());
  auto swapped = j;
  swapped["out_of_place"]["rank_means"]["min_us"] = 14.5;  // above the average
  EXPECT_NE(validate_record(swapped).find("min 14.5 <= avg 14.25 <= max 15 does not hold"), std::string::npos)
      << validate_record(swapped);
  auto above = j;
  above["out_of_place"]["rank_means"]["max_us"] = 15.5;  // a rank's mean above the mean of the maxima
  EXPECT_NE(validate_record(above).find("max 15.5 above per_iteration.mean_us 15"), std::string::npos)
      << validate_record(above);
  auto old = j;
  old["out_of_place"].erase("rank_means");  // files written before the field existed
  EXPECT_EQ(validate_record(old), "");

  const std::string path = ::testing::TempDir() + "/ccbench_rank_means.csv";
  {
    auto w = make_csv_writer(path);
    w->begin(sample_run());
    w->point(p);
  }
  const std::string text = read_file(path);
  EXPECT_NE(text.find(",wrong,rank_mean_min_us,rank_mean_avg_us,rank_mean_max_us,groups,busbw_limit_gbps,"
                      "busbw_share_of_limit\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(",0,13.5,14.25,15,1,,\n"), std::string::npos) << text;  // out-of-place; no limit known
  EXPECT_NE(text.find(",0,,,,1,,\n"), std::string::npos) << text;             // in-place: none
}

// The point's limit travels in the point record and the CSV, with the share
// of it computed by the one definition (share_of_limit); none where busbw
// means nothing.
TEST(Writers, ThePointsLimitAndItsShareAreInTheRecordAndTheCsv) {
  PointRecord p = sample_point();
  p.out_of_place.busbw_gbps = 3;
  p.busbw_limit_gbps = 12;
  EXPECT_EQ(point_to_json(p)["busbw_limit_gbps"], 12.0);
  EXPECT_TRUE(point_to_json(sample_point())["busbw_limit_gbps"].is_null());
  const std::string path = ::testing::TempDir() + "/ccbench_limit.csv";
  for (bool meaningful : {true, false}) {
    p.busbw_meaningful = meaningful;
    {
      auto w = make_csv_writer(path);
      w->begin(sample_run());
      w->point(p);
    }
    const std::string text = read_file(path);
    const std::string row = text.substr(text.find('\n') + 1);
    const std::string tail = row.substr(0, row.find('\n'));
    EXPECT_TRUE(tail.ends_with(meaningful ? ",12,0.25" : ",,")) << text;
  }
  EXPECT_TRUE(std::isnan(share_of_limit(3, std::numeric_limits<double>::quiet_NaN())));
  EXPECT_TRUE(std::isnan(share_of_limit(3, 0)));
  EXPECT_DOUBLE_EQ(share_of_limit(3, 12), 0.25);
}

TEST(Writers, CsvQuotesFieldsWithCommas) {
  const std::string path = ::testing::TempDir() + "/ccbench_quoted.csv";
  PointRecord p = sample_point();
  p.out_of_place.time_source = "pipelined, mean over ranks";
  {
    auto w = make_csv_writer(path);
    w->begin(sample_run());
    w->point(p);
  }
  const std::string text = read_file(path);
  EXPECT_NE(text.find(",12.5,\"pipelined, mean over ranks\","), std::string::npos) << text;
}

TEST(Writers, UnwritablePathIsAUsageError) { EXPECT_ANY_THROW(make_jsonl_writer("/nonexistent-dir/x.jsonl")); }

// What the sweep's --history / --prom writer does at the end of a run
// (commands/run_exports.cpp), with the outcome given: RunOutputs' order is
// what is tested here.
class EndExport final : public Writer {
 public:
  explicit EndExport(std::string fails) : fails_(std::move(fails)) {}
  void begin(const RunInfo&) override {}
  void point(const PointRecord&) override {}
  void end(const EndInfo&) override { error_ = fails_; }
  std::string error() const override { return error_; }
  bool exports_at_end() const override { return true; }

 private:
  std::string fails_, error_;
};

// The end record of a run whose export failed (or not), as -J writes it.
nlohmann::json end_record_with_export(const std::string& fails, const char* status) {
  const std::string path = ::testing::TempDir() + "/ccbench_export_end.jsonl";
  {
    std::vector<std::unique_ptr<Writer>> writers;
    writers.push_back(make_jsonl_writer(path));  // before the export in the list, ended after it
    writers.push_back(std::make_unique<EndExport>(fails));
    RunOutputs outputs(0, std::move(writers), nullptr);
    outputs.begin(sample_run());
    EndInfo e;
    e.status = status;
    e.exit_code = std::string(status) == "wrong_data" ? kExitWrongData : kExitOk;
    outputs.finish(e);
  }
  EXPECT_EQ(validate_jsonl_file(path), "");
  const std::string text = read_file(path);
  const std::size_t last = text.rfind('\n', text.size() - 2);
  return nlohmann::json::parse(text.substr(last + 1));
}

TEST(RunOutputs, TheEndRecordSaysWhenAnExportOfTheRunFailed) {
  const nlohmann::json failed = end_record_with_export("--history h.db: disk full", "completed");
  EXPECT_EQ(failed["status"], "completed");  // what was measured stands
  EXPECT_EQ(failed["exit_code"], kExitOutput);
  EXPECT_EQ(failed["export_errors"], nlohmann::json::array({"--history h.db: disk full"}));
  EXPECT_EQ(end_record_with_export("--prom p.prom: gone", "wrong_data")["exit_code"], kExitOutput);
  const nlohmann::json fine = end_record_with_export("", "completed");
  EXPECT_EQ(fine["exit_code"], kExitOk);
  EXPECT_FALSE(fine.contains("export_errors"));
}

}  // namespace ccb
