#include "analysis/workload/step_prediction.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "common/errors.hpp"
#include "common/sizes.hpp"
#include "results/stats.hpp"

namespace ccb {
namespace {

struct CurveTime {
  double s = 0, lo = 0, hi = 0;
  bool extrapolated = false;
  bool unbounded = false;  // read off a predicted point whose interval is unbounded
};

// Mean, 10th and 90th percentile of a point, in seconds: a step sums many calls, and the
// expected sum is the sum of the means (a bimodal point's median jumps between its modes).
// A point without samples: its reported time for all three.
std::array<double, 3> point_times(const SeriesPoint& p) {
  if (std::isfinite(p.first->time_lo_us) && std::isfinite(p.first->time_hi_us))  // predicted: its 90% interval
    return {p.time_us * 1e-6, std::min(p.time_us, p.first->time_lo_us) * 1e-6,
            std::max(p.time_us, p.first->time_hi_us) * 1e-6};
  std::vector<double> v(p.samples().begin(), p.samples().end());
  std::erase_if(v, [](double x) { return !std::isfinite(x) || x <= 0; });
  if (v.size() < 3) return {p.time_us * 1e-6, p.time_us * 1e-6, p.time_us * 1e-6};
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  const double mid = sum / static_cast<double>(v.size()) * 1e-6;
  return {mid, std::min(mid, quantile_sorted(v, 0.1) * 1e-6), std::max(mid, quantile_sorted(v, 0.9) * 1e-6)};
}

CurveTime read_curve(const Series& s, std::uint64_t bytes) {
  std::vector<const SeriesPoint*> pts;
  for (const SeriesPoint& p : s.points)
    if (p.bytes > 0 && std::isfinite(p.time_us) && p.time_us > 0) pts.push_back(&p);
  const auto b = static_cast<double>(bytes);
  CurveTime out;
  const auto set = [&](const std::array<double, 3>& t, double scale) {
    out.s = t[0] * scale, out.lo = t[1] * scale, out.hi = t[2] * scale;
  };
  if (b <= static_cast<double>(pts.front()->bytes)) {
    set(point_times(*pts.front()), 1);
    out.unbounded = pts.front()->first->time_unbounded;
    return out;
  }
  if (b >= static_cast<double>(pts.back()->bytes)) {
    out.extrapolated = b > static_cast<double>(pts.back()->bytes);
    set(point_times(*pts.back()), b / static_cast<double>(pts.back()->bytes));
    out.unbounded = pts.back()->first->time_unbounded;
    return out;
  }
  std::size_t i = 1;
  while (static_cast<double>(pts[i]->bytes) < b) ++i;
  out.unbounded = pts[i - 1]->first->time_unbounded || pts[i]->first->time_unbounded;
  const auto x0 = std::log(static_cast<double>(pts[i - 1]->bytes)), x1 = std::log(static_cast<double>(pts[i]->bytes));
  const double f = (std::log(b) - x0) / (x1 - x0);
  const auto t0 = point_times(*pts[i - 1]), t1 = point_times(*pts[i]);
  std::array<double, 3> t{};
  for (std::size_t k = 0; k < 3; ++k) t[k] = std::exp(std::log(t0[k]) + f * (std::log(t1[k]) - std::log(t0[k])));
  set(t, 1);
  return out;
}

bool has_points(const Series& s) {
  return std::any_of(s.points.begin(), s.points.end(),
                     [](const SeriesPoint& p) { return p.bytes > 0 && std::isfinite(p.time_us) && p.time_us > 0; });
}

// How well a curve's calls stand for a step's: MPI's nonblocking calls (the
// replay's, a framework's), then calls of a library with no such choice
// (NCCL), then MPI's blocking ones; out of place before in place.
int curve_rank(const Series& s) {
  const int calls = s.mpi_calls == "nonblocking" ? 0 : s.mpi_calls.empty() ? 1 : 2;
  return calls * 2 + (s.in_place == 0 ? 0 : 1);
}

const Series* find_curve(const SeriesTable& t, std::string_view coll, int ranks, int nodes, int groups = 1) {
  const Series* best = nullptr;
  for (const Series& s : t.series) {
    if (s.collective != coll || s.ranks != ranks || (s.nodes > 0 && s.nodes != nodes) || s.groups != groups ||
        !has_points(s))
      continue;
    if (!best || curve_rank(s) < curve_rank(*best)) best = &s;
  }
  return best;
}

// `named`: each prefixed with the collective ("sendrecv at 2 ranks on 1 node").
std::string curves_available(const SeriesTable& t, std::string_view coll, bool named = false) {
  std::set<std::string> have;
  for (const Series& s : t.series)
    if (s.collective == coll && has_points(s))
      have.insert(fmt::format("{}{} ranks on {} node{}{}", named ? fmt::format("{} at ", coll) : "", s.ranks, s.nodes,
                              s.nodes == 1 ? "" : "s",
                              s.groups > 1 ? fmt::format(" ({} groups side by side)", s.groups) : ""));
  std::string list;
  for (const auto& h : have) list += (list.empty() ? "" : ", ") + h;
  return list.empty() ? fmt::format("no {} at all", coll) : list;
}

}  // namespace

std::vector<PhaseTime> phase_shapes(const StepProgram& prog) {
  // Groups as stage 0's first rank sees them; a message between stages 0 and 1.
  const RankPlace first = place_rank(prog, 0);
  const int pp_nodes = prog.group_size(Dim::pp) > 1
                           ? nodes_of({0, prog.group_size(Dim::tp) * prog.group_size(Dim::dp)}, prog.ranks_per_node)
                           : 1;
  std::vector<PhaseTime> out;
  for (std::size_t i = 0; i < prog.ops.size(); ++i) {
    const CommOp& op = prog.ops[i];
    PhaseTime ph;
    ph.op = static_cast<int>(i);
    const bool p2p = op.p2p != P2p::none;
    ph.group_ranks = p2p ? 2 : prog.group_size(op.dim);
    ph.group_nodes = p2p ? pp_nodes : nodes_of(first.groups[static_cast<std::size_t>(op.dim)], prog.ranks_per_node);
    for (const auto& stage : prog.stages)
      ph.calls = std::max(ph.calls, static_cast<int>(std::count_if(stage.begin(), stage.end(), [&](const Action& a) {
                            return a.kind == Action::Kind::start && a.op == ph.op;
                          })));
    // Groups of this phase side by side on a node share its links: k of them
    // moving `bytes` each take about as long as one moving k x bytes.
    const int members_per_node = p2p ? (ph.group_nodes > 1 ? 1 : 2) : ph.group_ranks / ph.group_nodes;
    ph.sharing = p2p && ph.group_nodes == 1 ? 1 : std::max(1, prog.ranks_per_node / members_per_node);
    out.push_back(std::move(ph));
  }
  return out;
}

std::vector<CurveNeed> curves_needed(const StepProgram& prog, const SeriesTable& have) {
  std::vector<CurveNeed> out;
  for (const PhaseTime& ph : phase_shapes(prog)) {
    const CommOp& op = prog.ops[static_cast<std::size_t>(ph.op)];
    const std::string coll(curve_collective(op));
    const auto has = [&](std::string_view c) {
      return find_curve(have, c, ph.group_ranks, ph.group_nodes) ||
             (ph.sharing > 1 && find_curve(have, c, ph.group_ranks, ph.group_nodes, ph.sharing));
    };
    if (has(coll) || (op.p2p != P2p::none && has("pingpong"))) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const CurveNeed& n) {
      return n.collective == coll && n.ranks == ph.group_ranks && n.nodes == ph.group_nodes;
    });
    if (it == out.end()) it = out.insert(out.end(), CurveNeed{coll, ph.group_ranks, ph.group_nodes, {}, op.phase});
    it->bytes.push_back(curve_bytes(op));
    it->bytes.push_back(curve_bytes(op) * static_cast<std::uint64_t>(ph.sharing));
  }
  for (CurveNeed& n : out) {
    std::sort(n.bytes.begin(), n.bytes.end());
    n.bytes.erase(std::unique(n.bytes.begin(), n.bytes.end()), n.bytes.end());
  }
  return out;
}

