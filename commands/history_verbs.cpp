#include "commands/history_verbs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "analysis/compare/catalogue.hpp"
#include "analysis/history/fleet_references.hpp"
#include "common/errors.hpp"
#include "analysis/history/history_run.hpp"
#include "analysis/history/prometheus_text.hpp"
#include "analysis/history/straggler_history.hpp"
#include "results/output_file.hpp"
#include "analysis/report/render.hpp"
#include "results/noise.hpp"
#include "results/writers.hpp"

namespace ccb {
namespace {

// A series is judged on each quantity its runs recorded
// (results/quantities.hpp): the table's time as busbw when every run has one
// (time_us otherwise: busbw and algbw restate it), and the per-iteration
// p50 and p90 of the slowest rank, which a slowed rank moves while the
// pipelined time may not.
// Runs that recorded noise the series' other runs did not (a host busy
// before that run) are kept and shown, but left out of the test: one such
// run before a change widens the variance until a 300x drop is not
// significant. Noise most of its runs share (an emulated cluster's hosts
// on one machine, always) is the series' condition, not one run's outlier.
struct SeriesValues {
  Quantity quantity = Quantity::busbw;
  std::string_view metric() const { return quantity_def(quantity).column; }
  bool higher_better() const { return quantity_def(quantity).higher_better; }
  std::vector<double> values;
  std::vector<const StoredPoint*> runs;
  std::size_t noisy = 0;  // runs left out for their noise
};

// The kinds of a run's noise flags ("; "-joined: HistoryRun::noise).
std::set<std::string> noise_kinds(const std::string& noise) {
  std::set<std::string> kinds;
  for (std::size_t at = 0; at < noise.size();) {
    const std::size_t end = std::min(noise.find("; ", at), noise.size());
    kinds.insert(noise_kind(std::string_view(noise).substr(at, end - at)));
    at = end + 2;
  }
  return kinds;
}

// The table time's quantity a series is judged by: busbw when every run has
// one, else time_us.
Quantity table_quantity(const std::vector<StoredPoint>& pts) {
  const bool busbw = !pts.empty() && std::all_of(pts.begin(), pts.end(), [](const StoredPoint& p) {
    return std::isfinite(p.busbw_gbps) && p.busbw_gbps > 0;
  });
  return busbw ? Quantity::busbw : Quantity::time;
}

SeriesValues values_of(const std::vector<StoredPoint>& pts, Quantity q) {
  SeriesValues v;
  v.quantity = q;
  std::map<std::string, std::size_t> runs_with;
  for (const StoredPoint& p : pts)
    for (const std::string& k : noise_kinds(p.noise)) ++runs_with[k];
  const auto outlier = [&](const StoredPoint& p) {
    for (const std::string& k : noise_kinds(p.noise))
      if (2 * runs_with[k] <= pts.size()) return true;
    return false;
  };
  for (const StoredPoint& p : pts) {
    const double x = p.value(q);
    if (!std::isfinite(x) || x <= 0) continue;
    if (outlier(p)) {
      ++v.noisy;
      continue;
    }
    v.values.push_back(x);
    v.runs.push_back(&p);
  }
  return v;
}

// Every quantity of a series that `history changes` tests: the table's, then
// the per-iteration ones its runs recorded (a replayed step's time_us is
// already its median step: judged on that alone).
std::vector<SeriesValues> judged_values(const SeriesKey& key, const std::vector<StoredPoint>& pts) {
  std::vector<SeriesValues> out{values_of(pts, table_quantity(pts))};
  if (is_step_series(key)) return out;
  for (const Quantity q : {Quantity::iteration_p50, Quantity::iteration_p90})
    if (SeriesValues v = values_of(pts, q); !v.values.empty()) out.push_back(std::move(v));
  return out;
}

std::string p_text(double p) { return p < 1e-300 ? "< 1e-300" : fmt::format("{:.2g}", p); }

}  // namespace

int history_changes(HistoryDb& db, const SeriesFilter& filter, const ChangePointOptions& options, bool json,
                    const std::string& since) {
  std::size_t tested = 0, short_series = 0, regressions = 0, improvements = 0, noisy = 0;
  const std::size_t needed = 2 * options.min_segment;
  nlohmann::json out = nlohmann::json::array();
  std::string text;
  const std::vector<StoredSeries> all = db.series(filter);
  for (const StoredSeries& s : all) {
    const std::vector<StoredPoint> pts = db.points(s.id, since);
    bool series_tested = false;
    const std::vector<SeriesValues> judged = judged_values(s.key, pts);
    noisy += judged.front().noisy;  // runs, counted once per series (every quantity leaves the same runs out)
    // One change per series and event: the quantities that moved there are
    // its parts (a slowed link moves busbw and the per-iteration times at
    // once). A noisier quantity (p90) may place the same step one run
    // earlier or later: parts within one run of the change are the same
    // event, at the run of its first part (the table's quantity first).
    struct Part {
      const SeriesValues* v;
      ChangePoint c;
      bool worse;
      const StoredPoint* at;
      std::size_t position;  // of its first run after the change, in the series' runs
    };
    std::vector<std::vector<Part>> events;
    for (const SeriesValues& v : judged) {
      if (v.values.size() < needed) continue;
      series_tested = true;
      for (const ChangePoint& c : change_points(v.values, options)) {
        const StoredPoint* at = v.runs[c.index];
        const Part part{&v, c, v.higher_better() ? c.mean_after < c.mean_before : c.mean_after > c.mean_before, at,
                        static_cast<std::size_t>(at - pts.data())};
        const auto same = std::find_if(events.begin(), events.end(), [&](const std::vector<Part>& e) {
          const std::size_t a = e.front().position, b = part.position;
          return (a > b ? a - b : b - a) <= 1 &&
                 std::none_of(e.begin(), e.end(), [&](const Part& x) { return x.v == &v; });
        });
        if (same != events.end()) same->push_back(part);
        else events.push_back({part});
      }
    }
    std::sort(events.begin(), events.end(),
              [](const auto& a, const auto& b) { return a.front().position < b.front().position; });
    for (const std::vector<Part>& parts : events) {
      const Part& lead = parts.front();  // the event's run: its first part's
      const StoredPoint &at = *lead.at, &prev = lead.position > 0 ? pts[lead.position - 1] : at;
      const std::int64_t run = at.run;
      const bool worse = std::any_of(parts.begin(), parts.end(), [](const Part& p) { return p.worse; });
      ++(worse ? regressions : improvements);
      const ChangePoint& first = parts.front().c;
      std::string moved;
      nlohmann::json quantities = nlohmann::json::array();
      for (const Part& p : parts) {
        moved += fmt::format("{}{} {:+.1f}% (p = {}{})", moved.empty() ? "" : ", ", p.v->metric(),
                             100 * p.c.relative_change(), p_text(p.c.p),
                             p.at->run == run ? "" : fmt::format(", from run {}", p.at->run));
        quantities.push_back({{"metric", p.v->metric()},
                              {"kind", p.worse ? "regression" : "improvement"},
                              {"relative_change", p.c.relative_change()},
                              {"mean_before", p.c.mean_before},
                              {"mean_after", p.c.mean_after},
                              {"p", p.c.p},
                              {"run", p.at->run}});
      }
      const std::string versions = at.versions != prev.versions
                                       ? fmt::format("; versions changed there: {} -> {}", prev.versions, at.versions)
                                       : "";
      text += fmt::format("{}: {}: {} from run {} ({}), {} run{} before, {} after{}\n",
                          worse ? "regression" : "improvement", series_name(s.key), moved, at.run, at.started_at,
                          first.before, first.before == 1 ? "" : "s", first.after, versions);
      // The first part (the table's quantity where it moved) as the change's
      // own fields, every part under "quantities".
      out.push_back({{"series", series_name(s.key)},
                     {"collective", s.key.collective},
                     {"bytes", s.key.bytes},
                     {"hosts", s.key.hosts},
                     {"metric", parts.front().v->metric()},
                     {"kind", worse ? "regression" : "improvement"},
                     {"relative_change", first.relative_change()},
                     {"mean_before", first.mean_before},
                     {"mean_after", first.mean_after},
                     {"p", first.p},
                     {"quantities", quantities},
                     {"run", at.run},
                     {"started_at", at.started_at},
                     {"runs_before", first.before},
                     {"runs_after", first.after}});
    }
    ++(series_tested ? tested : short_series);
  }
  if (json) {
    text = out.dump(1) + "\n";
  } else {
    text += fmt::format(
        "history changes: {} series tested ({} with fewer than {} runs not tested), {} regression{}, {} "
        "improvement{} (p < {}, magnitude >= {}, span {}){}\n",
        tested, short_series, needed, regressions, regressions == 1 ? "" : "s", improvements,
        improvements == 1 ? "" : "s", options.max_p, options.min_magnitude, options.window,
        noisy ? fmt::format("; {} value{} of runs that recorded noise left out (history show marks them)", noisy,
                            noisy == 1 ? "" : "s")
              : "");
  }
  const int printed = print_or_fail(json ? text : terminal_safe_lines(text));
  if (printed != kExitOk) return printed;
  return regressions > 0 ? kExitRejected : kExitOk;
}

namespace {

// One series as an SVG line chart: runs equally spaced left to right, the
// value's range with 5% margins, each change point a dashed line and label.
std::string trend_svg(const SeriesValues& v, const std::vector<ChangePoint>& cps) {
  constexpr double kW = 720, kH = 180, kLeft = 70, kRight = 10, kTop = 10, kBottom = 30;
  const auto [lo_it, hi_it] = std::minmax_element(v.values.begin(), v.values.end());
  double lo = *lo_it, hi = *hi_it;
  const double pad = hi > lo ? (hi - lo) * 0.05 : std::max(std::fabs(hi) * 0.05, 1e-9);
  lo -= pad, hi += pad;
  const std::size_t n = v.values.size();
  const auto x = [&](std::size_t i) {
    return kLeft + (kW - kLeft - kRight) * (n > 1 ? double(i) / double(n - 1) : 0.5);
  };
  const auto y = [&](double value) { return kTop + (kH - kTop - kBottom) * (hi - value) / (hi - lo); };
  std::string svg = fmt::format(R"(<svg viewBox="0 0 {} {}" width="{}" height="{}" role="img">)", kW, kH, kW, kH);
  svg += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#ccc"/>)", kLeft, kTop,
                     kW - kLeft - kRight, kH - kTop - kBottom);
  for (double value : {lo + pad, hi - pad})
    svg += fmt::format(R"(<text x="{}" y="{:.1f}" font-size="11" text-anchor="end">{:.4g}</text>)", kLeft - 4,
                       y(value) + 4, value);
  svg += fmt::format(R"(<text x="{}" y="{}" font-size="11">{}</text>)", kLeft, kH - 10,
                     html_escape(v.runs.front()->started_at));
  svg += fmt::format(R"(<text x="{}" y="{}" font-size="11" text-anchor="end">{}</text>)", kW - kRight, kH - 10,
                     html_escape(v.runs.back()->started_at));
  for (const ChangePoint& c : cps) {
    const double cx = (x(c.index - 1) + x(c.index)) / 2;
    svg += fmt::format(R"(<line x1="{0:.1f}" x2="{0:.1f}" y1="{1}" y2="{2}" stroke="#c00" stroke-dasharray="4 3"/>)",
                       cx, kTop, kH - kBottom);
    svg += fmt::format(R"(<text x="{:.1f}" y="{}" font-size="11" fill="#c00">{:+.1f}% p={:.2g}</text>)", cx + 3,
                       kTop + 12, 100 * c.relative_change(), c.p);
  }
  std::string line;
  for (std::size_t i = 0; i < n; ++i) line += fmt::format("{:.1f},{:.1f} ", x(i), y(v.values[i]));
  svg += fmt::format(R"(<polyline points="{}" fill="none" stroke="#246"/>)", line);
  for (std::size_t i = 0; i < n; ++i)
    svg +=
        fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="2.5" fill="#246"><title>run {} {}: {:.6g}</title></circle>)",
                    x(i), y(v.values[i]), v.runs[i]->run, html_escape(v.runs[i]->started_at), v.values[i]);
  return svg + "</svg>";
}

}  // namespace

