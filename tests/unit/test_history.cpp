// The history (analysis/history): SHA-256, Student's t-test, change points
// scored on generated series, the SQLite store's refusals, Prometheus text.
#include <gtest/gtest.h>
#if CCBENCH_HAVE_SQLITE
#include <sqlite3.h>
#endif

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "common/errors.hpp"
#include "common/redact.hpp"
#include "common/sha256.hpp"
#include "analysis/history/change_points.hpp"
#include "analysis/history/history_db.hpp"
#include "analysis/history/straggler_history.hpp"
#include "analysis/history/history_run.hpp"
#include "analysis/history/prometheus_text.hpp"
#include "analysis/history/series_generator.hpp"
#include "analysis/history/student_t_test.hpp"
#include "analysis/history/verdict_record.hpp"
#include "results/import/text_input.hpp"

namespace ccb {
namespace {

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(StudentTTest, MatchesStudentTables) {
  EXPECT_NEAR(student_t_two_sided_p(2.228139, 10), 0.05, 1e-5);
  EXPECT_NEAR(student_t_two_sided_p(3.169273, 10), 0.01, 1e-5);
  EXPECT_NEAR(student_t_two_sided_p(1.959964, 1e7), 0.05, 1e-5);
  EXPECT_DOUBLE_EQ(student_t_two_sided_p(0, 5), 1);
  const double a[] = {1, 2, 3, 4, 5}, b[] = {3, 4, 5, 6, 7};
  EXPECT_NEAR(student_p_value(sample_stats(a), sample_stats(b)), 0.08051623795726257, 1e-9);  // scipy ttest_ind
  const double flat1[] = {2, 2, 2}, flat2[] = {3, 3, 3};
  EXPECT_EQ(student_p_value(sample_stats(flat1), sample_stats(flat2)), 0);
  EXPECT_EQ(student_p_value(sample_stats(flat1), sample_stats(flat1)), 1);
}

TEST(ChangePoints, EnergySplitFindsTheStep) {
  const double x[] = {0, 0, 0, 0, 10, 10, 10, 10};
  EXPECT_EQ(best_energy_split(x, 0, 8, 2), 4u);
  EXPECT_EQ(best_energy_split(x, 0, 3, 2), 3u);  // too short: no split
}

TEST(ChangePoints, OneStepIsFoundWhereItIs) {
  SeriesShape s;
  s.max_steps = 0;
  s.noise = 0.02;
  std::vector<double> x = generate_series(7, s).values;
  for (std::size_t i = 30; i < x.size(); ++i) x[i] *= 0.85;  // -15% from run 30
  const auto found = change_points(x);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].index, 30u);
  EXPECT_NEAR(found[0].relative_change(), -0.15, 0.03);
  EXPECT_LT(found[0].p, 1e-6);
  EXPECT_EQ(found[0].before, 30u);
  EXPECT_EQ(found[0].after, x.size() - 30);
  // A minimum magnitude above the step keeps it out.
  ChangePointOptions big;
  big.min_magnitude = 0.2;
  EXPECT_TRUE(change_points(x, big).empty());
}

TEST(ChangePoints, LogScaleReportsGeometricMeans) {
  std::vector<double> x;
  for (int i = 0; i < 12; ++i) x.push_back((i < 6 ? 1.0 : 4.0) * (i % 2 ? 1.01 : 0.99));
  ChangePointOptions o;
  o.log_scale = true;
  const auto found = change_points(x, o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].index, 6u);
  EXPECT_NEAR(found[0].mean_before, std::sqrt(0.99 * 1.01), 1e-12);
  EXPECT_NEAR(found[0].relative_change(), 3, 1e-12);
  o.min_magnitude = 3.5;  // the magnitude is judged on the values, not their logs
  EXPECT_TRUE(change_points(x, o).empty());
}

TEST(ChangePoints, PrecisionAndRecallOnGeneratedSeries) {
  // 300 series of 60 runs, 0-3 steps of 10-30% each, 2% noise.
  SeriesShape s;
  s.noise = 0.02;
  DetectionScore score;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const GeneratedSeries g = generate_series(seed, s);
    score_detection(g.steps, change_points(g.values), 1, score);
  }
  EXPECT_GT(score.true_positive, 200u);
  EXPECT_GE(score.precision(), 0.97) << score.false_positive << " false positives";
  EXPECT_GE(score.recall(), 0.97) << score.false_negative << " missed";
}