namespace {

// The curves a phase is read off: its collective's, alone and with its k
// groups side by side; a pipeline message one way (`pingpong` at 2 ranks:
// half a round trip) and both ways at once (`sendrecv`, its high end).
struct PhaseCurves {
  const Series* alone = nullptr;   // the phase's low time (and middle without `shared`)
  const Series* shared = nullptr;  // k groups side by side, measured
  const Series* high = nullptr;    // a pipeline message's high time: both ways at once
};

PhaseCurves phase_curves(const PhaseTime& ph, const CommOp& op, const SeriesTable& curves) {
  const auto both = [&](std::string_view coll) {
    return std::pair{find_curve(curves, coll, ph.group_ranks, ph.group_nodes),
                     ph.sharing > 1 ? find_curve(curves, coll, ph.group_ranks, ph.group_nodes, ph.sharing) : nullptr};
  };
  PhaseCurves c;
  if (op.p2p == P2p::none) {
    std::tie(c.alone, c.shared) = both(curve_collective(op));
    if (!c.alone && !c.shared)
      throw UsageError(fmt::format("no measured curve for '{}': {} at {} ranks on {} node{} (the runs have: {})",
                                   op.phase, curve_collective(op), ph.group_ranks, ph.group_nodes,
                                   ph.group_nodes == 1 ? "" : "s", curves_available(curves, curve_collective(op))));
    return c;
  }
  const auto [one_way, one_way_shared] = both("pingpong");
  const auto [two_way, two_way_shared] = both("sendrecv");
  if (!one_way && !one_way_shared && !two_way && !two_way_shared)
    throw UsageError(fmt::format(
        "no measured curve for '{}': pingpong (one way) or sendrecv (both ways) at 2 ranks on {} node{} (the "
        "runs have: {}; {})",
        op.phase, ph.group_nodes, ph.group_nodes == 1 ? "" : "s", curves_available(curves, "pingpong", true),
        curves_available(curves, "sendrecv", true)));
  const bool one = one_way || one_way_shared;
  c.alone = one ? one_way : two_way, c.shared = one ? one_way_shared : two_way_shared;
  if (one) c.high = two_way_shared ? two_way_shared : two_way;
  return c;
}

}  // namespace

