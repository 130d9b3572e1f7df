#include "commands/history_command.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <set>
#include <nlohmann/json.hpp>

#include "common/redact.hpp"
#include "common/environment.hpp"
#include "common/errors.hpp"
#include "common/sizes.hpp"
#include "commands/cli_errors.hpp"
#include "commands/option_table.hpp"
#include "commands/history_verbs.hpp"
#include "results/expectation.hpp"
#include "results/quantities.hpp"
#include "analysis/history/change_points.hpp"
#include "analysis/history/history_db.hpp"
#include "analysis/history/history_run.hpp"
#include "analysis/history/verdict_record.hpp"
#include "analysis/history/prometheus_text.hpp"
#include "results/import/importer.hpp"
#include "results/import/text_input.hpp"
#include "results/output_file.hpp"
#include "common/terminal_text.hpp"
#include "results/writers.hpp"

namespace ccb {

#if CCBENCH_HAVE_SQLITE
namespace {

struct HistoryArgs {
  std::string verb, db, label, cluster, time, collective, size, node, link, since, prom, html, out, system;
  std::vector<std::string> runs;
  bool csv = false, json = false, help = false;
  ChangePointOptions changes{.log_scale = true};  // changes and trend: as tested
  double wait_s = HistoryAddRequest{}.wait_s;
};

// The options, declared once (commands/option_table.hpp).
std::vector<CommandOption> history_options(HistoryArgs& a) {
  ChangePointOptions& c = a.changes;
  return {
      option("--db", "DB",
             "the database (default $CCBENCH_HISTORY_DB, else $XDG_DATA_HOME/ccbench/history.db, else "
             "~/.local/share/ccbench/history.db)",
             a.db),
      option("--label", "TEXT", "add: a label every added run carries", a.label),
      option("--time", "ISO8601", "add: the time of a run whose record and file give none", a.time),
      option("--cluster", "LABEL",
             "add: the cluster of files that name no host (OSU, IMB, nccl-tests without rank lines): their "
             "series are that cluster's; without it each such file is a place of its own, never merged with "
             "another file's",
             a.cluster),
      option_in("--wait", "S",
                fmt::format("how long to wait for another writer (many nodes' health checks adding at once) before "
                            "giving up (default {}); a PostgreSQL server gets this + 10 s to answer each call, "
                            "connecting included, then exit 5",
                            a.wait_s),
                a.wait_s, 0.0, 86400.0),
      option("--collective", "NAME", "filter: series of this collective", a.collective),
      option("--size", "SIZE", "filter: series of this size", a.size),
      option("--node", "HOST", "filter: series naming this host (verdicts: rows of this host)", a.node),
      option("--link", "A,B", "filter: series of exactly these hosts", a.link),
      option("--since", "ISO8601", "filter: runs from then on", a.since),
      flag("--csv", "show, verdicts: CSV", a.csv),
      flag("--json", "show, verdicts, changes: JSON", a.json),
      option_in("--p-value", "P", fmt::format("changes, trend: keep a change point when p < P (default {})", c.max_p),
                c.max_p, 1e-300, 0.5),
      option_in("--magnitude", "M",
                fmt::format("changes, trend: ... and the means either side differ by at least M (default {}: any)",
                            c.min_magnitude),
                c.min_magnitude, 0.0, 100.0),
      option_in("--span,--window", "N",
                fmt::format("changes, trend: E-Divisive over spans of N runs (default {}, half-overlapping; 0: the "
                            "whole series; --window is its old spelling)",
                            c.window),
                c.window, std::size_t{0}, std::size_t{1000000}),
      option("--prom", "FILE", "export: the Prometheus text file", a.prom),
      option("--html", "FILE", "trend: the HTML file", a.html),
      option("--out", "FILE", "references: the catalogue file to write (CCBENCH_REFERENCES reads it)", a.out),
      option("--system", "TEXT", "references: what the figures are of (default \"this fleet's GPU nodes\")", a.system),
      flag("-h,--help", "this text", a.help),
  };
}

std::string history_help() {
  HistoryArgs defaults;
  return R"(ccbench history add RUN... [--db DB] [--label TEXT] [--cluster LABEL] [--time ISO8601] [--wait S]
ccbench history show [--db DB] [FILTERS] [--csv | --json]
ccbench history changes [--db DB] [FILTERS] [--p-value P] [--magnitude M] [--span N] [--json]
ccbench history trend --html FILE [--db DB] [FILTERS] [--p-value P] [--magnitude M] [--span N]
ccbench history export --prom FILE [--db DB] [FILTERS]
ccbench history references --out FILE [--db DB] [FILTERS] [--system TEXT]
ccbench history verdicts [--db DB] [--node HOST] [--since ISO8601] [--csv | --json]
ccbench history stragglers [--db DB] [FILTERS] [--p-value P] [--magnitude M] [--span N]
ccbench history copy FROM TO [--wait S]

Every run kept (docs/history.md). DB, FROM, TO: a SQLite file, or a
PostgreSQL server's database as a URL (postgresql://USER@HOST/DB?...,
libpq's form; its password is never printed or recorded). add: each file (RUN: a file, or every file
under a folder: ccbench JSON Lines / CSV / table, nccl-tests, OSU, IMB,
ccbench io, ccbench replay -J (series step:WORKLOAD, its exposed
communication and each dimension's), an accept --out folder's raw/ runs
and verdict) becomes a run
(a verdict.json: a verdict, one row per node and check), keyed by its
content's SHA-256 (adding it again adds nothing); its time is the record's
started_at, else the file's modification time, else --time. Each measured
point joins its series: collective, dtype, op, path, memory, ranks, nodes,
size, in-place, the run's place and GPU model. The place is the run's hosts;
a file that names none (OSU, IMB, nccl-tests without rank lines) is
cluster:LABEL with --cluster, else file:PATH (never merged with another
file's series); "ranks unknown" where the file does not say.
show: per series, one row per run: started_at, run id, the quantities
below ('-': not recorded), wrong (verification failures).
changes: per series, change points by E-Divisive means with Student's t-test
(Otava's method), kept by --p-value and --magnitude, over spans of --span
runs. Each quantity is tested on its own: busbw_gbps (higher is better) when
every run has one, else time_us (lower is better), and iteration_p50_us and
iteration_p90_us where runs recorded them; as log(value) (noise is
multiplicative; the means are geometric); a change for the worse is a
regression. Each line: the series, the change (mean after / mean before - 1)
from which run, p, runs before and after, versions that changed there.
trend --html: one chart per series over its runs (the value changes judges),
its change points marked; at most 500 series per file.
export --prom: each series' newest run as Prometheus text (the metrics of a
sweep's --prom), written to a temporary file and renamed.
references --out: the fleet's own expected figures as a catalogue file
(docs/expect.md) that CCBENCH_REFERENCES=FILE makes every "is this number
normal?" read: per GPU family, collective, ranks, nodes and size, the median
over host sets of each set's median busbw, from at least 3 clean runs
(finite busbw, nothing wrong, no noise flag); device memory on a GPU the
limits know (A100, H100, H200, B200, GB200), out-of-place, 2+ ranks.
verdicts: the kept acceptance verdicts, one row per node and check, oldest
first: started_at, verdict id, outcome (accepted, rejected), check, host,
status (pass, DEFECTIVE, suspect, cleared, ...), margin to the gate, why.
stragglers: per host named late by a sweep's --stragglers (docs/stragglers.md),
over the runs with such points: runs, runs it was named in, its share of
the timed points (all runs, the newest), and change points in its share run
by run (the same test as changes, on the share itself): a host whose share
rose is a repeat offender (exit 1).
copy: every run and verdict of FROM added to TO (SQLite to PostgreSQL and
back), each as add adds it: one already in TO is not added again.

Quantities (one definition each; the same names in show --csv and --json):
)" + quantities_help() +
         R"(
Options (FILTERS: --collective, --size, --node, --link, --since):
)" + option_list(history_options(defaults)) +
         R"(
Exit codes: 0 fine (changes: no regression), 1 changes found a regression
(stragglers: a host's share rose),
2 bad input (a flag, a file, a database that is not a ccbench history or was
written by a newer one: left untouched), 5 the database or an output could
not be written (locked past --wait, disk full: what it held is unchanged).
)";
}

SeriesFilter filter_of(const HistoryArgs& a) {
  SeriesFilter f;
  f.collective = a.collective;
  f.host = a.node;
  f.since = a.since;
  if (!a.since.empty() && !is_iso_day_or_time(a.since))
    throw UsageError(
        fmt::format("history: --since '{}': expected an ISO 8601 UTC day or time, e.g. 2026-12-03 or "
                    "2026-12-03T14:00:00Z",
                    terminal_safe(a.since)));
  if (!a.size.empty()) {
    const auto b = parse_size(a.size);
    if (!b || *b == 0) throw UsageError(fmt::format("history: --size '{}': not a size (e.g. 1M, 1GiB, 4096)", a.size));
    f.bytes = *b;
  }
  if (!a.link.empty()) {
    std::string rest = a.link;
    for (std::size_t at; (at = rest.find(',')) != std::string::npos; rest = rest.substr(at + 1))
      f.link.push_back(rest.substr(0, at));
    f.link.push_back(rest);
    std::sort(f.link.begin(), f.link.end());
    if (f.link.size() < 2 || std::any_of(f.link.begin(), f.link.end(), [](const auto& h) { return h.empty(); }))
      throw UsageError(fmt::format("history: --link '{}': expected two or more hosts, A,B", a.link));
  }
  return f;
}

std::string read_whole(const std::string& path) {
  const MappedFile mapped(path);
  return std::string(mapped.text());
}

// What happened to one file, as its line says.
std::string add_file(HistoryDb& db, const std::string& file, const HistoryAddRequest& r, HistoryAddResult& tally) {
  const std::string text = read_whole(file);
  if (std::optional<VerdictRecord> verdict = verdict_record_of(text, file)) {
    verdict->label = r.label;
    const HistoryDb::Added added = db.add_verdict(*verdict);
    if (!added.added) {
      ++tally.present;
      return fmt::format("history: {}: already there (verdict {}, same content)\n", terminal_safe(file), added.run);
    }
    ++tally.added, ++tally.verdicts;
    return fmt::format("history: {}: verdict {} ({}, {}, {}): {} node verdict{}\n", terminal_safe(file), added.run,
                       terminal_safe(verdict->spec), verdict->verdict, verdict->started_at, added.values,
                       added.values == 1 ? "" : "s");
  }
  std::string why;
  const auto run = history_run_of(text, HistoryRunSource{file, file_mtime_utc(file), r.time, r.label, r.cluster}, &why);
  if (!run) {
    ++tally.skipped;
    return fmt::format("history: {}: skipped ({})\n", terminal_safe(file), terminal_safe(why));
  }
  const HistoryDb::Added added = db.add(*run);
  if (!added.added) {
    ++tally.present;
    return added.values > 0
               ? fmt::format("history: {}: already there (run {}: the same run, {} values held{})\n",
                             terminal_safe(file), added.run, added.values,
                             run->complete ? "" : "; this copy has no end record yet")
               : fmt::format("history: {}: already there (run {}, same content)\n", terminal_safe(file), added.run);
  }
  ++tally.added;
  const std::string replaced = added.replaced_source.empty()
                                   ? ""
                                   : fmt::format("; replaces the same run's partial copy from {} ({} values)",
                                                 terminal_safe(added.replaced_source), added.replaced_values);
  return fmt::format("history: {}: run {} ({}, {} from {}): {} value{}, {} new series{}{}\n", terminal_safe(file),
                     added.run, run->format, run->started_at, run->time_basis, added.values,
                     added.values == 1 ? "" : "s", added.new_series, replaced,
                     run->complete ? "" : "; no end record yet: a later copy of the whole run replaces it");
}

int add(const HistoryArgs& a) {
  if (a.runs.empty()) throw UsageError("history add: give the runs to add (files or folders)");
  if (!a.time.empty() && !std::isfinite(iso_utc_seconds(a.time)))
    throw UsageError(fmt::format("history add: --time '{}': expected ISO 8601 UTC, e.g. 2026-12-03T14:00:00Z", a.time));
  const HistoryAddResult r = add_runs_to_history({a.db, a.runs, a.label, a.time, a.wait_s, false, a.cluster});
  fmt::print("history: {}: {} added, {} already there, {} skipped; it holds {} run{}{}\n",
             terminal_safe(is_postgres_url(a.db) ? url_without_credentials(a.db) : a.db), r.added, r.present, r.skipped,
             r.runs, r.runs == 1 ? "" : "s",
             r.verdicts_held ? fmt::format(" and {} verdict{}", r.verdicts_held, r.verdicts_held == 1 ? "" : "s") : "");
  return kExitOk;
}

std::string value_text(double v, const char* format) {
  return std::isfinite(v) ? fmt::format(fmt::runtime(format), v) : std::string("-");
}

int show(const HistoryArgs& a, const SeriesFilter& filter) {
  HistoryDb db(a.db, HistoryDb::Access::read, static_cast<int>(a.wait_s * 1000));
  const std::vector<StoredSeries> all = db.series(filter);
  nlohmann::json out = nlohmann::json::array();
  std::string text;
  if (a.csv)
    text =
        "collective,dtype,op,path,memory,ranks,nodes,in_place,bytes,hosts,gpu,run,started_at,time_us,busbw_gbps,"
        "algbw_gbps,wrong,noise,iteration_p50_us,iteration_p90_us,busbw_limit_gbps,busbw_share_of_limit\n";
  for (const StoredSeries& s : all) {
    const std::vector<StoredPoint> pts = db.points(s.id, a.since);
    if (!a.csv && !a.json) {
      text += fmt::format("# {} ({} run{})\n{:<22} {:>6} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12} {:>7} {:>6}\n",
                          series_name(s.key), pts.size(), pts.size() == 1 ? "" : "s", "started_at", "run", "time_us",
                          "iter_p50_us", "iter_p90_us", "busbw_GB/s", "algbw_GB/s", "limit_GB/s", "share", "wrong");
    }
    for (const StoredPoint& p : pts) {
      const SeriesKey& k = s.key;
      const double share = share_of_limit(p.busbw_gbps, p.busbw_limit_gbps);  // the one share (docs/expect.md)
      if (a.csv) {
        text += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                            csv_field(k.collective), csv_field(k.dtype), csv_field(k.op), csv_field(k.path),
                            csv_field(k.memory), k.ranks, k.nodes, k.in_place, k.bytes, csv_field(k.hosts),
                            csv_field(k.gpu), p.run, p.started_at, value_text(p.time_us, "{:.6g}"),
                            value_text(p.busbw_gbps, "{:.6g}"), value_text(p.algbw_gbps, "{:.6g}"), p.wrong,
                            csv_field(p.noise), value_text(p.p50_us, "{:.6g}"), value_text(p.p90_us, "{:.6g}"),
                            value_text(p.busbw_limit_gbps, "{:.6g}"), value_text(share, "{:.6g}"));
      } else if (a.json) {
        const auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
        out.push_back({{"collective", k.collective},
                       {"dtype", k.dtype},
                       {"op", k.op},
                       {"path", k.path},
                       {"memory", k.memory},
                       {"ranks", k.ranks},
                       {"nodes", k.nodes},
                       {"in_place", k.in_place},
                       {"bytes", k.bytes},
                       {"hosts", k.hosts},
                       {"gpu", k.gpu},
                       {"run", p.run},
                       {"started_at", p.started_at},
                       {"time_us", num(p.time_us)},
                       {"iteration_p50_us", num(p.p50_us)},
                       {"iteration_p90_us", num(p.p90_us)},
                       {"busbw_gbps", num(p.busbw_gbps)},
                       {"algbw_gbps", num(p.algbw_gbps)},
                       {"busbw_limit_gbps", num(p.busbw_limit_gbps)},
                       {"busbw_share_of_limit", num(share)},
                       {"wrong", p.wrong},
                       {"noise", p.noise}});
      } else {
        text +=
            fmt::format("{:<22} {:>6} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12} {:>7} {:>6}{}\n", p.started_at, p.run,
                        value_text(p.time_us, "{:.4g}"), value_text(p.p50_us, "{:.4g}"), value_text(p.p90_us, "{:.4g}"),
                        value_text(p.busbw_gbps, "{:.4g}"), value_text(p.algbw_gbps, "{:.4g}"),
                        value_text(p.busbw_limit_gbps, "{:.4g}"), value_text(share * 100, "{:.3g}%"),
                        p.wrong ? std::to_string(p.wrong) : "", p.noise.empty() ? "" : "  noisy: " + p.noise);
      }
    }
  }
  if (a.json) text = out.dump(1) + "\n";
  if (!a.csv && !a.json && all.empty()) text = "history: no series matches\n";
  return print_or_fail(a.json ? text : terminal_safe_lines(text));  // names from imported files: no control bytes
}

// history copy FROM TO: every run and verdict, oldest first, in one
// transaction of TO (all or nothing).
int copy(const HistoryArgs& a) {
  if (a.runs.size() != 2 || !a.db.empty())
    throw UsageError("history copy: give FROM and TO (files or postgresql:// URLs), and no --db");
  const std::string &from = a.runs[0], &to = a.runs[1];
  check_history_location("FROM", from, false);
  check_history_location("TO", to, false);
  HistoryDb source(from, HistoryDb::Access::read, static_cast<int>(a.wait_s * 1000));
  std::error_code ec;
  const auto same = [] { return UsageError("history copy: FROM and TO are the same database"); };
  if (from == to || (!is_postgres_url(from) && !is_postgres_url(to) && std::filesystem::equivalent(from, to, ec)))
    throw same();
  const std::vector<HistoryRun> runs = source.all_runs();
  const std::vector<VerdictRecord> verdicts = source.all_verdicts();
  HistoryDb target(to, HistoryDb::Access::write, static_cast<int>(a.wait_s * 1000));
  if (target.identity() == source.identity()) throw same();  // two spellings of one (a URL's host= or user=)
  std::size_t added = 0, present = 0, values = 0;
  target.begin_batch();
  for (const HistoryRun& r : runs) {
    const HistoryDb::Added got = target.add(r);
    (got.added ? added : present) += 1;
    values += got.added ? got.values : 0;
  }
  std::size_t verdicts_added = 0;
  for (const VerdictRecord& v : verdicts) verdicts_added += target.add_verdict(v).added ? 1 : 0;
  target.commit_batch();
  fmt::print(
      "history copy: {} -> {}: {} runs added ({} values), {} already there; {} verdicts added, {} already "
      "there; it holds {} runs\n",
      terminal_safe(source.path()), terminal_safe(target.path()), added, values, present, verdicts_added,
      verdicts.size() - verdicts_added, target.run_count());
  return kExitOk;
}

}  // namespace

