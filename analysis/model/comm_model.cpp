#include "analysis/model/comm_model.hpp"
#include "results/json_text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "collectives/collective.hpp"
#include "common/errors.hpp"
#include "kernels/dtype.hpp"
#include "results/json_integer.hpp"
#include "analysis/model/library_rules.hpp"
#include "analysis/model/step_cost.hpp"
#include "results/stats.hpp"

namespace ccb {

const char* family_name(ModelFamily f) {
  switch (f) {
    case ModelFamily::ring: return "ring";
    case ModelFamily::tree: return "tree";
    case ModelFamily::halving_doubling: return "halving_doubling";
    case ModelFamily::linear: return "linear";
    case ModelFamily::constant: return "constant";
    case ModelFamily::recursive_doubling: return "recursive_doubling";
    case ModelFamily::rabenseifner: return "rabenseifner";
    case ModelFamily::neighbor_exchange: return "neighbor_exchange";
    case ModelFamily::library_rules: return "library_rules";
  }
  return "?";
}

Steps family_steps(ModelFamily f, int ranks, double bytes) {
  const double n = std::max(ranks, 1);
  const double levels = std::max(1.0, std::ceil(std::log2(n)));
  switch (f) {
    case ModelFamily::ring: return {n - 1, bytes / n};
    case ModelFamily::tree: return {levels, bytes};
    case ModelFamily::halving_doubling: return {levels, bytes * (n - 1) / (n * levels)};
    case ModelFamily::linear: return {n - 1, bytes};
    case ModelFamily::constant: return {1, bytes};
    // Both fold n into p = 2^floor(log2 n) ranks first: r = n - p ranks hand
    // their data to a partner and get the result back at the end.
    case ModelFamily::recursive_doubling: {  // log2 p exchanges of s, + 2 of s when folded
      const double p = std::exp2(std::floor(std::log2(n)));
      return {std::log2(p) + (n > p ? 2 : 0), bytes};
    }
    case ModelFamily::rabenseifner: {
      // Reduce-scatter by recursive halving then all-gather by recursive
      // doubling: 2 log2 p steps moving 2 s (p-1)/p; folded: halves swapped
      // (s/2), the odd rank's half back (s/2), the whole result out (s) at the
      // end: 3 steps moving 2 s. Steps of unequal size are averaged.
      const double p = std::exp2(std::floor(std::log2(n)));
      const double count = 2 * std::log2(p) + (n > p ? 3 : 0);
      const double moved = 2 * bytes * (p - 1) / p + (n > p ? 2 * bytes : 0);
      return {std::max(count, 1.0), moved / std::max(count, 1.0)};
    }
    case ModelFamily::neighbor_exchange:  // n/2 exchanges moving (n-1)/n of s; ring's steps at an odd count
      if (static_cast<int>(n) % 2 != 0) return {n - 1, bytes / n};
      return {n / 2, bytes * (n - 1) / n / (n / 2)};
    case ModelFamily::library_rules: break;  // per point: point_steps
  }
  return {1, bytes};
}

namespace {

// What the library's rules choose for one operation of s, with its family.
struct RuleFamily {
  RuleChoice choice;
  ModelFamily family;
};
std::optional<RuleFamily> rule_family(const ModelSeries& s, int ranks, double bytes) {
  const auto choice = library_choice(RuleQuery{s.library, s.mpi_calls, s.collective, ranks,
                                               static_cast<std::uint64_t>(std::max(bytes, 0.0)), 0, s.in_place == 1});
  if (!choice) return std::nullopt;
  const auto family = algorithm_family(choice->forced, s.collective);
  if (!family) return std::nullopt;
  return RuleFamily{*choice, *family};
}

}  // namespace

Steps point_steps(const ModelSeries& s, ModelFamily f, int ranks, double bytes) {
  if (f != ModelFamily::library_rules) return family_steps(f, ranks, bytes);
  const auto r = rule_family(s, ranks, bytes);
  return family_steps(r ? r->family : ModelFamily::ring, ranks, bytes);
}

std::string ModelSeries::key(bool with_forced) const {
  std::string k = collective;
  if (!dtype.empty()) k += " " + dtype;
  if (!op.empty() && op != "-") k += " " + op;
  if (in_place >= 0) k += in_place ? ", in-place" : ", out-of-place";
  if (!path.empty()) k += ", path " + path;
  if (!memory.empty()) k += ", " + memory;
  if (with_forced && !forced.empty()) k += ", forced " + algorithm_label(forced, collective);
  k += ranks_per_node > 0 ? fmt::format(", multi-node ({} rank{}/node)", ranks_per_node, ranks_per_node == 1 ? "" : "s")
                          : ", single node";
  return k;
}

namespace {

double point_noise(const ImportedPoint& p) {
  if (p.samples_us.size() >= 5) {
    const Summary s = summarize(p.samples_us);
    return s.p50 > 0 ? std::log(s.p90 / s.p50) : 0;
  }
  if (p.p50_us > 0 && p.p90_us >= p.p50_us) return std::log(p.p90_us / p.p50_us);
  return 0;
}

std::string backend_of(const ResultSet& set, std::size_t file) {
  if (const auto it = set.environment.find("config.backend"); it != set.environment.end() && !it->second.empty())
    return it->second;
  return set.formats[file].starts_with("nccl-tests") ? "nccl" : "mpi";
}

int group_of(const ModelSeries& s, int ranks) {
  return static_cast<int>(std::lower_bound(s.counts.begin(), s.counts.end(), ranks) - s.counts.begin());
}

// The step-cost curve of a series under a family.
StepCost step_cost(const ModelSeries& s, ModelFamily f) {
  StepCost c(static_cast<int>(s.counts.size()));
  for (const ModelPoint& p : s.points) {
    const Steps st = point_steps(s, f, p.ranks, static_cast<double>(p.bytes));
    c.add(std::log2(std::max(st.bytes, 1e-3)), std::log(p.time_us / st.count), group_of(s, p.ranks));
  }
  return c;
}

double model_time(const ModelSeries& s, const StepCost& c, ModelFamily f, int ranks, double bytes, int skip = -1) {
  const Steps st = point_steps(s, f, ranks, bytes);
  return st.count * std::exp(c.eval(std::log2(std::max(st.bytes, 1e-3)), skip));
}

// |log(pred/meas)| of every point predicted without its rank count.
std::vector<double> left_out_errors(const ModelSeries& s, ModelFamily f) {
  std::vector<double> e(s.points.size(), kNaN);
  if (s.counts.size() < 3) return e;
  const StepCost c = step_cost(s, f);
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const ModelPoint& p = s.points[i];
    const double t = model_time(s, c, f, p.ranks, static_cast<double>(p.bytes), group_of(s, p.ranks));
    e[i] = t > 0 ? std::fabs(std::log(t / p.time_us)) : 10;
  }
  return e;
}

using PointsBySize = std::map<std::pair<std::uint64_t, int>, std::vector<const ImportedPoint*>>;

void fit_series(ModelSeries& s, const PointsBySize& by_size) {
  std::set<int> counts;
  for (const auto& [key, pts] : by_size) {
    std::vector<double> times;
    double noise = 0;
    std::set<std::string> algorithms;
    for (const ImportedPoint* p : pts) {
      times.push_back(p->time_us), noise = std::max(noise, point_noise(*p));
      if (!p->algorithm.empty()) algorithms.insert(p->algorithm);
    }
    const std::uint64_t requested = pts.front()->requested_bytes;
    s.points.push_back({key.second, key.first, requested, median_of(times), noise, kNaN,
                        fmt::format("{}", fmt::join(algorithms, "|"))});
    counts.insert(key.second);
  }
  s.counts.assign(counts.begin(), counts.end());
  if (s.counts.size() < 2) return;
  std::map<ModelFamily, std::vector<double>> errors;  // per family, reused for the chosen one
  bool scored = false;
  for (ModelFamily f : kModelFamilies) {
    errors[f] = left_out_errors(s, f);
    s.scores.push_back({f, median_of(errors[f])});
    scored = scored || !std::isnan(s.scores.back().median_left_out);
  }
  // The library's usual algorithm for the collective (ring; one step for
  // point-to-point) unless another family predicts left-out counts clearly
  // better: a lower median error by kFamilyClearlyBetter and by kFamilyMargin at least.
  const Collective* c = find_collective(s.collective);
  const ModelFamily usual = c && c->point_to_point ? ModelFamily::constant : ModelFamily::ring;
  s.family = usual;
  // Unforced runs of a library whose fixed rules are tabulated at every
  // fitted point: each point's family is the algorithm the rules choose
  // there, at the target too (issue 53 item 3: families chosen from the data
  // differed between two link speeds of one network, and a 256x
  // extrapolation of the difference made a 144x call).
  std::set<std::string> by_rules;  // the algorithms the rules chose at the fitted points
  for (const ModelPoint& p : s.points) {
    const auto r = s.forced.empty() ? rule_family(s, p.ranks, static_cast<double>(p.bytes)) : std::nullopt;
    if (!r) {
      by_rules.clear();
      break;
    }
    by_rules.insert(algorithm_label(r->choice.forced, s.collective));
  }
  if (!by_rules.empty()) {
    const ModelFamily f = ModelFamily::library_rules;
    errors[f] = left_out_errors(s, f);
    s.scores.push_back({f, median_of(errors[f])});
    s.family = f;
    s.chosen_by = fmt::format(
        "library_rules: each point the algorithm the library's fixed rules choose there (at the fitted points: {})",
        fmt::join(by_rules, ", "));
  } else if (const auto f = algorithm_family(s.forced, s.collective)) {
    // The runs forced a known algorithm: its steps, not a guess from the data.
    if (!errors.contains(*f)) {
      errors[*f] = left_out_errors(s, *f);
      s.scores.push_back({*f, median_of(errors[*f])});
    }
    s.family = *f;
    s.chosen_by =
        fmt::format("{}: the algorithm the runs forced ({})", family_name(*f), algorithm_label(s.forced, s.collective));
  } else if (scored) {
    const auto key = [](const FamilyScore& x) { return std::isnan(x.median_left_out) ? INFINITY : x.median_left_out; };
    const FamilyScore& best =
        *std::min_element(s.scores.begin(), s.scores.end(), [&](auto& x, auto& y) { return key(x) < key(y); });
    double usual_score = INFINITY;
    for (const FamilyScore& f : s.scores)
      if (f.family == usual) usual_score = key(f);
    if (key(best) < usual_score * kFamilyClearlyBetter && key(best) < usual_score - kFamilyMargin) {
      s.family = best.family;
      s.chosen_by = fmt::format("left-out error: {} predicts left-out rank counts clearly better than {}",
                                family_name(best.family), family_name(usual));
    } else {
      s.chosen_by = fmt::format("{}, the usual algorithm; no family predicts left-out rank counts clearly better",
                                family_name(usual));
    }
  } else {
    s.chosen_by =
        fmt::format("{}, the usual algorithm: with two rank counts nothing can be left out", family_name(usual));
  }
  const std::vector<double>& e = errors[s.family];
  for (std::size_t i = 0; i < e.size(); ++i) s.points[i].left_out = e[i];
}

// The sizes at which NCCL chose different algorithms at different rank
// counts of the fit: "" when it did not (or nothing was recorded).
std::string algorithm_mix(const ModelSeries& s) {
  std::map<std::uint64_t, std::map<std::string, std::vector<int>>> by_size;  // bytes -> algorithm -> counts
  for (const ModelPoint& p : s.points)
    if (!p.algorithm.empty()) by_size[p.bytes][p.algorithm].push_back(p.ranks);
  std::vector<std::string> sizes;
  for (const auto& [bytes, algorithms] : by_size) {
    if (algorithms.size() < 2) continue;
    std::vector<std::string> parts;
    for (const auto& [name, counts] : algorithms)
      parts.push_back(fmt::format("{} at {} ranks", name, fmt::join(counts, ", ")));
    sizes.push_back(fmt::format("{} B: {}", bytes, fmt::join(parts, "; ")));
  }
  if (sizes.empty()) return "";
  return fmt::format(
      "{}: NCCL chose different algorithms at different rank counts ({}{}): the fit mixes their scaling; "
      "fit at counts that run the target's algorithm",
      s.key(), sizes.front(), sizes.size() > 1 ? fmt::format("; {} more sizes", sizes.size() - 1) : "");
}

}  // namespace