int history_trend_html(HistoryDb& db, const SeriesFilter& filter, const ChangePointOptions& options,
                       const std::string& since, const std::string& out_path) {
  const std::vector<StoredSeries> all = db.series(filter);
  if (all.size() > kMaxTrendSeries)
    throw UsageError(
        fmt::format("history trend: {} series match (at most {} charts per file): narrow them with "
                    "--collective, --size, --node or --link",
                    all.size(), kMaxTrendSeries));
  std::string body;
  std::size_t charts = 0;
  for (const StoredSeries& s : all) {
    const std::vector<StoredPoint> pts = db.points(s.id, since);
    const SeriesValues v = values_of(pts, table_quantity(pts));
    if (v.values.empty()) continue;
    const std::vector<ChangePoint> cps =
        v.values.size() >= 2 * options.min_segment ? change_points(v.values, options) : std::vector<ChangePoint>{};
    body += fmt::format(
        "<h2>{}</h2>\n<p>{} ({}), {} run{}, {} change point{}{}</p>\n{}\n", html_escape(series_name(s.key)), v.metric(),
        v.higher_better() ? "higher is better" : "lower is better", v.values.size(), v.values.size() == 1 ? "" : "s",
        cps.size(), cps.size() == 1 ? "" : "s",
        v.noisy ? fmt::format("; {} run{} that recorded noise left out", v.noisy, v.noisy == 1 ? "" : "s") : "",
        trend_svg(v, cps));
    ++charts;
  }
  if (charts == 0) throw UsageError("history trend: no series matches");
  const std::string html = fmt::format(
      "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>ccbench history</title>"
      "<style>body{{font-family:sans-serif;max-width:760px;margin:auto}}h2{{font-size:15px;margin-bottom:2px}}"
      "p{{margin:0 0 4px;color:#555;font-size:13px}}</style></head><body>\n<h1>ccbench history: {}</h1>\n"
      "<p>One chart per series, runs in time order; red dashed lines: change points (p &lt; {}, magnitude &gt;= {}; "
      "docs/history.md).</p>\n{}</body></html>\n",
      html_escape(db.path()), options.max_p, options.min_magnitude, body);
  write_file_atomically("--html", out_path, html);
  fmt::print("history: {}: {} chart{}\n", terminal_safe(out_path), charts, charts == 1 ? "" : "s");
  return kExitOk;
}