namespace {

// Adds `files` to the database at `path` in batches of files, one transaction
// each, their lines printed once it commits; a failure rolls back the open
// batch only.
HistoryAddResult add_files(const std::string& path, const std::vector<std::string>& files, const HistoryAddRequest& r) {
  auto db = std::make_unique<HistoryDb>(path, HistoryDb::Access::write, static_cast<int>(r.wait_s * 1000));
  HistoryAddResult tally;
  constexpr std::size_t kFilesPerBatch = 256;
  std::string lines;
  const std::set<std::string> all(files.begin(), files.end());
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (i % kFilesPerBatch == 0) db->begin_batch();
    try {
      if (const std::string twin = twin_of_jsonl(files[i], all); !twin.empty()) {
        ++tally.skipped;
        lines += fmt::format("history: {}: skipped ({})\n", terminal_safe(files[i]), terminal_safe(twin));
      } else {
        lines += add_file(*db, files[i], r, tally);
      }
    } catch (const ImportError& e) {
      ++tally.skipped;
      lines += fmt::format("history: {}: skipped ({})\n", terminal_safe(files[i]), terminal_safe(e.what()));
    }
    if (i % kFilesPerBatch == kFilesPerBatch - 1 || i + 1 == files.size()) {
      db->commit_batch();
      if (!r.quiet) {
        fmt::print("{}", lines);
      } else {  // a run left out is said even then
        for (std::size_t at = 0, end; at < lines.size(); at = end + 1) {
          end = lines.find('\n', at);
          const std::string_view line(lines.data() + at, end - at);
          if (line.find(": skipped (") != std::string_view::npos) fmt::print(stderr, "{}\n", line);
        }
      }
      lines.clear();
    }
  }
  tally.runs = db->run_count();
  tally.verdicts_held = db->verdict_count();
  return tally;
}