std::string algorithm_switch(const ModelSeries& s, std::uint64_t bytes, const std::string& measured) {
  if (measured.empty()) return "";
  const ModelPoint* fitted = nullptr;  // the largest count's point at this size
  for (const ModelPoint& p : s.points)
    if (p.bytes == bytes && !p.algorithm.empty() && (!fitted || p.ranks > fitted->ranks)) fitted = &p;
  if (!fitted || fitted->algorithm == measured) return "";
  return fmt::format("{} at {} ranks in the fit, {} here", fitted->algorithm, fitted->ranks, measured);
}

Model fit_model(const std::vector<ResultSet>& runs) {
  Model m;
  std::set<std::string> backends;
  using SeriesKey = std::tuple<std::string, std::string, std::string, std::string, std::string, int, int, std::string>;
  std::set<std::string> libraries;
  std::map<SeriesKey, PointsBySize> groups;
  std::size_t one_rank = 0, side_by_side = 0;
  std::set<std::string> calls;  // MPI's blocking or nonblocking calls (--mpi-calls)
  for (const ResultSet& set : runs) {
    m.inputs.insert(m.inputs.end(), set.files.begin(), set.files.end());
    if (const auto lib = set.environment.find("versions.mpi_library"); lib != set.environment.end())
      libraries.insert(lib->second);
    for (const ImportedPoint& p : set.points) {
      backends.insert(backend_of(set, p.file));
      if (p.ranks < 2 || !(p.time_us > 0) || p.bytes == 0) {
        one_rank += p.ranks < 2;
        continue;
      }
      if (p.groups > 1) {  // a --split run: its groups share links, which the model's costs do not hold
        ++side_by_side;
        continue;
      }
      if (!p.mpi_calls.empty()) calls.insert(p.mpi_calls.str());
      const int rpn = p.nodes > 1 ? std::max(1, p.ranks / p.nodes) : 0;
      groups[{p.collective.str(), p.dtype.str(), p.op.str(), p.path.str(), p.memory.str(), p.in_place, rpn,
              p.forced_algorithm}][{p.bytes, p.ranks}]
          .push_back(&p);
    }
  }
  if (backends.size() > 1 || (backends.size() == 1 && backends.begin()->find(" | ") != std::string::npos)) {
    std::string list;
    for (const auto& b : backends) list += (list.empty() ? "" : ", ") + b;
    throw UsageError(fmt::format("model fit: the runs mix backends ({}): fit one backend at a time", list));
  }
  if (calls.size() > 1)
    throw UsageError(
        "model fit: the runs mix MPI's blocking and nonblocking calls (--mpi-calls), which MPI runs with different "
        "algorithms: fit one at a time");
  if (!backends.empty()) m.backend = *backends.begin();
  // One library version's decision rules: runs of several versions have none.
  if (libraries.size() == 1) m.library = *libraries.begin();
  if (calls.size() == 1) m.mpi_calls = *calls.begin();
  if (one_rank) m.notes.push_back(fmt::format("{} points at 1 rank left out (no communication to model)", one_rank));
  if (side_by_side)
    m.notes.push_back(
        fmt::format("{} points of groups side by side (--split) left out (they share links; the model is of one group)",
                    side_by_side));
  for (auto& [key, by_size] : groups) {
    ModelSeries s;
    std::tie(s.collective, s.dtype, s.op, s.path, s.memory, s.in_place, s.ranks_per_node, s.forced) = key;
    if (m.backend == "mpi") s.library = m.library, s.mpi_calls = m.mpi_calls;  // whose rules apply
    fit_series(s, by_size);
    if (s.counts.size() < 2) {
      m.notes.push_back(
          fmt::format("{}: measured at {} ranks only: a fit needs two or more rank counts", s.key(), s.counts.front()));
      continue;
    }
    if (std::string mixed = algorithm_mix(s); !mixed.empty()) m.notes.push_back(std::move(mixed));
    m.series.push_back(std::move(s));
  }
  if (m.series.empty())
    throw UsageError(fmt::format("model fit: nothing to fit: every series needs sweeps at two or more rank counts ({})",
                                 m.notes.empty() ? "no measured points" : m.notes.back()));
  return m;
}

