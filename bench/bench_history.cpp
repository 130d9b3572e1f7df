// The history's speed and its change-point detection's accuracy
// (docs/history.md has the figures):
//   bench_history [DB]   adds 1,000,000 points (5,000 runs x 200 series) to a
//                        fresh database, then runs change-point detection over
//                        1,000 series of 200 runs; and scores detection on
//                        generated series at noise 2%, 5% and 10%.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "analysis/history/change_points.hpp"
#include "analysis/history/history_db.hpp"
#include "analysis/history/series_generator.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

void time_adding(const std::string& path) {
  std::remove(path.c_str());
  std::remove((path + "-wal").c_str());
  std::remove((path + "-shm").c_str());
  ccb::HistoryDb db(path, ccb::HistoryDb::Access::write);
  constexpr int kRuns = 5000, kSeries = 200;
  const auto t = Clock::now();
  for (int r = 0; r < kRuns; ++r) {
    if (r % 256 == 0) db.begin_batch();  // as history add batches files
    ccb::HistoryRun run;
    run.sha256 = fmt::format("{:064x}", r);
    run.source = fmt::format("run-{}.jsonl", r);
    run.format = "bench";
    run.started_at = fmt::format("2026-01-01T00:00:{:02d}.{:06d}Z", r / 1000000, r % 1000000);
    run.time_basis = "record";
    for (int s = 0; s < kSeries; ++s) {
      ccb::HistoryValue v;
      v.key.collective = "all_reduce";
      v.key.dtype = "float";
      v.key.bytes = std::uint64_t{1} << (s % 30);
      v.key.hosts = fmt::format("node-{:03d}", s / 30);
      v.key.ranks = 8;
      v.time_us = 10 + s;
      v.busbw_gbps = 100;
      run.values.push_back(v);
    }
    db.add(run);
    if (r % 256 == 255 || r + 1 == kRuns) db.commit_batch();
  }
  const double s = seconds_since(t);
  fmt::print("add: {} points ({} runs x {} series) in {:.2f} s ({:.0f} points/s)\n", kRuns * kSeries, kRuns, kSeries, s,
             kRuns * kSeries / s);
}

void time_detection() {
  ccb::SeriesShape shape;
  shape.length = 200;
  shape.max_steps = 4;
  std::vector<std::vector<double>> all;
  for (std::uint64_t seed = 1; seed <= 1000; ++seed) all.push_back(ccb::generate_series(seed, shape).values);
  ccb::ChangePointOptions o;
  o.log_scale = true;  // as history changes runs it
  const auto t = Clock::now();
  std::size_t found = 0;
  for (const auto& x : all) found += ccb::change_points(x, o).size();
  fmt::print("changes: 1000 series x 200 runs in {:.3f} s ({} change points)\n", seconds_since(t), found);
}

void score(double noise) {
  ccb::SeriesShape shape;
  shape.noise = noise;
  ccb::ChangePointOptions o;
  o.log_scale = true;
  ccb::DetectionScore s, near;  // hit within 1 run; within 3
  for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
    const ccb::GeneratedSeries g = ccb::generate_series(seed, shape);
    const auto found = ccb::change_points(g.values, o);
    ccb::score_detection(g.steps, found, 1, s);
    ccb::score_detection(g.steps, found, 3, near);
  }
  fmt::print(
      "noise {:>3.0f}%: precision {:.3f} recall {:.3f} ({} found right, {} false, {} missed); within 3 runs: "
      "precision {:.3f} recall {:.3f}\n",
      noise * 100, s.precision(), s.recall(), s.true_positive, s.false_positive, s.false_negative, near.precision(),
      near.recall());
}

}  // namespace

int main(int argc, char** argv) {
  time_adding(argc > 1 ? argv[1] : "/tmp/bench-history.db");
  time_detection();
  fmt::print("detection on 1000 generated series of 60 runs, 0-3 steps of 10-30%, hit within 1 run, p < 0.001:\n");
  for (double noise : {0.02, 0.05, 0.10}) score(noise);
  return 0;
}