TEST(ChangePoints, NoiseAloneFlagsLittle) {
  SeriesShape s;
  s.max_steps = 0;
  s.noise = 0.10;
  std::size_t flagged = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) flagged += change_points(generate_series(seed, s).values).size();
  EXPECT_LE(flagged, 6u);  // p < 0.001 per test, a few tests per series
}

TEST(SeriesGenerator, ScoringCountsEachStepOnce) {
  std::vector<ChangePoint> found(3);
  found[0].index = 10, found[1].index = 11, found[2].index = 40;
  DetectionScore s;
  score_detection({10, 25}, found, 1, s);
  EXPECT_EQ(s.true_positive, 1u);
  EXPECT_EQ(s.false_positive, 2u);
  EXPECT_EQ(s.false_negative, 1u);
}

#if CCBENCH_HAVE_SQLITE
std::string temp_db(const std::string& name) {
  const std::string p = ::testing::TempDir() + "/" + name;
  std::remove(p.c_str());
  std::remove((p + "-wal").c_str());
  std::remove((p + "-shm").c_str());
  return p;
}

std::string bytes_of(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

HistoryRun run_with(const std::string& sha, const std::string& when, double busbw) {
  HistoryRun r;
  r.sha256 = sha;
  r.source = sha + ".jsonl";
  r.format = "test";
  r.started_at = when;
  r.time_basis = "record";
  r.hosts = "h1,h2";
  HistoryValue v;
  v.key.collective = "all_reduce";
  v.key.bytes = 1 << 20;
  v.key.ranks = 2;
  v.key.hosts = "h1,h2";
  v.busbw_gbps = busbw;
  v.time_us = NAN;
  r.values.push_back(v);
  v.key.bytes = 1 << 10;
  r.values.push_back(v);
  return r;
}

TEST(HistoryDb, AddsOnceByContentAndReadsBackInTimeOrder) {
  const std::string path = temp_db("h-order.db");
  {
    HistoryDb db(path, HistoryDb::Access::write);
    EXPECT_TRUE(db.add(run_with("b", "2026-12-02T00:00:00Z", 2)).added);
    const auto first = db.add(run_with("a", "2026-12-01T00:00:00Z", 1));
    EXPECT_TRUE(first.added);
    EXPECT_EQ(first.new_series, 0u);
    const auto again = db.add(run_with("a", "2026-12-05T00:00:00Z", 9));
    EXPECT_FALSE(again.added);
    EXPECT_EQ(again.run, first.run);
    EXPECT_EQ(db.run_count(), 2);
  }
  HistoryDb db(path, HistoryDb::Access::read);
  SeriesFilter f;
  f.bytes = 1 << 20;
  const auto series = db.series(f);
  ASSERT_EQ(series.size(), 1u);
  const auto pts = db.points(series[0].id);
  ASSERT_EQ(pts.size(), 2u);
  EXPECT_EQ(pts[0].busbw_gbps, 1);  // the earlier run first, whatever the order added
  EXPECT_TRUE(std::isnan(pts[0].time_us));
  f.bytes = 0;
  f.host = "h2";
  EXPECT_EQ(db.series(f).size(), 2u);
  f.host = "h";  // a whole host name, not a prefix
  EXPECT_TRUE(db.series(f).empty());
  f.host.clear();
  f.link = {"h1", "h2"};
  EXPECT_EQ(db.series(f).size(), 2u);
  EXPECT_THROW(db.add(run_with("c", "2026-12-03T00:00:00Z", 3)), UsageError);  // opened for reading
}

// --stragglers points kept per run (schema 4): a host named late from the
// fifth run on is a repeat offender (its share rose); filters select series.
TEST(HistoryDb, StragglersPerHostShowARepeatOffender) {
  const std::string path = temp_db("h-stragglers.db");
  {
    HistoryDb db(path, HistoryDb::Access::write);
    for (int i = 0; i < 8; ++i) {
      HistoryRun r = run_with(fmt::format("s{}", i), fmt::format("2026-12-0{}T00:00:00Z", i + 1), 10);
      for (HistoryValue& v : r.values) v.skew_us = 20, v.straggler_host = i >= 4 ? "h2" : "";
      if (i == 1) r.values[0].straggler_host = "h1";  // once, by chance
      db.add(r);
    }
    db.add(run_with("untimed", "2026-12-09T00:00:00Z", 10));  // no --stragglers: not counted
  }
  HistoryDb db(path, HistoryDb::Access::read);
  const std::vector<StragglerRun> runs = db.straggler_runs({});
  ASSERT_EQ(runs.size(), 8u);
  EXPECT_EQ(runs[0].timed, 2);
  EXPECT_EQ(runs[1].named.at("h1"), 1);
  EXPECT_EQ(runs[5].named.at("h2"), 2);
  const std::vector<HostStragglers> hosts = straggler_history(runs, {});
  ASSERT_EQ(hosts.size(), 2u);
  EXPECT_EQ(hosts[0].host, "h1");
  EXPECT_FALSE(hosts[0].rose());  // one run of eight: no change point
  EXPECT_EQ(hosts[1].host, "h2");
  EXPECT_EQ(hosts[1].named_runs, 4u);
  EXPECT_EQ(hosts[1].share, (std::vector<double>{0, 0, 0, 0, 1, 1, 1, 1}));
  ASSERT_EQ(hosts[1].changes.size(), 1u);
  EXPECT_EQ(hosts[1].changes[0].index, 4u);
  EXPECT_TRUE(hosts[1].rose());
  SeriesFilter f;
  f.bytes = 1 << 20;
  EXPECT_EQ(db.straggler_runs(f)[5].named.at("h2"), 1);
  f.since = "2026-12-07";
  EXPECT_EQ(db.straggler_runs(f).size(), 2u);
}

// Each point's busbw limit (schema 5) is kept as added, NaN as none, and
// read back by show's points and by copy's runs alike.
TEST(HistoryDb, KeepsEachPointsLimit) {
  const std::string path = temp_db("h-limit.db");
  HistoryRun r = run_with("lim", "2026-12-01T00:00:00Z", 5);
  r.values[0].busbw_limit_gbps = 25;  // 1 MiB: a limit; 1 KiB: none known
  HistoryDb(path, HistoryDb::Access::write).add(r);
  HistoryDb db(path, HistoryDb::Access::read);
  std::map<std::uint64_t, double> shown;
  for (const StoredSeries& s : db.series({}))
    for (const StoredPoint& p : db.points(s.id)) shown[s.key.bytes] = p.busbw_limit_gbps;
  EXPECT_EQ(shown.at(1 << 20), 25);
  EXPECT_TRUE(std::isnan(shown.at(1 << 10)));
  const std::vector<HistoryRun> runs = db.all_runs();
  ASSERT_EQ(runs.size(), 1u);
  for (const HistoryValue& v : runs[0].values) {
    if (v.key.bytes == 1 << 20) {
      EXPECT_EQ(v.busbw_limit_gbps, 25);
    } else {
      EXPECT_TRUE(std::isnan(v.busbw_limit_gbps));
    }
  }
}

// One run arriving in several files (issue 52): a partial -J, then the whole
// file; the fuller copy is kept under the run's id, never both.
TEST(HistoryDb, TheSameRunInAnotherFileIsOneRun) {
  const std::string path = temp_db("h-same-run.db");
  HistoryDb db(path, HistoryDb::Access::write);
  HistoryRun partial = run_with("part", "2026-12-01T00:00:00Z", 1);
  partial.run_key = "run-1", partial.complete = false;
  partial.values.pop_back();  // one value of two written so far
  partial.values[0].key.op = "only-in-the-partial-copy";
  const auto first = db.add(partial);
  ASSERT_TRUE(first.added);
  HistoryRun whole = run_with("whole", "2026-12-01T00:00:00Z", 1);
  whole.run_key = "run-1";
  const auto second = db.add(whole);
  EXPECT_TRUE(second.added);
  EXPECT_EQ(second.run, first.run);  // the run keeps its id
  EXPECT_EQ(second.replaced_source, "part.jsonl");
  EXPECT_EQ(second.replaced_values, 1u);
  EXPECT_EQ(db.run_count(), 1);
  EXPECT_EQ(db.series({}).size(), 2u);  // the partial copy's own series went with it
  const auto again = db.add(partial);   // the partial copy again, later: the whole run stays
  EXPECT_FALSE(again.added);
  EXPECT_EQ(again.run, first.run);
  EXPECT_EQ(again.values, 2u);
  HistoryRun other = run_with("other", "2026-12-02T00:00:00Z", 2);
  other.run_key = "run-2";
  EXPECT_TRUE(db.add(other).added);
  EXPECT_EQ(db.run_count(), 2);
  // Two partial copies: the one with more values is kept.
  HistoryRun p1 = run_with("p1", "2026-12-03T00:00:00Z", 3), p2 = run_with("p2", "2026-12-03T00:00:00Z", 3);
  p1.run_key = p2.run_key = "run-3", p1.complete = p2.complete = false;
  p1.values.pop_back();
  EXPECT_TRUE(db.add(p1).added);
  EXPECT_TRUE(db.add(p2).added);
  EXPECT_FALSE(db.add(p1).added);
  EXPECT_EQ(db.run_count(), 3);
}

void expect_refused_untouched(const std::string& path, const std::string& words) {
  const std::string before = bytes_of(path);
  for (auto access : {HistoryDb::Access::write, HistoryDb::Access::read}) {
    try {
      HistoryDb db(path, access);
      ADD_FAILURE() << path << " was opened";
    } catch (const OutputError& e) {
      ADD_FAILURE() << "exit 5 instead of 2: " << e.what();
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("nothing was changed"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(bytes_of(path), before);
}

TEST(HistoryDb, RefusesWhatItDidNotWriteAndLeavesItAlone) {
  const std::string text = temp_db("h-text.db");
  std::ofstream(text) << "{\"type\": \"run\"}\nnot a database at all, but long enough to have a header........\n";
  expect_refused_untouched(text, "not a readable SQLite database");

  const std::string foreign = temp_db("h-foreign.db");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(foreign.c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "CREATE TABLE accounts(id INTEGER); INSERT INTO accounts VALUES(42);", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  expect_refused_untouched(foreign, "not a ccbench history database");

  const std::string newer = temp_db("h-newer.db");
  { HistoryDb made(newer, HistoryDb::Access::write); }
  ASSERT_EQ(sqlite3_open(newer.c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "PRAGMA journal_mode=DELETE; PRAGMA user_version = 99;", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  expect_refused_untouched(newer, "schema version 99 was written by a newer ccbench");
}

TEST(HistoryDb, ReadingAMissingDatabaseSaysHowToStart) {
  try {
    HistoryDb db(temp_db("h-missing.db"), HistoryDb::Access::read);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("no such database (add runs first"), std::string::npos) << e.what();
  }
}

// The schema 1 database of tests/fixtures/history/schema-v1.sql (two OSU
// runs, 20 points) is read as it is and migrated to 2 by the first writer:
// its runs and points kept, verdicts added after.
TEST(HistoryDb, MigratesASchemaOneDatabaseKeepingItsRuns) {
  const std::string path = temp_db("h-v1.db");
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, bytes_of(std::string(CCBENCH_FIXTURES) + "/history/schema-v1.sql").c_str(), nullptr,
                         nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(raw);
  sqlite3_close(raw);
  const auto points_of = [](HistoryDb& db) {
    std::size_t n = 0;
    for (const StoredSeries& s : db.series({})) n += db.points(s.id).size();
    return n;
  };
  const std::string before = bytes_of(path);
  {
    HistoryDb db(path, HistoryDb::Access::read);
    EXPECT_EQ(db.run_count(), 2);
    EXPECT_EQ(points_of(db), 20u);
    EXPECT_TRUE(db.node_verdicts("", "").empty());  // schema 1 kept none
    EXPECT_EQ(db.verdict_count(), 0);
  }
  EXPECT_EQ(bytes_of(path), before);  // a reader migrates nothing
  VerdictRecord v;
  v.sha256 = "v1", v.source = "out/verdict.json", v.spec = "s", v.started_at = "2026-12-02T00:00:00Z";
  v.verdict = "rejected", v.exit_code = 1;
  v.nodes = {{"links", "h1", "pass", "passed every pair", NAN}, {"links", "h2", "defective", "slow", -0.4}};
  {
    HistoryDb db(path, HistoryDb::Access::write);
    const HistoryDb::Added added = db.add_verdict(v);
    EXPECT_TRUE(added.added);
    EXPECT_EQ(added.values, 2u);
    EXPECT_FALSE(db.add_verdict(v).added);  // by content
  }
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &st, nullptr);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), kHistorySchemaVersion);
  sqlite3_finalize(st);
  sqlite3_close(raw);
  HistoryDb db(path, HistoryDb::Access::read);
  EXPECT_EQ(db.run_count(), 2);
  EXPECT_EQ(points_of(db), 20u);
  for (const StoredSeries& s : db.series({}))  // schema 5's limits: none for points stored before it
    for (const StoredPoint& p : db.points(s.id)) EXPECT_TRUE(std::isnan(p.busbw_limit_gbps));
  const auto h2 = db.node_verdicts("h2", "");
  ASSERT_EQ(h2.size(), 1u);
  EXPECT_EQ(h2[0].row.status, "defective");
  EXPECT_DOUBLE_EQ(h2[0].row.margin, -0.4);
  EXPECT_EQ(h2[0].outcome, "rejected");
  EXPECT_TRUE(std::isnan(db.node_verdicts("h1", "")[0].row.margin));
  EXPECT_TRUE(db.node_verdicts("", "2026-12-03").empty());
}

#endif  // CCBENCH_HAVE_SQLITE

TEST(VerdictRecord, ReadsEachNodesStatusPerCheck) {
  const std::string text = R"({"ccbench_accept": 1, "started_at": "2026-12-02T01:00:00.000Z", "verdict": "accepted",
    "exit_code": 0, "spec": {"name": "every link"}, "checks": [
      {"name": "links", "node_verdicts": [{"node": "a", "status": "pass", "reason": "ok", "margin": null},
                                          {"node": "b", "status": "cleared", "reason": "re-test", "margin": 0.25}]},
      {"name": "io", "node_verdicts": [{"node": "a", "status": "pass", "reason": "ok"}]}]})";
  const std::optional<VerdictRecord> v = verdict_record_of(text, "verdict.json");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->spec, "every link");
  EXPECT_EQ(v->verdict, "accepted");
  EXPECT_EQ(v->sha256, sha256_hex(text));
  ASSERT_EQ(v->nodes.size(), 3u);
  EXPECT_EQ(v->nodes[1].check, "links");
  EXPECT_EQ(v->nodes[1].status, "cleared");
  EXPECT_DOUBLE_EQ(v->nodes[1].margin, 0.25);
  EXPECT_TRUE(std::isnan(v->nodes[0].margin));
  EXPECT_EQ(v->nodes[2].check, "io");
  EXPECT_FALSE(verdict_record_of(R"({"type": "run", "argv": []})", "run.jsonl"));  // a result, not a verdict
  EXPECT_FALSE(verdict_record_of("# nccl-tests\n", "log.txt"));
  EXPECT_THROW(verdict_record_of(R"({"ccbench_accept": 1, "started_at": "x", "verdict": "accepted"})", "v.json"),
               ImportError);  // no checks
  EXPECT_THROW(verdict_record_of(R"({"ccbench_accept": 1, "started_at": "x", "verdict": "accepted", "checks": [
    {"name": "c", "node_verdicts": [{"status": "pass"}]}]})",
                                 "v.json"),
               ImportError);  // a node without its name
}