namespace {

// Interval half-width in log terms at a target step size x (log2 bytes).
double interval_width(const ModelSeries& s, ModelFamily f, double x, int ranks) {
  std::vector<double> left, near_noise;
  for (double window : {1.0, 2.0, 1e9}) {
    for (const ModelPoint& p : s.points) {
      const double px = std::log2(std::max(point_steps(s, f, p.ranks, static_cast<double>(p.bytes)).bytes, 1e-3));
      if (std::fabs(px - x) > window) continue;
      if (!std::isnan(p.left_out)) left.push_back(p.left_out);
      near_noise.push_back(p.noise);
    }
    if (left.size() >= 3 || (s.counts.size() < 3 && !near_noise.empty())) break;
    left.clear(), near_noise.clear();
  }
  double h = 0;
  if (!left.empty()) {
    std::sort(left.begin(), left.end());
    h = quantile_sorted(left, 0.9);
  }
  double noise = 0;
  for (double v : near_noise) noise = std::max(noise, v);
  double reach = 1;
  const double nmax = s.counts.back(), nprev = s.counts[s.counts.size() - 2];
  if (ranks > nmax) reach = std::max(1.0, std::log(ranks / nmax) / std::log(nmax / nprev));
  // Nothing could be left out (two rank counts): the error of one step of
  // extrapolation is unknown, taken as kUnvalidatedStepError, so that the
  // interval widens with the distance instead of claiming lo = hi.
  if (left.empty() && ranks > nmax) h = kUnvalidatedStepError;
  return std::sqrt(h * reach * h * reach + noise * noise);
}

const ModelSeries* pick_level(const Model& m, const ModelSeries& like, int ranks, int nodes,
                              std::vector<std::string>& flags, std::string& other_level) {
  const int rpn = nodes > 1 ? std::max(1, ranks / nodes) : 0;
  const ModelSeries* best = nullptr;
  int best_score = 1 << 30;
  for (const ModelSeries& s : m.series) {
    if (std::tie(s.collective, s.dtype, s.op, s.path, s.memory, s.in_place, s.forced) !=
        std::tie(like.collective, like.dtype, like.op, like.path, like.memory, like.in_place, like.forced))
      continue;
    // Same level and ranks per node first; then multi-node of another
    // ranks per node; the other level last.
    const int score = (rpn == 0) != (s.ranks_per_node == 0) ? 1 << 20 : std::abs(s.ranks_per_node - rpn);
    if (!best || score < best_score) best = &s, best_score = score;
  }
  if (!best) return nullptr;
  if (rpn > 0 && best->ranks_per_node == 0) {
    other_level = "single-node fits (a node's inside) for a group across nodes";
    flags.push_back(
        "no multi-node measurement: predicted from single-node counts, so the links between nodes are not in the "
        "model");
  } else if (rpn == 0 && best->ranks_per_node > 0) {
    other_level = "multi-node fits (the links between nodes) for a group inside one node";
    flags.push_back("no single-node measurement: predicted from multi-node counts");
  } else if (rpn != best->ranks_per_node)
    flags.push_back(fmt::format("{} ranks per node not measured: fitted at {}", rpn, best->ranks_per_node));
  return best;
}

}  // namespace