int history_export_prom(HistoryDb& db, const SeriesFilter& filter, const std::string& out_path) {
  // One result set per hosts group (their place labels), its series' newest points.
  std::map<std::string, ResultSet> groups;
  std::map<std::string, std::string> newest;
  for (const StoredSeries& s : db.series(filter)) {
    const std::vector<StoredPoint> pts = db.points(s.id, filter.since);
    if (pts.empty()) continue;
    const StoredPoint& p = pts.back();
    ResultSet& set = groups[s.key.hosts];
    set.hosts = hosts_of(s.key.hosts);
    set.points.push_back(imported_point(s.key, p));
    std::string& t = newest[s.key.hosts];
    t = std::max(t, p.started_at);
  }
  std::vector<PromRun> runs;
  for (const auto& [hosts, set] : groups)
    runs.push_back(PromRun{&set, newest[hosts], is_unnamed_place(hosts) ? hosts : ""});
  write_file_atomically("--prom", out_path, prometheus_text(runs));
  std::size_t series = 0;
  for (const auto& [hosts, set] : groups) series += set.points.size();
  fmt::print("history: {}: {} series' newest runs\n", terminal_safe(out_path), series);
  return kExitOk;
}

int history_references(HistoryDb& db, const SeriesFilter& filter, const std::string& system,
                       const std::string& out_path) {
  std::vector<FleetSeries> all;
  for (const StoredSeries& s : db.series(filter)) all.push_back({s.key, db.points(s.id, filter.since)});
  const std::vector<PublishedFigure> figures = fleet_figures(all, system);
  if (figures.empty())
    throw UsageError(fmt::format(
        "history references: no figure: a figure needs a series on a GPU the limits know (A100, H100, H200, B200, "
        "GB200; device memory, 2 or more ranks) with at least {} clean runs (finite busbw, nothing wrong, no noise "
        "flag); {} series matched the filters",
        kFleetMinRuns, all.size()));
  write_file_atomically("--out", out_path, catalogue_text(figures));
  fmt::print("history: {}: {} figure{} (CCBENCH_REFERENCES={} holds runs against them)\n", terminal_safe(out_path),
             figures.size(), figures.size() == 1 ? "" : "s", terminal_safe(out_path));
  return kExitOk;
}

