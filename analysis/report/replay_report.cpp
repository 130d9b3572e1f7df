// The report of replayed training steps side by side (ccbench compare on
// `ccbench replay -J` records): a Summary sentence per set against the
// baseline, the per-set table (medians of the steps), the pairs' table.
// Numbers from analysis/decide/replay_comparison.cpp; all measured.
#include <fmt/format.h>

#include <cmath>

#include "analysis/report/report.hpp"

namespace ccb {
namespace {

std::string replay_dims(const ReplayMedians& m) {
  std::string out;
  for (std::size_t d = 0; d < kDims; ++d)
    if (m.by_dim[d] > 0)
      out += fmt::format("{}{} {}", out.empty() ? "" : ", ", setting_name(static_cast<Dim>(d)),
                         format_seconds(m.by_dim[d]));
  return out.empty() ? "none" : out;
}

std::string pair_sentence(const ReplayComparison& c, const ReplayPair& p) {
  const ReplayRun &b = c.runs[c.baseline], &o = c.runs[p.other];
  const ReplayMedians &bm = c.medians[c.baseline], &om = c.medians[p.other];
  // In words that do not restate the interval in the other orientation.
  const std::string verdict =
      p.call.kind == RatioCall::winner   ? fmt::format("'{}' is faster by {:.2f}x", p.call.lower, p.call.ratio)
      : p.call.kind == RatioCall::on_par ? std::string("they are on par (the interval within 2% of equal)")
      : p.call.kind == RatioCall::contains_equal
          ? std::string("cannot tell which is faster: the interval contains equal")
      : p.call.kind == RatioCall::too_wide
          ? fmt::format("cannot tell which is faster: the interval spans more than {:g}x", kMaxIntervalSpan)
          : cannot_tell(p.call, "faster");
  const std::string test = p.p_value ? fmt::format("Mann-Whitney p = {:.3g} over {} and {} steps", *p.p_value,
                                                   b.steps.size(), o.steps.size())
                                     : "no significance test (fewer than 2 steps on a side)";
  std::string diff, noise;
  for (const std::string& d : p.differences) diff += (diff.empty() ? "" : "; ") + d;
  for (const ReplayRun* r : {&o, &b})
    for (const std::string& n : r->noise)
      noise += fmt::format(" Noise: '{}': {}: its steps include waiting for a CPU.", r->label, n);
  return fmt::format(
      "'{}' vs '{}' (baseline), the replayed step of {} (measured): median {} against {} (10th-90th percentile {} - "
      "{} and {} - {}), ratio {:.3g}x (interval {:.3g}x to {:.3g}x), {}: {}. Exposed communication {} against {} "
      "({} / {}).{}{}",
      o.label, b.label, b.workload, format_seconds(om.step_s), format_seconds(bm.step_s), format_seconds(om.step_p10),
      format_seconds(om.step_p90), format_seconds(bm.step_p10), format_seconds(bm.step_p90), p.ratio, p.lo, p.hi, test,
      verdict, format_seconds(om.exposed_s), format_seconds(bm.exposed_s), replay_dims(om), replay_dims(bm),
      diff.empty() ? "" : " The replays differ: " + diff + ".", noise);
}

Table replay_sets_table(const ReplayComparison& c) {
  Table t;
  t.title = "Per set (medians over the steps; the slowest rank's step)";
  t.header = {"label",  "workload", "parallelism", "ranks (nodes)", "steps",
              "status", "step",     "10th-90th",   "compute",       "exposed"};
  for (std::size_t d = 0; d < kDims; ++d) t.header.emplace_back(setting_name(static_cast<Dim>(d)));
  t.left_columns = 3;
  for (std::size_t i = 0; i < c.runs.size(); ++i) {
    const ReplayRun& r = c.runs[i];
    const ReplayMedians& m = c.medians[i];
    std::vector<Cell> row{
        {r.label + (i == c.baseline ? " (baseline)" : "")},
        {r.workload},
        {r.parallelism},
        {fmt::format("{} ({})", r.ranks, r.nodes)},
        {fmt::format("{}", r.steps.size())},
        {r.status.empty() ? "no end record" : r.status, r.status == "completed" ? Tone::plain : Tone::warn},
        {format_seconds(m.step_s)},
        {format_seconds(m.step_p10) + " - " + format_seconds(m.step_p90)},
        {format_seconds(m.compute_s)},
        {format_seconds(m.exposed_s)}};
    for (std::size_t d = 0; d < kDims; ++d) row.push_back({format_seconds(m.by_dim[d])});
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table replay_pairs_table(const ReplayComparison& c) {
  Table t;
  t.title = "Against the baseline (step time, other / baseline)";
  t.header = {"label", "ratio", "interval", "p (Mann-Whitney)", "call"};
  t.left_columns = 1;
  t.last_left = true;
  for (const ReplayPair& p : c.pairs) {
    const bool won = p.call.kind == RatioCall::winner;
    t.rows.push_back({{c.runs[p.other].label},
                      {fmt::format("{:.3f}x", p.ratio), p.ratio < 1 ? Tone::better : Tone::worse},
                      {fmt::format("{:.3g}x - {:.3g}x", p.lo, p.hi)},
                      {p.p_value ? fmt::format("{:.3g}", *p.p_value) : "-"},
                      {won ? fmt::format("'{}' faster by {:.2f}x", p.call.lower, p.call.ratio) : "cannot tell",
                       won ? Tone::plain : Tone::muted}});
  }
  return t;
}

}  // namespace

Report replay_report(const ReplayComparison& c) {
  Report r;
  std::string others;
  for (const ReplayPair& p : c.pairs) others += (others.empty() ? "" : ", ") + c.runs[p.other].label;
  r.title = fmt::format("ccbench compare: replayed steps of {} against {}", others, c.runs[c.baseline].label);
  Section summary;
  summary.heading = "Summary";
  for (const ReplayPair& p : c.pairs) summary.paragraphs.push_back(pair_sentence(c, p));
  r.sections.push_back(std::move(summary));
  Section sets;
  sets.heading = "Replays";
  sets.paragraphs.push_back(fmt::format(
      "Each set is one ccbench replay record (docs/workload.md): per step the slowest rank's step time, compute and "
      "communication not hidden by compute, per dimension. A set is called faster only when the interval of the "
      "ratio (the other's 10th / the baseline's 90th percentile .. the other's 90th / the baseline's 10th) excludes "
      "equal and spans at most 10x, and the Mann-Whitney U test on the step times rejects equal at alpha {:g}.",
      c.alpha));
  sets.tables.push_back(replay_sets_table(c));
  sets.tables.push_back(replay_pairs_table(c));
  r.sections.push_back(std::move(sets));
  return r;
}

}  // namespace ccb