double ModelSeries::left_out_median() const {
  std::vector<double> e;  // the chosen family's left-out errors (what fit_series stores per point)
  for (const ModelPoint& p : points)
    if (!std::isnan(p.left_out)) e.push_back(p.left_out);
  return e.empty() ? kNaN : median_of(e);
}

std::vector<Prediction> predict(const Model& m, int ranks, int nodes, const std::vector<std::uint64_t>& sizes) {
  return predict_planned(m, ranks, nodes, [&](const ModelSeries& s) {
    std::vector<std::uint64_t> want = sizes;
    if (want.empty()) {
      for (const ModelPoint& q : s.points) want.push_back(q.bytes);
      std::sort(want.begin(), want.end());
      want.erase(std::unique(want.begin(), want.end()), want.end());
    }
    const auto d = parse_dtype(s.dtype);
    std::vector<PlannedSize> out;
    for (std::uint64_t b : want) out.push_back({b, d ? b / static_cast<std::uint64_t>(info(*d).size) : 0});
    return out;
  });
}

namespace {

using SeriesGroup = std::tuple<std::string, std::string, std::string, std::string, std::string, int>;
SeriesGroup group_of(const ModelSeries& s) { return {s.collective, s.dtype, s.op, s.path, s.memory, s.in_place}; }

bool constant_out_of_reach(const ModelSeries& s, int ranks) {
  return s.family == ModelFamily::constant && !s.counts.empty() && ranks > Model::kConstantReach * s.counts.back();
}

// The flags of predicting `s` at `ranks`: beyond validity, two counts only.
void scale_flags(const ModelSeries& s, int ranks, std::vector<std::string>& flags) {
  if (ranks > Model::kValidityFactor * s.counts.back())
    flags.push_back(
        fmt::format("beyond the model's validity ({} ranks > {:g}x the largest measured count, {}): extrapolated",
                    ranks, Model::kValidityFactor, s.counts.back()));
  if (s.counts.size() < 3)
    flags.push_back("fitted on two rank counts: nothing left out, the interval covers measurement spread only");
  if (constant_out_of_reach(s, ranks))
    flags.push_back(fmt::format(
        "family constant (its cost does not grow with the rank count): not extrapolated beyond {:g}x its largest "
        "count ({}), so unbounded at {} ranks; fit more rank counts, or force the library's algorithm",
        Model::kConstantReach, s.counts.back(), ranks));
}

PredictedPoint predict_point(const ModelSeries& s, const StepCost& cost, int ranks, const PlannedSize& size) {
  PredictedPoint q;
  q.from = &s;
  q.bytes = size.bytes;
  q.count = size.count;
  const double bytes = static_cast<double>(size.bytes);
  const double x = std::log2(std::max(point_steps(s, s.family, ranks, bytes).bytes, 1e-3));
  q.size_extrapolated = !cost.inside(x);
  q.time_us = model_time(s, cost, s.family, ranks, bytes);
  if (s.family == ModelFamily::library_rules)
    if (const auto r = rule_family(s, ranks, bytes)) {
      q.assumes = algorithm_label(r->choice.forced, s.collective);
      q.why = r->choice.why;
    }
  const double w = interval_width(s, s.family, x, ranks);
  q.lo_us = q.time_us * std::exp(-w);
  q.hi_us = q.time_us * std::exp(w);
  q.unbounded = !(w <= std::log(kUnboundedFactor)) || constant_out_of_reach(s, ranks);
  const Collective* c = find_collective(s.collective);
  q.algbw_gbps = bytes / (q.time_us * 1e3);
  q.busbw_gbps = c ? q.algbw_gbps * bus_factor(*c, ranks) : kNaN;
  return q;
}

// Whether the model's library (one version) has tabulated decision rules.
bool rules_known(const Model& m, const std::string& collective, int ranks) {
  return !m.library.empty() && m.library.find(" | ") == std::string::npos &&
         library_choice(RuleQuery{m.library, m.mpi_calls, collective, ranks, 1, 1, false}).has_value();
}

// What the library's rules are asked about one size of a series at `ranks`.
RuleQuery rule_query(const Model& m, const ModelSeries& s, int ranks, const PlannedSize& size) {
  return RuleQuery{m.library, m.mpi_calls, s.collective, ranks, size.bytes, size.count, s.in_place == 1};
}

// The library's own choice where the model holds only forced fits of a
// series: each size from the fit of the algorithm the library's fixed rules
// choose there (library_rules.hpp); a size whose algorithm was not fitted is
// predicted as nothing (NaN) and says which fit is missing. nullopt when the
// rules for this library and collective are not tabulated, or when no size's
// algorithm was fitted (choice_flags says so on the forced fits).
std::optional<Prediction> predict_by_rules(const Model& m, const ModelSeries& like, int ranks, int nodes,
                                           const SizePlanner& plan) {
  if (!rules_known(m, like.collective, ranks)) return std::nullopt;
  Prediction p;
  p.ranks = ranks;
  p.nodes = nodes;
  p.by_rules = true;
  std::map<std::string, std::pair<const ModelSeries*, StepCost>> fits;  // forced -> its fit at this level
  std::set<const ModelSeries*> used;
  for (const PlannedSize& size : plan(like)) {
    const auto choice = library_choice(rule_query(m, like, ranks, size));
    auto it = fits.find(choice->forced);
    if (it == fits.end()) {
      ModelSeries want = like;
      want.forced = choice->forced;
      std::vector<std::string> flags;
      const ModelSeries* s = pick_level(m, want, ranks, nodes, flags, p.other_level);
      if (s) {
        for (std::string& f : flags)
          if (std::find(p.flags.begin(), p.flags.end(), f) == p.flags.end()) p.flags.push_back(std::move(f));
        it = fits.emplace(choice->forced, std::make_pair(s, step_cost(*s, s->family))).first;
      } else {
        it = fits.emplace(choice->forced, std::make_pair(nullptr, StepCost(1))).first;
      }
    }
    PredictedPoint q;
    if (const ModelSeries* s = it->second.first) {
      if (!p.series) p.series = s;
      if (used.insert(s).second) scale_flags(*s, ranks, p.flags);
      q = predict_point(*s, it->second.second, ranks, size);
    } else {
      q.bytes = size.bytes;
      q.count = size.count;
    }
    q.assumes = algorithm_label(choice->forced, like.collective);
    q.why = choice->why;
    p.points.push_back(q);
  }
  if (!p.series) return std::nullopt;  // no size's algorithm was fitted: the forced fits' flags say so
  return p;
}

// A forced fit's flags where the library, unforced, would choose another
// algorithm at the target: "unforced, the library would run rabenseifner
// (Open MPI 6) for 65536-16777216 B, not this forced algorithm", then the rule.
void choice_flags(const Model& m, const ModelSeries& s, int ranks, const std::vector<PlannedSize>& sizes,
                  std::vector<std::string>& flags) {
  if (!rules_known(m, s.collective, ranks)) return;
  std::map<std::pair<std::string, std::string>, std::pair<std::uint64_t, std::uint64_t>> other;  // -> size range
  for (const PlannedSize& size : sizes) {
    const auto choice = library_choice(rule_query(m, s, ranks, size));
    if (!choice || choice->forced == s.forced) continue;
    auto [it, added] = other.try_emplace({choice->forced, choice->why}, size.bytes, size.bytes);
    if (!added) it->second.second = size.bytes;
  }
  for (const auto& [key, range] : other) {  // two lines: each within a terminal's width
    flags.push_back(fmt::format("unforced, the library would run {} for {} B, not this forced algorithm",
                                algorithm_label(key.first, s.collective),
                                range.first == range.second ? fmt::format("{}", range.first)
                                                            : fmt::format("{}-{}", range.first, range.second)));
    flags.push_back(fmt::format("  (by {})", key.second));
  }
}

}  // namespace