int history_verdicts(HistoryDb& db, const std::string& host, const std::string& since, bool csv, bool json) {
  const std::vector<StoredNodeVerdict> rows = db.node_verdicts(host, since);
  const auto margin = [](double m) { return std::isfinite(m) ? fmt::format("{:+.0f}%", m * 100) : std::string("-"); };
  std::string text;
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const StoredNodeVerdict& v : rows)
      out.push_back({{"verdict", v.verdict},
                     {"started_at", v.started_at},
                     {"spec", v.spec},
                     {"outcome", v.outcome},
                     {"source", v.source},
                     {"check", v.row.check},
                     {"host", v.row.host},
                     {"status", v.row.status},
                     {"margin", std::isfinite(v.row.margin) ? nlohmann::json(v.row.margin) : nlohmann::json(nullptr)},
                     {"reason", v.row.reason}});
    text = out.dump(1) + "\n";
  } else if (csv) {
    text = "verdict,started_at,spec,outcome,check,host,status,margin,reason\n";
    for (const StoredNodeVerdict& v : rows)
      text +=
          fmt::format("{},{},{},{},{},{},{},{},{}\n", v.verdict, v.started_at, csv_field(v.spec), csv_field(v.outcome),
                      csv_field(v.row.check), csv_field(v.row.host), csv_field(v.row.status),
                      std::isfinite(v.row.margin) ? fmt::format("{:.6g}", v.row.margin) : "", csv_field(v.row.reason));
  } else if (rows.empty()) {
    text = "history: no verdict matches\n";
  } else {
    text = fmt::format("{:<25} {:>7} {:<10} {:<14} {:<16} {:<12} {:>7}  {}\n", "started_at", "verdict", "outcome",
                       "check", "host", "status", "margin", "why");
    for (const StoredNodeVerdict& v : rows)
      text += fmt::format("{:<25} {:>7} {:<10} {:<14} {:<16} {:<12} {:>7}  {}\n", v.started_at, v.verdict,
                          terminal_safe(v.outcome), terminal_safe(v.row.check), terminal_safe(v.row.host),
                          terminal_safe(v.row.status), margin(v.row.margin), terminal_safe(v.row.reason));
  }
  return print_or_fail(text);
}

