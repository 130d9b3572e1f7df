#include "analysis/decide/replay_comparison.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "common/errors.hpp"
#include "analysis/compare/mann_whitney.hpp"
#include "results/stats.hpp"

namespace ccb {
namespace {

using json = nlohmann::json;

double quantile_of(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v.empty() ? kNaN : quantile_sorted(v, q);
}

std::vector<std::string> differences(const ReplayRun& a, const ReplayRun& b) {
  std::vector<std::string> out;
  if (a.workload != b.workload) out.push_back(fmt::format("workload '{}' and '{}'", a.workload, b.workload));
  if (a.parallelism != b.parallelism) out.push_back(fmt::format("parallelism {} and {}", a.parallelism, b.parallelism));
  if (a.ranks != b.ranks || a.ranks_per_node != b.ranks_per_node)
    out.push_back(
        fmt::format("{} ranks, {} per node and {}, {} per node", a.ranks, a.ranks_per_node, b.ranks, b.ranks_per_node));
  return out;
}

}  // namespace

ReplayMedians replay_medians(const ReplayRun& r) {
  ReplayMedians m;
  const auto column = [&](auto get) {
    std::vector<double> v;
    for (const ReplayStep& s : r.steps) v.push_back(get(s));
    return v;
  };
  const std::vector<double> steps = column([](const ReplayStep& s) { return s.step_s; });
  m.step_s = quantile_of(steps, 0.5), m.step_p10 = quantile_of(steps, 0.1), m.step_p90 = quantile_of(steps, 0.9);
  m.compute_s = quantile_of(column([](const ReplayStep& s) { return s.compute_s; }), 0.5);
  m.exposed_s = quantile_of(column([](const ReplayStep& s) { return s.exposed_s; }), 0.5);
  for (std::size_t d = 0; d < kDims; ++d)
    m.by_dim[d] = quantile_of(column([&](const ReplayStep& s) { return s.by_dim[d]; }), 0.5);
  return m;
}

ReplayComparison compare_replays(std::vector<ReplayRun> runs, std::size_t baseline, double alpha) {
  ReplayComparison c;
  c.baseline = baseline, c.alpha = alpha;
  for (const ReplayRun& r : runs) c.medians.push_back(replay_medians(r));
  c.runs = std::move(runs);
  const ReplayRun& base = c.runs[baseline];
  const ReplayMedians& bm = c.medians[baseline];
  std::vector<double> base_steps;
  for (const ReplayStep& s : base.steps) base_steps.push_back(s.step_s);
  for (std::size_t i = 0; i < c.runs.size(); ++i) {
    if (i == baseline) continue;
    ReplayPair p;
    p.other = i;
    const ReplayMedians& om = c.medians[i];
    p.ratio = om.step_s / bm.step_s;
    p.lo = om.step_p10 / bm.step_p90, p.hi = om.step_p90 / bm.step_p10;
    std::vector<double> other_steps;
    for (const ReplayStep& s : c.runs[i].steps) other_steps.push_back(s.step_s);
    if (const auto mw = mann_whitney(base_steps, other_steps)) p.p_value = mw->p;
    // The call is on "lower / higher": the faster set first.
    const bool other_faster = p.ratio < 1;
    p.call = other_faster ? call_ratio(c.runs[i].label, base.label, 1 / p.ratio, 1 / p.hi, 1 / p.lo)
                          : call_ratio(base.label, c.runs[i].label, p.ratio, p.lo, p.hi);
    if (p.call.kind == RatioCall::winner && !(p.p_value && *p.p_value < alpha)) {
      p.call.kind = RatioCall::not_aligned;
      p.call.why = p.p_value ? fmt::format(
                                   "the step times do not differ significantly (Mann-Whitney p = {:.3g}, "
                                   "alpha {:g})",
                                   *p.p_value, alpha)
                             : "too few steps for a significance test (2 or more on each side)";
    }
    p.differences = differences(base, c.runs[i]);
    c.pairs.push_back(std::move(p));
  }
  return c;
}

std::string replay_comparison_json(const ReplayComparison& c) {
  json sets = json::array();
  for (std::size_t i = 0; i < c.runs.size(); ++i) {
    const ReplayRun& r = c.runs[i];
    const ReplayMedians& m = c.medians[i];
    json dims = json::object();
    for (std::size_t d = 0; d < kDims; ++d) dims[std::string(setting_name(static_cast<Dim>(d)))] = m.by_dim[d];
    sets.push_back({{"label", r.label},
                    {"file", r.file},
                    {"baseline", i == c.baseline},
                    {"workload", r.workload},
                    {"ranks", r.ranks},
                    {"nodes", r.nodes},
                    {"steps", r.steps.size()},
                    {"status", r.status},
                    {"median_step_s", m.step_s},
                    {"p10_step_s", m.step_p10},
                    {"p90_step_s", m.step_p90},
                    {"median_compute_s", m.compute_s},
                    {"median_exposed_s", m.exposed_s},
                    {"median_exposed_by_dim_s", dims}});
  }
  json pairs = json::array();
  for (const ReplayPair& p : c.pairs)
    pairs.push_back({{"other", c.runs[p.other].label},
                     {"step_ratio", p.ratio},
                     {"interval", {p.lo, p.hi}},
                     {"p_value", p.p_value ? json(*p.p_value) : json()},
                     {"faster", p.call.kind == RatioCall::winner ? json(p.call.lower) : json()},
                     {"differences", p.differences}});
  const json doc = {
      {"type", "ccbench_compare_replays"}, {"version", 1}, {"alpha", c.alpha}, {"sets", sets}, {"pairs", pairs}};
  return doc.dump(1) + "\n";
}

}  // namespace ccb