std::vector<Prediction> predict_planned(const Model& m, int ranks, int nodes, const SizePlanner& plan) {
  std::vector<Prediction> out;
  std::set<std::pair<SeriesGroup, std::string>> done;
  std::set<SeriesGroup> chooses;  // groups with a fit of runs that forced nothing
  for (const ModelSeries& s : m.series)
    if (s.forced.empty()) chooses.insert(group_of(s));
  std::set<SeriesGroup> composed;
  for (const ModelSeries& like : m.series) {
    const SeriesGroup g = group_of(like);
    if (!chooses.contains(g) && composed.insert(g).second)
      if (auto p = predict_by_rules(m, like, ranks, nodes, plan)) out.push_back(std::move(*p));
    if (!done.insert({g, like.forced}).second) continue;
    Prediction p;
    p.ranks = ranks;
    p.nodes = nodes;
    p.forced = like.forced;
    const ModelSeries& s = *pick_level(m, like, ranks, nodes, p.flags, p.other_level);
    p.series = &s;
    scale_flags(s, ranks, p.flags);
    const StepCost cost = step_cost(s, s.family);
    const std::vector<PlannedSize> sizes = plan(s);
    if (!s.forced.empty()) choice_flags(m, s, ranks, sizes, p.flags);
    if (!s.forced.empty() && !chooses.contains(g) && !rules_known(m, s.collective, ranks))
      p.flags.push_back("which algorithm the library chooses here is not tabulated: this table is one candidate");
    for (const PlannedSize& size : sizes) p.points.push_back(predict_point(s, cost, ranks, size));
    out.push_back(std::move(p));
  }
  return out;
}