TEST(HistoryRun, NcclTestsTextGivesHostsAndTheFileTime) {
  const std::string text =
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20\n"
      "#  Rank  0 Group  0 Pid  1 on node-b device  0 [0x1b] NVIDIA H100 80GB HBM3\n"
      "#  Rank  1 Group  0 Pid  2 on node-a device  0 [0x1b] NVIDIA H100 80GB HBM3\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
      "#wrong\n"
      "        1024           256     float     sum      -1    10.00    0.10    0.10      0    10.00    0.10    0.10"
      "      0\n";
  std::string why;
  const auto run = history_run_of(text, HistoryRunSource{"ar.log", "2026-01-02T03:04:05Z", "", "", ""}, &why);
  ASSERT_TRUE(run) << why;
  EXPECT_EQ(run->hosts, "node-a,node-b");
  EXPECT_EQ(run->started_at, "2026-01-02T03:04:05Z");
  EXPECT_EQ(run->time_basis, "file mtime");
  ASSERT_EQ(run->values.size(), 2u);  // out-of-place and in-place
  EXPECT_EQ(run->values[0].key.gpu, "NVIDIA H100 80GB HBM3");
  EXPECT_FALSE(history_run_of("hello\n", HistoryRunSource{"x.txt", "", "", "", ""}, &why));
  EXPECT_EQ(why, "not a result format ccbench reads");
  // Two hosts, no NIC named: no limit known. Eight H100s of one host: NVLS's
  // 2(n-1)/(n+1) x 450 GB/s = 700 GB/s (docs/expect.md), stored with each point.
  EXPECT_TRUE(std::isnan(run->values[0].busbw_limit_gbps));
  std::string one_node = "# nThread 1 nGpus 1 minBytes 8 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20\n";
  for (int rank = 0; rank < 8; ++rank)
    one_node +=
        fmt::format("#  Rank {:2} Group  0 Pid  1 on node-a device {:2} [0x1b] NVIDIA H100 80GB HBM3\n", rank, rank);
  one_node += text.substr(text.find("#       size"));
  const auto nvls =
      history_run_of(one_node, HistoryRunSource{"all_reduce.log", "2026-01-02T03:04:05Z", "", "", ""}, &why);
  ASSERT_TRUE(nvls) << why;
  ASSERT_EQ(nvls->values.size(), 2u);
  EXPECT_NEAR(nvls->values[0].busbw_limit_gbps, 700, 1e-9);
}