void remove_database(const std::string& path) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(path + suffix, ec);
}

}  // namespace

HistoryAddResult add_runs_to_history(const HistoryAddRequest& r) {
  std::vector<std::string> files;
  for (const std::string& path : r.paths) {
    try {
      for (std::string& f : result_files(path)) files.push_back(std::move(f));
    } catch (const ImportError& e) {
      throw UsageError(fmt::format("history add: {}", e.what()));
    }
  }
  const bool is_default = [&] {
    try {
      return r.db == default_history_db();
    } catch (const UsageError&) {
      return false;
    }
  }();
  check_history_location("--db", r.db, is_default);
  constexpr const char* kNothing = "history add: no input held a measured point (every file was skipped)";
  if (is_postgres_url(r.db)) {  // a server: its transactions keep a run whole
    const HistoryAddResult tally = add_files(r.db, files, r);
    if (tally.added + tally.present == 0) throw UsageError(kNothing);
    return tally;
  }
  const std::filesystem::path parent = std::filesystem::path(r.db).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (std::filesystem::exists(r.db, ec) || ec) {
    const HistoryAddResult tally = add_files(r.db, files, r);
    if (tally.added + tally.present == 0) throw UsageError(kNothing);  // the database is left as it was
    return tally;
  }
  // A new database is built under a name of this process's own and published
  // only when it holds a run: no other process can have opened it, so one
  // that ends up empty is removed without touching anyone's runs, and a
  // database another process creates meanwhile is never replaced.
  const std::string fresh = fmt::format("{}.new-{}", r.db, ::getpid());
  remove_database(fresh);
  HistoryAddResult tally;
  try {
    tally = add_files(fresh, files, r);  // closed on return: its WAL checkpointed into the file
  } catch (...) {
    remove_database(fresh);
    throw;
  }
  if (tally.added + tally.present == 0) {
    remove_database(fresh);
    throw UsageError(kNothing);
  }
  if (::link(fresh.c_str(), r.db.c_str()) == 0) {
    remove_database(fresh);
    return tally;
  }
  const int err = errno;
  remove_database(fresh);
  if (err != EEXIST)
    throw OutputError(fmt::format("history: {}: cannot create ({}); nothing was added", r.db, std::strerror(err)));
  // Another process created it meanwhile: the runs go into that one.
  fmt::print(stderr, "history: {}: created by another process meanwhile: the runs are added there\n",
             terminal_safe(r.db));
  return add_runs_to_history(r);
}