std::string model_to_json(const Model& m) {
  using nlohmann::ordered_json;
  const auto num = [](double v) { return std::isnan(v) ? ordered_json() : ordered_json(v); };
  ordered_json j;
  j["type"] = "ccbench_model";
  j["version"] = 1;
  j["backend"] = m.backend;
  if (!m.library.empty()) j["library"] = m.library;
  if (!m.mpi_calls.empty()) j["mpi_calls"] = m.mpi_calls;
  j["validity_factor"] = Model::kValidityFactor;
  j["step_cost_bandwidth"] = StepCost::kBandwidth;
  j["inputs"] = m.inputs;
  j["notes"] = m.notes;
  j["series"] = ordered_json::array();
  for (const ModelSeries& s : m.series) {
    ordered_json o{{"collective", s.collective},
                   {"dtype", s.dtype},
                   {"op", s.op},
                   {"path", s.path},
                   {"memory", s.memory},
                   {"in_place", s.in_place},
                   {"ranks_per_node", s.ranks_per_node},
                   {"forced_algorithm", s.forced},
                   {"family", family_name(s.family)},
                   {"chosen_by", s.chosen_by},
                   {"counts", s.counts}};
    for (const FamilyScore& f : s.scores) o["median_left_out"][family_name(f.family)] = num(f.median_left_out);
    o["points"] = ordered_json::array();
    for (const ModelPoint& p : s.points) {
      o["points"].push_back({{"ranks", p.ranks},
                             {"bytes", p.bytes},
                             {"time_us", p.time_us},
                             {"noise", p.noise},
                             {"left_out", num(p.left_out)}});
      if (p.requested_bytes != 0 && p.requested_bytes != p.bytes)
        o["points"].back()["requested_bytes"] = p.requested_bytes;
      if (!p.algorithm.empty()) o["points"].back()["algorithm"] = p.algorithm;
    }
    j["series"].push_back(std::move(o));
  }
  return json_text(j, 1) + "\n";
}