StepPrediction predict_step(const StepProgram& prog, const SeriesTable& curves) {
  StepPrediction out;
  std::vector<double> mid, lo, hi;
  std::vector<bool> cross;
  for (PhaseTime& ph : phase_shapes(prog)) {
    const CommOp& op = prog.ops[static_cast<std::size_t>(ph.op)];
    const PhaseCurves c = phase_curves(ph, op, curves);
    // k groups measured side by side (--split): the sharing is measured, read at the call's own bytes.
    const Series* s = c.shared ? c.shared : c.alone;
    const std::uint64_t bytes = curve_bytes(op);
    const std::uint64_t shared_bytes = bytes * static_cast<std::uint64_t>(c.shared ? 1 : ph.sharing);
    ph.sharing_measured = c.shared != nullptr;
    const CurveTime t = read_curve(*s, shared_bytes);
    const CurveTime alone = read_curve(c.alone ? *c.alone : *s, bytes);
    const double high =
        c.high ? read_curve(*c.high, op.bytes * static_cast<std::uint64_t>(c.high->groups > 1 ? 1 : ph.sharing)).hi
               : t.hi;
    ph.s = t.s, ph.lo_s = alone.lo, ph.hi_s = std::max(t.hi, high), ph.extrapolated = t.extrapolated;
    ph.predicted = std::isfinite(s->points.front().first->time_lo_us);
    ph.unbounded = t.unbounded || alone.unbounded;
    if (ph.unbounded) out.unbounded.push_back(op.phase);
    ph.blocking_mpi = s->mpi_calls == "blocking";
    ph.curve = (ph.predicted ? "scale model: " : "") + s->label();
    if (op.traffic)
      ph.curve +=
          fmt::format(" at the busiest rank's {} ({})", format_size(static_cast<double>(bytes)), op.traffic->text());
    if (c.high) ph.curve += "; high end both ways: " + c.high->label();
    mid.push_back(ph.s), lo.push_back(ph.lo_s), hi.push_back(ph.hi_s);
    cross.push_back(ph.group_nodes > 1);
    out.phases.push_back(std::move(ph));
  }
  out.mid = simulate_step(prog, mid, cross, false);
  out.lo = simulate_step(prog, lo, cross, false);
  out.hi = simulate_step(prog, hi, cross, true);
  out.bubble_s = prog.bubble_s();
  return out;
}

}  // namespace ccb