void add_to_history(const std::string& db_path, const HistoryRun& run) {
  check_history_location("--history", db_path, false);
  HistoryDb db(db_path, HistoryDb::Access::write);
  const HistoryDb::Added r = db.add(run);
  fmt::print(stderr, "ccbench: --history {}: {} run {} ({} values)\n", terminal_safe(db.path()),
             r.added ? "added as" : "already there as", r.run, r.values);
}

int run_history(int argc, char** argv) {
  try {
    HistoryArgs a;
    CLI::App app{"ccbench history"};
    app.set_help_flag();
    app.allow_extras(false);
    app.add_option("verb", a.verb);
    app.add_option("runs", a.runs);
    declare_options(app, history_options(a));
    parse_or_usage_error(app, argc, argv, "history", "history");
    if (a.help || a.verb.empty()) {
      fmt::print("{}", history_help());
      return a.help ? kExitOk : kExitUsage;
    }
    if (a.verb != "add" && a.verb != "show" && a.verb != "changes" && a.verb != "trend" && a.verb != "export" &&
        a.verb != "verdicts" && a.verb != "stragglers" && a.verb != "copy" && a.verb != "references")
      throw UsageError(fmt::format(
          "history: verb '{}': unknown (allowed: add, show, changes, trend, export, verdicts, stragglers, copy, "
          "references)",
          terminal_safe(a.verb)));
    if (a.verb == "copy") return copy(a);
    if (a.db.empty()) a.db = default_history_db();
    check_history_location("--db", a.db, true);  // a URL; add checks the folder
    if (a.verb != "add" && !a.runs.empty())
      throw UsageError(fmt::format("history {}: unexpected argument '{}' (files are add's)", a.verb, a.runs.front()));
    if (a.verb != "add" && (!a.label.empty() || !a.time.empty() || !a.cluster.empty()))
      throw UsageError(fmt::format("history {}: --label, --time and --cluster are add's", a.verb));
    if (a.cluster.find_first_of(",\n") != std::string::npos)
      throw UsageError(
          fmt::format("history add: --cluster '{}': a label without commas or line breaks", terminal_safe(a.cluster)));
    if (a.csv && a.json) throw UsageError("history: --csv and --json: give one");
    const bool tabular = a.verb == "show" || a.verb == "verdicts";
    if ((a.csv && !tabular) || (a.json && !tabular && a.verb != "changes"))
      throw UsageError(
          fmt::format("history {}: --csv is show's and verdicts', --json show's, verdicts' and changes'", a.verb));
    if (a.verb == "verdicts" && (!a.collective.empty() || !a.size.empty() || !a.link.empty()))
      throw UsageError(
          "history verdicts: --collective, --size and --link select series; verdicts take --node, --since");
    if ((a.verb == "references") != !a.out.empty())
      throw UsageError(a.out.empty() ? "history references: give --out FILE" : "history: --out is references'");
    if (a.verb != "references" && !a.system.empty()) throw UsageError("history: --system is references'");
    if (a.verb == "add") return add(a);
    const SeriesFilter filter = filter_of(a);  // its errors before the database's
    if (a.verb == "show") return show(a, filter);
    if (a.verb == "verdicts") {
      HistoryDb db(a.db, HistoryDb::Access::read, static_cast<int>(a.wait_s * 1000));
      return history_verdicts(db, a.node, a.since, a.csv, a.json);
    }
    if (a.verb == "stragglers") {
      if (!a.link.empty()) throw UsageError("history stragglers: --link selects a pair's series; give --node");
      HistoryDb db(a.db, HistoryDb::Access::read, static_cast<int>(a.wait_s * 1000));
      return history_stragglers(db, filter, a.changes);
    }
    if ((a.verb == "export") != !a.prom.empty())
      throw UsageError(a.prom.empty() ? "history export: give --prom FILE" : "history: --prom is export's");
    if ((a.verb == "trend") != !a.html.empty())
      throw UsageError(a.html.empty() ? "history trend: give --html FILE" : "history: --html is trend's");
    const std::string out = !a.prom.empty() ? a.prom : !a.html.empty() ? a.html : a.out;
    if (!out.empty()) {
      const std::string flag = !a.prom.empty() ? "--prom" : !a.html.empty() ? "--html" : "--out";
      check_output_writable(flag, out);
      check_distinct_paths({{flag, out}}, {{"--db", a.db}});
    }
    HistoryDb db(a.db, HistoryDb::Access::read, static_cast<int>(a.wait_s * 1000));
    if (a.verb == "export") return history_export_prom(db, filter, a.prom);
    if (a.verb == "references") return history_references(db, filter, a.system, a.out);
    if (a.verb == "trend") return history_trend_html(db, filter, a.changes, a.since, a.html);
    return history_changes(db, filter, a.changes, a.json, a.since);
  } catch (const UsageError& e) {
    fmt::print(stderr, "ccbench: {}\n", printable_error(e.what()));
    return exit_code_of(e);
  }
}

#else

int run_history(int, char**) {
  fmt::print(stderr, "ccbench: history: {}\n", kBuiltWithoutSqlite);
  return kExitUsage;
}

#endif

std::string default_history_db() {
  if (const char* v = env_value(EnvVar::history_db); v && *v) return v;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return std::string(x) + "/ccbench/history.db";
  const char* home = std::getenv("HOME");
  if (!home || !*home)  // never a database under whatever folder the job happens to start in
    throw UsageError(
        "history: no database given and neither CCBENCH_HISTORY_DB, XDG_DATA_HOME nor HOME is set: "
        "give --db DB");
  return std::string(home) + "/.local/share/ccbench/history.db";
}

}  // namespace ccb
