// The comparator's two performance targets, each next to a baseline measured
// in the same run:
//  1. compare two sets of 1,000,000 points each (alignment, ratios, per-series
//     facts, the report model and the CSV of every point) -- target < 2 s;
//     baseline: std::sort of the same 2,000,000 (key, size) pairs;
//  2. import nccl-tests text -- target >= 100 MB/s; baseline: counting the
//     lines of the same bytes with memchr (the cost of touching them once).
// Usage: bench_compare [points_per_set] [import_megabytes]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/compare/comparison.hpp"
#include "results/import/importer.hpp"
#include "analysis/report/render.hpp"
#include "analysis/report/report.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

ccb::ResultSet synthetic(const std::string& label, std::size_t n, double speed, unsigned seed) {
  static const char* collectives[] = {"all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast"};
  static const char* dtypes[] = {"float", "half", "bfloat16", "int8"};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> noise(0.97, 1.03);
  ccb::ResultSet s;
  s.label = label;
  s.points.reserve(n);
  const std::size_t sizes = 1000;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t series = i / sizes;
    ccb::ImportedPoint p;
    p.collective = collectives[series % 5];
    p.dtype = dtypes[series / 5 % 4];
    p.op = "sum";
    p.path = "auto";
    p.memory = "device";
    p.ranks = 2 + static_cast<int>(series / 20);
    p.nodes = 1;
    p.in_place = 0;
    p.bytes = 8 * (i % sizes + 1);
    p.time_us = (5 + static_cast<double>(p.bytes) / 1e4) / speed * noise(rng);
    p.busbw_gbps = static_cast<double>(p.bytes) / (p.time_us * 1e3);
    s.points.push_back(std::move(p));
  }
  return s;
}

std::string nccl_tests_log(std::size_t megabytes) {
  std::string text;
  const std::string header =
      "# nccl-tests version 2.13.9 nccl-headers=22309 nccl-library=22309\n# Collective test starting: all_reduce_perf\n"
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20\n#\n# Using "
      "devices\n"
      "#  Rank  0 Group  0 Pid  41000 on    dgx-a01 device  0 [0000:18:00] NVIDIA H100 80GB HBM3\n"
      "#  Rank  1 Group  0 Pid  41001 on    dgx-a01 device  1 [0000:19:00] NVIDIA H100 80GB HBM3\n#\n"
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  "
      "#wrong\n";
  while (text.size() < megabytes << 20) {
    text += header;
    for (std::size_t s = 8, k = 0; s <= (std::size_t{1} << 27); s *= 2, ++k)
      text += fmt::format(
          "{:>12}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7.2f}  {:>6.2f}  {:>6.2f}  {:>6}  {:>7.2f}  {:>6.2f}  {:>6.2f}  "
          "{:>6}\n",
          s, s / 4, "float", "sum", -1, 20.0 + k, 0.5 * k, 0.5 * k, 0, 20.5 + k, 0.5 * k, 0.5 * k, 0);
    text += "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 100.5\n#\n";
  }
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::stoul(argv[1]) : 1000000;
  const std::size_t mb = argc > 2 ? std::stoul(argv[2]) : 200;

  // 1. compare
  ccb::ResultSet a = synthetic("bare-metal", n, 1.0, 1), b = synthetic("cloud", n, 0.9, 2);
  b.points.erase(b.points.begin() + static_cast<std::ptrdiff_t>(n / 2));  // one point only in the baseline
  std::vector<std::tuple<std::string, std::string, int, std::uint64_t>> keys;
  keys.reserve(2 * n);
  for (const auto* s : {&a, &b})
    for (const auto& p : s->points) keys.emplace_back(p.collective, p.dtype, p.ranks, p.bytes);
  std::shuffle(keys.begin(), keys.end(), std::mt19937(3));
  auto t = Clock::now();
  std::sort(keys.begin(), keys.end());
  const double sort_s = since(t);
  t = Clock::now();
  std::vector<ccb::ResultSet> sets;
  sets.push_back(std::move(a));
  sets.push_back(std::move(b));
  const ccb::Comparison c = ccb::compare_sets(std::move(sets), {});
  const double align_s = since(t);
  t = Clock::now();
  const ccb::Report r = ccb::build_report(c, {}, {});
  const double model_s = since(t);
  t = Clock::now();
  const std::string csv_path = "/tmp/ccbench-bench-compare.csv";
  std::FILE* csv = std::fopen(csv_path.c_str(), "w");
  ccb::write_csv(c, csv);
  const long csv_bytes = std::ftell(csv);
  std::fclose(csv);
  std::remove(csv_path.c_str());
  const double csv_s = since(t);
  fmt::print("compare: {} + {} points, {} aligned in {} series\n", n, n - 1, c.pairs[0].aligned,
             c.pairs[0].series.size());
  fmt::print("  baseline  std::sort of the {} (collective, dtype, ranks, size) keys: {:.3f} s\n", keys.size(), sort_s);
  fmt::print(
      "  ccbench   align + statistics {:.3f} s + report model {:.3f} s = {:.3f} s (target < 2 s; {:.2f}x the sort); "
      "writing the CSV of every point ({} MB) {:.3f} s more\n",
      align_s, model_s, align_s + model_s, (align_s + model_s) / sort_s, csv_bytes >> 20, csv_s);

  // 2. import
  const std::string log = nccl_tests_log(mb);
  t = Clock::now();
  std::size_t lines = 0;
  for (const char* p = log.data(); (p = static_cast<const char*>(std::memchr(p, '\n', log.data() + log.size() - p)));
       ++p)
    ++lines;
  const double scan_s = since(t);
  ccb::ResultSet imported;
  t = Clock::now();
  ccb::import_text(log, "bench.log", imported, {});
  const double import_s = since(t);
  const double mbytes = static_cast<double>(log.size()) / 1e6;
  fmt::print("import: nccl-tests text, {:.0f} MB, {} lines, {} points, {} unread\n", mbytes, lines,
             imported.points.size(), imported.unread.size());
  fmt::print("  baseline  memchr line scan {:.0f} MB/s\n", mbytes / scan_s);
  fmt::print("  ccbench   import {:.0f} MB/s (target >= 100 MB/s)\n", mbytes / import_s);
  return 0;
}