Model model_from_json(const std::string& text, const std::string& name) {
  using nlohmann::json;
  const json j = json::parse(text, nullptr, false);
  const auto bad = [&](const std::string& what) { return UsageError(fmt::format("{}: {}", name, what)); };
  if (j.is_discarded() || !j.is_object() || !j.contains("type") || j["type"] != "ccbench_model")
    throw bad("not a ccbench model file (write one with ccbench model fit)");
  if (!j.contains("version") || j["version"] != 1) throw bad("model file version is not 1");
  Model m;
  try {
    m.backend = j.value("backend", "");
    m.library = j.value("library", "");
    m.mpi_calls = j.value("mpi_calls", "");
    if (!m.mpi_calls.empty() && m.mpi_calls != "blocking" && m.mpi_calls != "nonblocking")
      throw bad("mpi_calls is neither blocking nor nonblocking");
    m.inputs = j.value("inputs", std::vector<std::string>{});
    m.notes = j.value("notes", std::vector<std::string>{});
    for (const json& o : j.at("series")) {
      ModelSeries s;
      s.collective = o.at("collective").get<std::string>();
      s.dtype = o.at("dtype").get<std::string>();
      s.op = o.at("op").get<std::string>();
      s.path = o.at("path").get<std::string>();
      s.memory = o.at("memory").get<std::string>();
      s.in_place = json_integer<int>(o.at("in_place"));
      s.ranks_per_node = json_integer<int>(o.at("ranks_per_node"));
      s.forced = o.value("forced_algorithm", "");
      if (s.forced.size() > 40 || !std::all_of(s.forced.begin(), s.forced.end(),
                                               [](unsigned char c) { return std::isalnum(c) || c == '_' || c == ':'; }))
        throw bad(fmt::format("series {}: forced_algorithm is not LIBRARY:SETTING", s.collective));
      const std::string family = o.at("family").get<std::string>();
      bool known = false;
      for (ModelFamily f : kAllFamilies)
        if (family == family_name(f)) s.family = f, known = true;
      if (!known) throw bad(fmt::format("series {}: unknown family '{}'", s.collective, family));
      s.chosen_by = o.value("chosen_by", "");
      s.counts = json_integers<int>(o.at("counts"));
      if (s.counts.size() < 2 || s.counts.front() < 2 || s.counts.back() > (1 << 24) ||
          !std::is_sorted(s.counts.begin(), s.counts.end()) ||
          std::adjacent_find(s.counts.begin(), s.counts.end()) != s.counts.end() || s.ranks_per_node < 0 ||
          s.ranks_per_node > (1 << 24) || s.in_place < -1 || s.in_place > 1)
        throw bad(fmt::format("series {}: counts or placement out of range", s.collective));
      for (const json& z : o.at("points")) {
        ModelPoint p;
        p.ranks = json_integer<int>(z.at("ranks"));
        p.bytes = json_integer<std::uint64_t>(z.at("bytes"));
        p.requested_bytes =
            z.contains("requested_bytes") ? json_integer<std::uint64_t>(z.at("requested_bytes")) : p.bytes;
        p.time_us = z.at("time_us").get<double>();
        p.noise = z.at("noise").get<double>();
        p.left_out = z.at("left_out").is_null() ? kNaN : z.at("left_out").get<double>();
        p.algorithm = z.value("algorithm", "");
        if (p.algorithm.size() > 200 || !std::all_of(p.algorithm.begin(), p.algorithm.end(), [](unsigned char c) {
              return std::isalnum(c) || c == '_' || c == '+' || c == '|';
            }))
          throw bad(fmt::format("series {}: point {} B at {} ranks: algorithm is not NCCL algorithm names",
                                s.collective, p.bytes, p.ranks));
        // Ranges from physics and from what ccbench writes: 1 ns to 11.6 days per
        // operation; noise log(p90/p50) and left-out |log(pred/meas)| up to 10
        // (what fit writes for a prediction of 0); sizes up to 2^50 B (1 PiB).
        if (!(p.time_us >= 1e-3 && p.time_us <= 1e12) || !(p.noise >= 0 && p.noise <= 10) ||
            !(std::isnan(p.left_out) || (p.left_out >= 0 && p.left_out <= 10)) || p.bytes == 0 ||
            p.bytes > (1ull << 50) || p.requested_bytes > (1ull << 50) ||
            !std::binary_search(s.counts.begin(), s.counts.end(), p.ranks))
          throw bad(
              fmt::format("series {}: point {} B at {} ranks: values out of range", s.collective, p.bytes, p.ranks));
        s.points.push_back(p);
      }
      if (s.points.empty()) throw bad(fmt::format("series {}: no points", s.collective));
      if (m.backend == "mpi") s.library = m.library, s.mpi_calls = m.mpi_calls;
      if (s.family == ModelFamily::library_rules)
        for (const ModelPoint& p : s.points)
          if (!rule_family(s, p.ranks, static_cast<double>(p.bytes)))
            throw bad(
                fmt::format("series {}: family library_rules, but the rules of its library ('{}') do not say "
                            "which algorithm runs {} B at {} ranks",
                            s.collective, s.library, p.bytes, p.ranks));
      m.series.push_back(std::move(s));
    }
  } catch (const json::exception& e) {
    throw bad(fmt::format("malformed model file ({})", e.what()));
  }
  if (m.series.empty()) throw bad("the model has no series");
  return m;
}

}  // namespace ccb