int history_stragglers(HistoryDb& db, const SeriesFilter& filter, const ChangePointOptions& options) {
  const std::vector<StragglerRun> runs = db.straggler_runs(filter);
  if (runs.empty()) {
    fmt::print("# no run with --stragglers points in {} (ccbench SWEEP --stragglers -J, then history add)\n",
               terminal_safe(db.path()));
    return kExitOk;
  }
  fmt::print(
      "# {} run{} with --stragglers points, oldest {} newest {}; share: the points at which the host's rank "
      "arrived last (named), of those timed\n",
      runs.size(), runs.size() == 1 ? "" : "s", runs.front().started_at, runs.back().started_at);
  fmt::print("{:<24} {:>6} {:>9} {:>7} {:>9}  {}\n", "host", "runs", "named in", "share", "last run", "change points");
  const std::vector<HostStragglers> hosts = straggler_history(runs, options);
  bool rose = false;
  for (const HostStragglers& h : hosts) {
    std::string changes;
    for (const ChangePoint& c : h.changes)
      changes += fmt::format("{}{} {:.0f}% -> {:.0f}% from run {} ({}, {}), p = {}", changes.empty() ? "" : "; ",
                             c.mean_after > c.mean_before ? "rose" : "fell", 100 * c.mean_before, 100 * c.mean_after,
                             runs[c.index].run, runs[c.index].started_at, runs[c.index].source, p_text(c.p));
    if (!h.tested) changes = fmt::format("not tested (fewer than {} runs)", 2 * options.min_segment);
    rose = rose || h.rose();
    fmt::print(
        "{:<24} {:>6} {:>9} {:>6.0f}% {:>8.0f}%  {}\n", terminal_safe(h.host), runs.size(), h.named_runs,
        100.0 * static_cast<double>(h.named_points) / static_cast<double>(std::max<std::int64_t>(h.timed_points, 1)),
        100 * h.share.back(), terminal_safe(changes.empty() ? "-" : changes));
  }
  if (hosts.empty()) fmt::print("# no host was named late in these runs\n");
  return rose ? kExitRejected : kExitOk;
}

}  // namespace ccb
