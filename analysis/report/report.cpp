#include "analysis/report/report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analysis/report/summary_lines.hpp"

namespace ccb {
namespace {

std::string role_of(const Comparison& c, std::size_t i) {
  if (i == c.options.baseline) return c.sets[i].predicted_from.empty() ? "baseline" : "baseline (predicted)";
  if (!c.sets[i].predicted_from.empty()) return "predicted (model)";
  return c.sets[i].published_source.empty() ? "compared" : "published (not measured)";
}

// Within the comparison's tie band a ratio is plain: neither better nor worse.
Tone ratio_tone(double r, bool higher_is_better, bool significant, double tie_band) {
  if (std::isnan(r) || !significant) return Tone::muted;
  if (std::abs(r - 1) < tie_band) return Tone::plain;
  return (r > 1) == higher_is_better ? Tone::better : Tone::worse;
}

std::string joined_formats(const ResultSet& s) {
  std::set<std::string> f(s.formats.begin(), s.formats.end());
  std::string out;
  for (const auto& x : f) out += (out.empty() ? "" : ", ") + x;
  return out;
}

Section inputs_section(const Comparison& c, const ReportLimits& limits) {
  Section s;
  s.heading = "Inputs";
  Table t;
  t.header = {"label", "role", "format", "files", "points", "unread"};
  t.left_columns = 3;
  for (std::size_t i = 0; i < c.sets.size(); ++i) {
    const ResultSet& r = c.sets[i];
    t.rows.push_back({{r.label},
                      {role_of(c, i), i == c.options.baseline ? Tone::warn : Tone::plain},
                      {joined_formats(r)},
                      {std::to_string(r.files.size())},
                      {std::to_string(r.points.size())},
                      {std::to_string(r.unread.size()), r.unread.empty() ? Tone::plain : Tone::worse}});
  }
  s.tables.push_back(std::move(t));
  for (const ResultSet& r : c.sets) {
    if (!r.published_source.empty())
      s.paragraphs.push_back(
          fmt::format("'{}' is a published figure, not a measurement: {}.", r.label, r.published_source));
    if (!r.predicted_from.empty())
      s.paragraphs.push_back(fmt::format("'{}' is a prediction, not a measurement: {}.", r.label, r.predicted_from));
    if (!r.skipped.empty()) {
      std::string list;
      for (std::size_t k = 0; k < r.skipped.size() && k < 8; ++k) list += (k ? "; " : "") + r.skipped[k];
      if (r.skipped.size() > 8) list += fmt::format("; and {} more", r.skipped.size() - 8);
      s.paragraphs.push_back(fmt::format("'{}': {} file(s) skipped as duplicates of the JSON Lines beside them: {}.",
                                         r.label, r.skipped.size(), list));
    }
    if (!r.noise.empty())  // every flag; the Summary says each kind once
      s.paragraphs.push_back(
          fmt::format("'{}' noise flags ({}): {}.", r.label, r.noise.size(), fmt::join(r.noise, "; ")));
  }
  Table unread;
  unread.title = "What could not be read";
  unread.header = {"label", "file:line: what"};
  unread.left_columns = 2;
  for (const ResultSet& r : c.sets) {
    for (std::size_t k = 0; k < r.unread.size() && k < limits.unread_lines_per_set; ++k)
      unread.rows.push_back({{r.label}, {r.unread[k], Tone::worse}});
    if (r.unread.size() > limits.unread_lines_per_set)
      unread.rows.push_back(
          {{r.label}, {fmt::format("... and {} more", r.unread.size() - limits.unread_lines_per_set)}});
  }
  if (!unread.rows.empty()) s.tables.push_back(std::move(unread));
  return s;
}

std::string crossovers_text(const SeriesComparison& sc, const std::string& other, const std::string& base) {
  if (sc.crossovers.empty()) return "none";
  std::string out;
  for (const Crossover& x : sc.crossovers)
    out += fmt::format("{}{}..{}: {} ahead above", out.empty() ? "" : "; ",
                       format_size(static_cast<double>(x.below_bytes)), format_size(static_cast<double>(x.above_bytes)),
                       x.other_wins_above ? other : base);
  return out;
}

std::string p_text(const AlignedPoint& a) {
  if (!a.p_value) return "-";
  return fmt::format("{}{}", *a.p_value < 0.001 ? std::string("<0.001") : fmt::format("{:.3f}", *a.p_value),
                     a.significant() ? "" : " n.s.");
}

// The Summary row's last cells: the smallest size's times, the peak busbw of
// each side and how many sizes differ significantly.
void append_facts(std::vector<Cell>& row, const SeriesComparison& sc) {
  row.push_back(
      {fmt::format("{} vs {} us @{}", format_us(sc.base_facts.small_time_us), format_us(sc.other_facts.small_time_us),
                   format_size(static_cast<double>(sc.base_facts.small_bytes)))});
  row.push_back({fmt::format("{} vs {} GB/s", format_gbps(sc.base_facts.peak_busbw_gbps),
                             format_gbps(sc.other_facts.peak_busbw_gbps))});
  row.push_back({sc.tested == 0 ? "not tested" : fmt::format("{} of {}", sc.tested - sc.not_significant, sc.tested)});
}

// The verdict first: per compared set and series, which is faster, by how much
// (geomean of the time ratio over the aligned sizes), at the sizes that matter
// (smallest size, peak busbw) and whether the difference is significant; each
// row and sentence renders the series' verdict (analysis/compare/comparison.cpp).
// One pair's series in the at-a-glance table, and how they were called.
struct PairTally {
  std::size_t base_wins = 0, other_wins = 0, ties = 0, mixed = 0, tested = 0, significant = 0;
  std::size_t noisy = 0, unclear = 0;  // cannot tell: noise explains it; another reason
  std::vector<std::string> called_over_noise;
  double lo = INFINITY, hi = 0;  // the range of "by" over the series called faster
  std::size_t called() const { return base_wins + other_wins + ties + mixed; }
};

std::string by_text(const SeriesVerdict& v) {
  return std::isfinite(v.call.lo) ? fmt::format("{:.2f}x ({})", v.call.ratio, interval_text(v.call))
                                  : fmt::format("{:.2f}x", v.call.ratio);
}

PairTally glance_rows(const Comparison& c, const PairComparison& pc, Table& t) {
  const ResultSet& other = c.sets[pc.other];
  PairTally n;
  for (const SeriesComparison& sc : pc.series) {
    if (std::isnan(sc.geomean_time_ratio)) continue;
    const SeriesVerdict& v = sc.verdict;
    std::vector<Cell> row{{sc.base->label()}, {other.label}};
    switch (v.kind) {
      case SeriesVerdict::faster:
        (v.other_faster ? n.other_wins : n.base_wins)++;
        n.lo = std::min(n.lo, v.call.ratio), n.hi = std::max(n.hi, v.call.ratio);
        if (!v.noise.empty()) n.called_over_noise.push_back(v.noise);
        row.push_back({v.call.lower, v.other_faster ? Tone::better : Tone::worse});
        row.push_back({by_text(v), v.other_faster ? Tone::better : Tone::worse});
        break;
      case SeriesVerdict::on_par:
        ++n.ties;
        row.push_back({"on par"});
        row.push_back({fmt::format("within {:.0f}%", 100 * c.options.tie_band)});
        break;
      case SeriesVerdict::mixed:
        ++n.mixed;
        row.push_back({"mixed", Tone::warn});
        row.push_back({v.reason, Tone::warn});
        break;
      case SeriesVerdict::cannot_tell:
        ++(v.noise_explains ? n.noisy : n.unclear);
        row.push_back({"cannot tell", Tone::muted});
        row.push_back({v.reason, Tone::muted});
        break;
    }
    if (v.kind != SeriesVerdict::cannot_tell) n.tested += sc.tested, n.significant += sc.tested - sc.not_significant;
    t.rows.push_back(std::move(row));
    append_facts(t.rows.back(), sc);
  }
  return n;
}

// The Summary's sentence for one pair: the tally of its series' verdicts.
std::string pair_verdict(const Comparison& c, const PairComparison& pc, const PairTally& t) {
  const std::string &base = c.baseline().label, &other = c.sets[pc.other].label;
  const std::size_t n = t.called();
  const std::string not_called =
      t.noisy + t.unclear == 0
          ? ""
          : fmt::format("; {} more series not called ({}{}{})", t.noisy + t.unclear,
                        t.noisy ? fmt::format("noise explains {}", t.noisy) : "", t.noisy && t.unclear ? ", " : "",
                        t.unclear ? fmt::format("{} cannot tell: see the at-a-glance table", t.unclear) : "");
  if (n == 0)
    return t.noisy + t.unclear > 0
               ? fmt::format("'{}' vs '{}': {} series, none called: {} (the at-a-glance table says why).", other, base,
                             t.noisy + t.unclear,
                             t.unclear == 0 ? "noise explains the differences" : "cannot tell which is faster")
               : fmt::format("'{}' vs '{}': no series lines up (see that pair below for why).", other, base);
  const std::size_t wins = t.base_wins + t.other_wins;
  const std::string range = wins == 0 ? ""
                            : fmt::format("{:.2f}", t.lo) == fmt::format("{:.2f}", t.hi)
                                ? fmt::format(" by {:.2f}x", t.lo)
                                : fmt::format(" by {:.2f}x to {:.2f}x", t.lo, t.hi);
  const std::string winner = t.other_wins == n  ? fmt::format("'{}' is faster in every series called{}", other, range)
                             : t.base_wins == n ? fmt::format("'{}' is faster in every series called{}", base, range)
                             : t.ties == n
                                 ? std::string("they are on par in every series called")
                                 : fmt::format("'{}' is faster in {}, '{}' in {}{}, on par in {}, mixed in {}", other,
                                               t.other_wins, base, t.base_wins, range, t.ties, t.mixed);
  return fmt::format(
      "'{}' vs '{}' (baseline), {} series called: {} (geomean of the time ratio per series){}{}{}.", other, base, n,
      winner,
      t.tested == 0 ? "; no significance test (no per-iteration samples on both sides)"
                    : fmt::format("; {} of {} tested sizes differ significantly (Mann-Whitney, alpha {})",
                                  t.significant, t.tested, c.options.alpha),
      t.called_over_noise.empty() ? "" : fmt::format("; called despite noise: {}", t.called_over_noise.front()),
      not_called);
}

Section verdict_section(const Comparison& c) {
  Section s;
  s.heading = "Summary";
  Table t;
  t.title = "At a glance";
  t.header = {"series",        "compared",   "faster",           "by (geomean time) or why",
              "smallest size", "peak busbw", "significant sizes"};
  t.left_columns = 3;
  t.keep_header = true;                           // the cells are short; the headers say what they are
  std::vector<std::string> unaligned_references;  // published figures no measured series lines up with
  for (const PairComparison& pc : c.pairs) {
    const PairTally n = glance_rows(c, pc, t);
    if (n.called() == 0 && n.noisy == 0 && n.unclear == 0 && !c.sets[pc.other].published_source.empty())
      unaligned_references.push_back(c.sets[pc.other].label);  // one line for all of them, below
    else s.paragraphs.push_back(pair_verdict(c, pc, n));
  }
  if (!unaligned_references.empty())
    s.paragraphs.push_back(fmt::format(
        "Published figures ('{}') are other clusters' numbers for scale (what each is: Inputs); none lines up with a "
        "series measured here (another collective, size range or rank and node count), so they decide nothing and "
        "appear on the charts only.",
        fmt::format("{}", fmt::join(unaligned_references, "', '"))));
  // Noise that explains a difference: a set measured oversubscribed, or a
  // series whose aligned sizes are flagged in the majority (results/noise.hpp).
  // After the verdict, one line per set, each kind of flag once.
  for (const ResultSet& r : c.sets)
    if (!r.noise.empty())
      s.paragraphs.push_back(fmt::format("Noise: '{}' was measured under noise: {}{} (every flag: Inputs).", r.label,
                                         noise_kinds_text(r.noise),
                                         r.oversubscribed ? "; its differences are not called" : ""));
  for (const PairComparison& pc : c.pairs)  // a running job's figures against the benchmark's
    if (const std::string prod = production_text(c, pc); !prod.empty()) s.paragraphs.push_back(prod);
  for (const ResultSet& r : c.sets)  // --stragglers: who arrived late, once per set
    if (const std::string late = stragglers_text(r); !late.empty()) s.paragraphs.push_back(late);
  for (const ResultSet& r : c.sets)  // alltoallv: which rank moved the most
    if (const std::string busiest = busiest_text(r); !busiest.empty()) s.paragraphs.push_back(busiest);
  if (!t.rows.empty()) {
    t.note =
        "faster: the set whose time is lower (geomean over the aligned sizes), with its interval where a side is a "
        "prediction; on par within the tie band; mixed: the faster set changes with the size; cannot tell: why "
        "(docs/compare.md, how a series is called). smallest size: time at the smallest size, baseline vs compared; "
        "peak busbw likewise.";
    s.tables.push_back(std::move(t));
  }
  return s;
}

// What was aligned, left out, merged and tested, for one pair of sets.
std::vector<std::string> pair_paragraphs(const Comparison& c, const PairComparison& pc) {
  const std::string& base = c.baseline().label;
  const std::string& other = c.sets[pc.other].label;
  std::vector<std::string> out;
  std::size_t only_base_pts = 0, only_other_pts = 0;
  for (const Series* x : pc.only_base) only_base_pts += x->points.size();
  for (const Series* x : pc.only_other) only_other_pts += x->points.size();
  for (const SeriesComparison& sc : pc.series)
    only_base_pts += sc.only_base.size(), only_other_pts += sc.only_other.size();
  out.push_back(fmt::format("Aligned on {}. {} sizes in {} series line up; {} points only in {}, {} only in {}.",
                            key_fields_text(pc.fields), pc.aligned, pc.series.size(), only_base_pts, base,
                            only_other_pts, other));
  if ((pc.fields | c.options.ignored) != kKeyAll)
    out.push_back(fmt::format("Left out of the key (not recorded by one of the sets, or --ignore-key): {}.",
                              key_field_list(kKeyAll & ~pc.fields)));
  if (pc.base_table->merged_points || pc.other_table->merged_points)
    out.push_back(
        fmt::format("Repeated points of one key were merged (median time and busbw, samples pooled): "
                    "{} in {}, {} in {}.",
                    pc.base_table->merged_points, base, pc.other_table->merged_points, other));
  if (pc.tested == 0)
    out.push_back(
        "No significance test: per-iteration samples are missing on one side or both "
        "(ccbench records them in every run since this release; nccl-tests with -J and per-iteration "
        "timing; OSU and IMB print none); differences may be noise.");
  else
    out.push_back(
        fmt::format("Mann-Whitney U test on per-iteration times, two-sided, alpha {}: {} of {} aligned "
                    "sizes tested, {} not significant (marked n.s.; no correction for multiple tests).",
                    c.options.alpha, pc.tested, pc.aligned, pc.not_significant));
  if (!pc.hint.empty())
    out.push_back(
        fmt::format("Nothing lines up. Key fields with no common value: {}. Drop a field from the key "
                    "with --ignore-key FIELD to compare across it.",
                    pc.hint));
  return out;
}

// "Per collective": each aligned series' ratios and curve facts.
Table per_collective_table(const Comparison& c, const PairComparison& pc) {
  const std::string& base = c.baseline().label;
  const std::string& other = c.sets[pc.other].label;
  Table summary;
  summary.title = "Per collective";
  summary.header = {"series",
                    "sizes",
                    "busbw ratio (geomean)",
                    "time ratio (geomean)",
                    fmt::format("peak busbw {}", base),
                    fmt::format("peak busbw {}", other),
                    fmt::format("latency {}", base),
                    fmt::format("latency {}", other),
                    fmt::format("half-peak size {}", base),
                    fmt::format("half-peak size {}", other),
                    "crossovers"};
  const auto peak = [](const CurveFacts& f) {
    return std::isnan(f.peak_busbw_gbps)
               ? std::string("-")
               : fmt::format("{} @{}", format_gbps(f.peak_busbw_gbps), format_size(static_cast<double>(f.peak_bytes)));
  };
  const auto lat = [](const CurveFacts& f) {
    return fmt::format("{} us @{}", format_us(f.small_time_us), format_size(static_cast<double>(f.small_bytes)));
  };
  const auto half = [](const CurveFacts& f) {
    return std::isnan(f.half_peak_bytes) ? std::string("-") : format_size(f.half_peak_bytes);
  };
  for (const SeriesComparison& sc : pc.series)
    summary.rows.push_back(
        {{sc.base->label()},
         {std::to_string(sc.points.size())},
         {format_ratio(sc.geomean_busbw_ratio), ratio_tone(sc.geomean_busbw_ratio, true, true, c.options.tie_band)},
         {format_ratio(sc.geomean_time_ratio), ratio_tone(sc.geomean_time_ratio, false, true, c.options.tie_band)},
         {peak(sc.base_facts)},
         {peak(sc.other_facts)},
         {lat(sc.base_facts)},
         {lat(sc.other_facts)},
         {half(sc.base_facts)},
         {half(sc.other_facts)},
         {crossovers_text(sc, other, base)}});
  if (!summary.rows.empty())
    summary.note = fmt::format(
        "Ratios are other / baseline: busbw ratio > 1 and time ratio < 1 mean the compared set is faster. "
        "Latency: time at the smallest size each measured. Half-peak size: the smallest size reaching half "
        "the peak busbw (interpolated in log2 size). Crossovers: where the faster side changes (ties within {:g}% "
        "and differences the test calls not significant ignored).",
        c.options.tie_band * 100);
  return summary;
}

// One table per series, size by size, within the report's row limits.
void add_point_tables(const Comparison& c, const PairComparison& pc, const ReportLimits& limits, Section& s) {
  const std::string& base = c.baseline().label;
  const std::string& other = c.sets[pc.other].label;
  std::size_t rows_left = limits.point_rows_per_pair, series_left_out = 0;
  for (const SeriesComparison& sc : pc.series) {
    if (sc.points.empty()) continue;
    if (rows_left == 0) {
      ++series_left_out;
      continue;
    }
    Table t;
    t.title = sc.base->label();
    t.header = {"size",
                fmt::format("time {} (us)", base),
                fmt::format("time {} (us)", other),
                fmt::format("busbw {} (GB/s)", base),
                fmt::format("busbw {} (GB/s)", other),
                "busbw ratio",
                "time ratio",
                "p"};
    const std::size_t shown = std::min({sc.points.size(), limits.point_rows_per_series, rows_left});
    rows_left -= shown;
    for (std::size_t k = 0; k < shown; ++k) {
      const AlignedPoint& a = sc.points[k];
      const bool sig = a.significant();
      t.rows.push_back({{format_size(static_cast<double>(a.bytes))},
                        {format_us(a.base->time_us)},
                        {format_us(a.other->time_us)},
                        {format_gbps(a.base->busbw_gbps)},
                        {format_gbps(a.other->busbw_gbps)},
                        {format_ratio(a.busbw_ratio), ratio_tone(a.busbw_ratio, true, sig, c.options.tie_band)},
                        {format_ratio(a.time_ratio), ratio_tone(a.time_ratio, false, sig, c.options.tie_band)},
                        {p_text(a), sig ? Tone::plain : Tone::muted}});
    }
    if (sc.points.size() > shown)
      t.note = fmt::format("{} more sizes: see the CSV or JSON output.", sc.points.size() - shown);
    s.tables.push_back(std::move(t));
  }
  if (series_left_out)
    s.paragraphs.push_back(
        fmt::format("Per-size tables of {} more series are left out of this report (over {} rows): "
                    "the CSV and JSON outputs have every point.",
                    series_left_out, limits.point_rows_per_pair));
}

// Series, and sizes of a series, that only one side measured.
void add_one_side_tables(const Comparison& c, const PairComparison& pc, Section& s) {
  const std::string& base = c.baseline().label;
  const std::string& other = c.sets[pc.other].label;
  Table only;
  only.title = "Series in one set only";
  only.header = {"series", "measured by", "sizes"};
  only.left_columns = 2;
  for (const Series* x : pc.only_base)
    only.rows.push_back({{x->label()}, {base}, {fmt::format("all {}", x->points.size())}});
  for (const Series* x : pc.only_other)
    only.rows.push_back({{x->label()}, {other}, {fmt::format("all {}", x->points.size())}});
  if (!only.rows.empty()) s.tables.push_back(std::move(only));
  Table sizes;
  sizes.title = "Sizes measured on one side only";
  sizes.header = {"series", "measured by", "sizes"};
  sizes.left_columns = 3;
  const auto list = [](const std::vector<std::uint64_t>& v) {
    std::string out;
    for (std::size_t k = 0; k < v.size() && k < 16; ++k)
      out += (k ? ", " : "") + format_size(static_cast<double>(v[k]));
    return v.size() > 16 ? fmt::format("{} ... ({} in all)", out, v.size()) : out;
  };
  for (const SeriesComparison& sc : pc.series) {
    if (!sc.only_base.empty()) sizes.rows.push_back({{sc.base->label()}, {base}, {list(sc.only_base)}});
    if (!sc.only_other.empty()) sizes.rows.push_back({{sc.base->label()}, {other}, {list(sc.only_other)}});
  }
  if (!sizes.rows.empty()) s.tables.push_back(std::move(sizes));
}

Section pair_section(const Comparison& c, const PairComparison& pc, const ReportLimits& limits) {
  Section s;
  s.heading = fmt::format("{} vs {} (baseline)", c.sets[pc.other].label, c.baseline().label);
  s.paragraphs = pair_paragraphs(c, pc);
  if (Table summary = per_collective_table(c, pc); !summary.rows.empty()) s.tables.push_back(std::move(summary));
  add_point_tables(c, pc, limits, s);
  add_one_side_tables(c, pc, s);
  return s;
}

std::vector<ChartGroup> chart_groups(const Comparison& c) {
  std::vector<ChartGroup> out;
  const SeriesTable& base = *c.chart_tables[c.options.baseline];
  for (const Series& bs : base.series) {
    ChartGroup g;
    g.title = bs.label();
    for (std::size_t i = 0; i < c.sets.size(); ++i) {
      const bool published = !c.sets[i].published_source.empty();
      for (const Series& s : c.chart_tables[i]->series) {
        const bool same = published ? s.collective == bs.collective && (bs.ranks == 0 || s.ranks == bs.ranks) &&
                                          (bs.nodes == 0 || s.nodes == bs.nodes)
                                    : compare_keys(s, bs) == 0;
        if (!same) continue;
        ChartGroup::Curve curve;
        curve.label = c.sets[i].label;
        curve.published = published;
        curve.predicted = !c.sets[i].predicted_from.empty();
        for (const SeriesPoint& p : s.points) {
          curve.bytes.push_back(static_cast<double>(p.bytes));
          curve.busbw_gbps.push_back(p.busbw_gbps);
          curve.time_us.push_back(p.time_us);
          if (curve.predicted)
            curve.time_lo.push_back(p.first->time_lo_us), curve.time_hi.push_back(p.first->time_hi_us);
          const auto at = std::lower_bound(bs.points.begin(), bs.points.end(), p.bytes,
                                           [](const SeriesPoint& q, std::uint64_t b) { return q.bytes < b; });
          curve.ratio.push_back(at != bs.points.end() && at->bytes == p.bytes ? busbw_ratio_of(p, *at) : kNaN);
        }
        g.curves.push_back(std::move(curve));
      }
    }
    out.push_back(std::move(g));
  }
  return out;
}

Section environment_section(const Comparison& c) {
  Section s;
  s.heading = "Environment";
  std::set<std::string> names;
  for (const ResultSet& r : c.sets)
    for (const auto& kv : r.environment) names.insert(kv.first);
  Table t;
  t.header = {"what"};
  for (const ResultSet& r : c.sets) t.header.push_back(r.label);
  t.left_columns = t.header.size();
  std::size_t differing = 0;
  // A long value (a CUDA error string as a version, a list of NICs) would
  // stretch the table: it is numbered in the cell and given in full below.
  constexpr std::size_t kLongValue = 48;
  std::vector<std::string> long_values;
  std::map<std::string, std::size_t> long_index;  // name + value -> its number (one per distinct value)
  for (const std::string& n : names) {
    std::set<std::string> distinct;
    std::vector<Cell> row{{n}};
    for (const ResultSet& r : c.sets) {
      const auto it = r.environment.find(n);
      std::string value = it == r.environment.end() ? "-" : it->second;
      if (value.size() > kLongValue) {
        const auto [at, fresh] = long_index.emplace(n + '\0' + value, long_values.size() + 1);
        if (fresh) long_values.push_back(fmt::format("[{}] {}: {}", at->second, n, value));
        value = fmt::format("{}... [{}]", value.substr(0, kLongValue - 12), at->second);
      }
      row.push_back({value});
      if (it != r.environment.end() && r.published_source.empty()) distinct.insert(it->second);
    }
    if (distinct.size() > 1) {
      ++differing;
      for (auto& cell : row) cell.tone = Tone::warn;
    }
    t.rows.push_back(std::move(row));
  }
  s.paragraphs.push_back(names.empty()
                             ? "The inputs record no environment."
                             : fmt::format("{} of {} recorded facts differ between the measured sets (highlighted).",
                                           differing, names.size()));
  if (!long_values.empty()) {
    t.note = "Long values, in full:";
    for (const std::string& v : long_values) t.note += " " + v + ";";
    t.note.pop_back();
  }
  if (!t.rows.empty()) s.tables.push_back(std::move(t));
  return s;
}

Section cost_section(const Comparison& c, const CostInputs& cost) {
  Section s;
  s.heading = "Cost";
  s.paragraphs.push_back(
      "Price per GPU-hour: cloud as given (or node price / GPUs per node); bare metal = (capital / amortisation years "
      "+ "
      "yearly operating cost) / (GPUs x 8760 h x utilisation). Cost per PB = price per GPU-hour x 1e6 / (3600 x peak "
      "busbw "
      "in GB/s): one GPU's share of 1e15 bytes of bus traffic at the collective's peak. Host-memory runs count one "
      "rank as one GPU.");
  Table profiles;
  profiles.title = "Profiles";
  profiles.header = {"label", "profile", "kind", "price per GPU-hour", "derivation"};
  profiles.left_columns = 5;
  Table per_pb;
  per_pb.title = "Cost per PB moved at peak busbw";
  per_pb.header = {"label", "series", "peak busbw (GB/s)", "cost per PB"};
  per_pb.left_columns = 2;
  for (std::size_t i = 0; i < c.sets.size(); ++i) {
    if (i >= cost.profiles.size() || !cost.profiles[i]) continue;
    const CostProfile& p = *cost.profiles[i];
    profiles.rows.push_back({{c.sets[i].label},
                             {p.name.empty() ? p.file : p.name},
                             {p.kind},
                             {format_money(p.per_gpu_hour, p.currency)},
                             {p.derivation}});
    for (const Series& ser : c.chart_tables[i]->series) {
      const CurveFacts f = curve_facts(ser);
      if (std::isnan(f.peak_busbw_gbps)) continue;
      per_pb.rows.push_back({{c.sets[i].label},
                             {ser.label()},
                             {format_gbps(f.peak_busbw_gbps)},
                             {format_money(cost_per_pb(p, f.peak_busbw_gbps), p.currency)}});
    }
  }
  if (!profiles.rows.empty()) s.tables.push_back(std::move(profiles));
  if (!per_pb.rows.empty()) s.tables.push_back(std::move(per_pb));
  if (cost.workload && !cost.decision) {
    const Workload& w = *cost.workload;
    s.paragraphs.push_back(fmt::format(
        "Workload {}: data-parallel training, {:.4g} parameters in {} on {} GPUs: {} of gradients all-reduced per "
        "step. "
        "Time per step = bytes / (busbw at that size / bus factor for {} GPUs); busbw is read off each set's {} curve "
        "(log2-size interpolation; the end value beyond the measured range, marked extrapolated). Cost per 1,000 steps "
        "= "
        "1000 x time per step x GPUs x price per GPU-hour / 3600.",
        w.name.empty() ? w.file : w.name, w.parameters, w.dtype, w.gpus, format_size(w.bytes_per_step()), w.gpus,
        w.collective));
    Table t;
    t.title = "Workload estimate";
    t.header = {"label", "curve", "busbw used (GB/s)", "communication per step", "cost per 1,000 steps"};
    t.left_columns = 2;
    for (std::size_t i = 0; i < c.sets.size(); ++i) {
      const CostProfile* p = i < cost.profiles.size() && cost.profiles[i] ? &*cost.profiles[i] : nullptr;
      const auto e = estimate_workload(w, *c.chart_tables[i], p);
      if (!e) {
        t.rows.push_back(
            {{c.sets[i].label}, {fmt::format("no {} curve", w.collective), Tone::muted}, {"-"}, {"-"}, {"-"}});
        continue;
      }
      t.rows.push_back(
          {{c.sets[i].label},
           {e->curve->label() + (e->extrapolated ? " (extrapolated)" : ""), e->extrapolated ? Tone::warn : Tone::plain},
           {format_gbps(e->busbw_gbps)},
           {format_seconds(e->time_per_step_s)},
           {p ? format_money(e->cost_per_1000_steps, p->currency) : std::string("no cost profile")}});
    }
    s.tables.push_back(std::move(t));
  }
  return s;
}

}  // namespace

Report build_report(const Comparison& c, const CostInputs& cost, const ReportLimits& limits) {
  Report r;
  r.title = fmt::format(
      "ccbench compare: {} against {}",
      [&] {
        std::string others;
        for (std::size_t i = 0; i < c.sets.size(); ++i)
          if (i != c.options.baseline) others += (others.empty() ? "" : ", ") + c.sets[i].label;
        return others;
      }(),
      c.baseline().label);
  r.sections.push_back(verdict_section(c));
  if (Section normal = expectation_section(c); !normal.tables.empty()) r.sections.push_back(std::move(normal));
  r.sections.push_back(inputs_section(c, limits));
  for (const std::string& n : cost.notes) r.sections.back().paragraphs.push_back(n + ".");
  r.charts = chart_groups(c);
  Section charts;
  charts.heading = "Charts";
  charts.chart = 0;
  charts.paragraphs.push_back(
      fmt::format("One chart set per series of the baseline, every set overlaid (aligned on {}).",
                  key_fields_text(c.chart_fields)));
  r.sections.push_back(std::move(charts));
  for (const PairComparison& pc : c.pairs) r.sections.push_back(pair_section(c, pc, limits));
  r.sections.push_back(environment_section(c));
  bool any_cost = cost.workload.has_value() || cost.decision.has_value();
  for (const auto& p : cost.profiles) any_cost = any_cost || p.has_value();
  if (any_cost) r.sections.push_back(cost_section(c, cost));
  if (cost.decision) {
    // The decision's sentences open the summary.
    Section d = summary_section(*cost.decision);
    Section& first = r.sections.front();
    first.paragraphs.insert(first.paragraphs.begin(), d.paragraphs.begin(), d.paragraphs.end());
    r.sections.push_back(cost.decision->training ? step_decision_section(*cost.decision)
                                                 : decision_section(*cost.decision, *cost.workload));
  }
  return r;
}

}  // namespace ccb