TEST(PrometheusText, BaseUnitsEscapedLabelsAndPlaceByHostCount) {
  ResultSet set;
  set.hosts = {"h\"1"};
  ImportedPoint p;
  p.collective = "all_reduce";
  p.dtype = "float";
  p.op = "sum";
  p.path = "auto";
  p.memory = "host";
  p.ranks = 2, p.nodes = 1, p.in_place = 0, p.bytes = 1024;
  p.time_us = 250, p.busbw_gbps = 1.5, p.algbw_gbps = 1;
  set.points.push_back(p);
  const std::string t = prometheus_text({PromRun{&set, "2026-12-02T00:00:00Z", ""}});
  EXPECT_NE(t.find("# TYPE ccbench_busbw_bytes_per_second gauge\n"), std::string::npos) << t;
  EXPECT_NE(t.find("ccbench_busbw_bytes_per_second{collective=\"all_reduce\",dtype=\"float\",op=\"sum\",path=\"auto\","
                   "memory=\"host\",size_bytes=\"1024\",in_place=\"0\",ranks=\"2\",nodes=\"1\",host=\"h\\\"1\"} "
                   "1500000000\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("ccbench_time_seconds{"), std::string::npos);
  EXPECT_NE(t.find("} 0.00025\n"), std::string::npos) << t;
  EXPECT_NE(t.find("ccbench_run_timestamp_seconds{collective=\"all_reduce\",host=\"h\\\"1\"} 1796169600\n"),
            std::string::npos)
      << t;
  EXPECT_EQ(t.find("ccbench_wrong_elements"), std::string::npos);        // not verified: no sample
  EXPECT_EQ(t.find("ccbench_busbw_share_of_limit"), std::string::npos);  // no limit known: no sample
  set.note_env("limits.memory_copy_gbps", "6");  // the record's measured copy rate: the limit (docs/expect.md)
  const std::string limited = prometheus_text({PromRun{&set, "", ""}});
  EXPECT_NE(limited.find("ccbench_busbw_limit_bytes_per_second{collective=\"all_reduce\""), std::string::npos);
  EXPECT_NE(limited.find("} 6000000000\n"), std::string::npos) << limited;
  EXPECT_NE(limited.find("ccbench_busbw_share_of_limit{collective=\"all_reduce\""), std::string::npos);
  EXPECT_NE(limited.find("} 0.25\n"), std::string::npos) << limited;
  set.hosts = {"a", "b"};
  EXPECT_NE(prometheus_text({PromRun{&set, "", ""}}).find(",link=\"a,b\"}"), std::string::npos);
  set.hosts = {"a", "b", "c"};
  const std::string many = prometheus_text({PromRun{&set, "", ""}});
  EXPECT_EQ(many.find("host="), std::string::npos);
  EXPECT_EQ(many.find("ccbench_run_timestamp_seconds"), std::string::npos);
  EXPECT_TRUE(std::isnan(iso_utc_seconds("2026-12-02 00:00:00")));
  EXPECT_DOUBLE_EQ(iso_utc_seconds("1970-01-01T00:00:01.5Z"), 1.5);
  // Each field in its calendar range, two digits each: nothing carried over.
  for (const char* bad : {"2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-12-03T24:00:00Z", "2026-12-3T10:00:00Z",
                          "2026-12-03T10:00:00.Z", "2026-12-03T10:00:00", "99999"})
    EXPECT_TRUE(std::isnan(iso_utc_seconds(bad))) << bad;
  EXPECT_TRUE(std::isfinite(iso_utc_seconds("2024-02-29T23:59:59Z")));
  EXPECT_TRUE(is_iso_day_or_time("2026-12-03"));
  EXPECT_TRUE(is_iso_day_or_time("2026-12-03T14:00:00Z"));
  for (const char* bad : {"2026-13-45", "yesterday", "2026-12", "", "2026-12-03T14:00"})
    EXPECT_FALSE(is_iso_day_or_time(bad)) << bad;
}

// A URL's password never reaches a record or a message.
TEST(Redaction, CredentialsLeaveURLsAndParameters) {
  EXPECT_EQ(redact_credentials("--history postgresql://ann:s3cret@db.example/hist?sslmode=require"),
            "--history postgresql://ann:<redacted>@db.example/hist?sslmode=require");
  EXPECT_EQ(redact_credentials("postgresql:///h?host=/run/pg&password=s3cret&user=ann"),
            "postgresql:///h?host=/run/pg&password=<redacted>&user=ann");
  EXPECT_EQ(redact_credentials("host=db password=s3cret dbname=h"), "host=db password=<redacted> dbname=h");
  EXPECT_EQ(redact_credentials("a postgresql://ann@db/h b https://x.org/p@q c"),
            "a postgresql://ann@db/h b https://x.org/p@q c");
  EXPECT_EQ(redact_credentials("x://u:p@h y://v:w@i"), "x://u:<redacted>@h y://v:<redacted>@i");
  EXPECT_EQ(url_without_credentials("postgresql://ann:s3cret@db:5432/hist?password=x&sslmode=require"),
            "postgresql://ann@db:5432/hist?sslmode=require");
  EXPECT_EQ(url_without_credentials("postgresql:///hist?host=/tmp/pg"), "postgresql:///hist?host=/tmp/pg");
  EXPECT_EQ(url_without_credentials("postgres://a:b@"), "postgres://a@");
}

// Issue 73 item 5: every form libpq reads a password from, held against
// libpq's own reading (PQconninfoParse, when this build has libpq): neither
// the recorded text nor the name in messages carries it. Forms libpq refuses
// (a bad %zz escape, a mistyped scheme) echo the string in libpq's message,
// so the redactor covers them too.
TEST(Redaction, EveryFormLibpqReadsAPasswordFrom) {
  const std::vector<std::string> forms = {
      "postgresql://u:s3cret?x@/db?host=/tmp",
      "postgresql://u:s3cret#x@/db?host=/tmp",
      "postgresql:///db?host=/tmp&pass%77ord=s3cret",
      "postgresql:///db?host=/tmp&PASSWORD=nothing&password=s3cret",
      "postgresql://u:s3cret/x@h/db",
      "postgresql://u:s3%zzcret@h/db",
      "postgres://u:s3cret@h:5432/db?sslmode=require",
      "postgresql://u:s3cret@[::1]:5432/db",
      "host=/tmp password=s3cret dbname=x",
      "host=/tmp password = 's3cret and more' dbname=x",
      "host=/tmp password='s3\\'cret' dbname=x",
      "host=/tmp sslpassword=s3cret dbname=x",
      "postgresql:/u:s3cret@db",
      "--history=postgresql://u:s3cret@db/h",
  };
  for (const std::string& form : forms) {
    std::vector<std::string> secrets{"s3cret"};
#if CCBENCH_HAVE_SQLITE  // the history library (and libpq's reading) is built with SQLite
    bool parsed = false;
    for (const std::string& s : libpq_secrets(form, parsed)) secrets.push_back(s);
#endif
    const std::string recorded = redact_credentials(form), named = url_without_credentials(form);
    for (const std::string& secret : secrets) {
      if (secret == "5432" || secret == "nothing") continue;  // a real port; not libpq's password (keys are lower case)
      EXPECT_EQ(recorded.find(secret), std::string::npos) << form << " -> " << recorded << " (libpq: " << secret << ")";
      if (form.starts_with("postgres")) {  // a URL (the keyword form is named by nothing)
        EXPECT_EQ(named.find(secret), std::string::npos) << form << " -> " << named;
      }
    }
  }
}

}  // namespace
}  // namespace ccb
