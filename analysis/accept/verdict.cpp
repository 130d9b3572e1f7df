#include "analysis/accept/verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "analysis/compare/expectation.hpp"
#include "collectives/collective.hpp"
#include "common/sizes.hpp"
#include "results/stats.hpp"

namespace ccb {
namespace {

// Which pattern names the culprit of a failing group of n nodes fastest.
std::string localise_advice(std::size_t n) {
  if (n <= 4) return fmt::format("run pattern pairwise to find it ({} rounds)", n - 1);
  return fmt::format(
      "run pattern bisect to find it (about {} rounds for one bad node, each adding a few per further "
      "one; pairwise needs {} rounds at this size)",
      2 * static_cast<int>(std::ceil(std::log2(static_cast<double>(n)))), n - 1);
}

double metric_of(const MeasuredPoint& p, Metric m) {
  switch (m) {
    case Metric::busbw: return p.busbw_gbps;
    case Metric::algbw: return p.algbw_gbps;
    case Metric::time: return p.time_us;
    case Metric::skew: return p.skew_us;
  }
  return kNaNv;
}

std::string unit(Metric m) { return metric_unit(m); }

}  // namespace

int severity(NodeStatus s) {
  switch (s) {
    case NodeStatus::defective: return 0;
    case NodeStatus::suspect: return 1;
    case NodeStatus::group_failed: return 2;
    case NodeStatus::cleared: return 3;
    case NodeStatus::presumed_good: return 4;
    case NodeStatus::pass: return 5;
  }
  return 6;
}

std::string name_list(const std::vector<std::string>& names, std::size_t shown) {
  std::vector<std::string> distinct;
  std::set<std::string> seen;
  for (const std::string& n : names)
    if (seen.insert(n).second) distinct.push_back(n);
  const std::size_t listed = std::min(distinct.size(), distinct.size() > shown ? shown : distinct.size());
  std::string out;
  for (std::size_t i = 0; i < listed; ++i)
    out += (i == 0 ? "" : i + 1 == listed && listed == distinct.size() ? " and " : ", ") + distinct[i];
  if (listed < distinct.size()) out += fmt::format(" and {} more", distinct.size() - listed);
  return out;
}

namespace {

// The host that every repeat missing a failing gate named late at that
// gate's size ("" when a repeat named none, they disagree, or the data was
// wrong); skew_only: every failing gate is a skew gate.
std::string late_host(const Check& check, const GroupRun& run, const GroupVerdict& v, bool& skew_only) {
  skew_only = true;
  if (v.pass || v.wrong > 0) return "";
  std::string host;
  for (std::size_t i = 0; i < v.gates.size(); ++i) {
    const GateResult& gr = v.gates[i];
    if (gr.pass) continue;
    const Gate& g = check.gates[i];
    skew_only = skew_only && g.metric == Metric::skew;
    if (g.relative() && !gr.base) return "";  // not judged: nothing missed
    for (std::size_t k = 0; k < run.repeats.size() && k < gr.values.size(); ++k) {
      if (!run.repeats[k].error.empty()) return "";
      if (g.passes(gr.values[k], gr.base.value_or(0))) continue;
      for (const MeasuredPoint& p : run.repeats[k].points) {
        if (p.requested_bytes != g.at_bytes) continue;
        if (p.straggler_host.empty() || (!host.empty() && host != p.straggler_host)) return "";
        host = p.straggler_host;
      }
    }
  }
  return host;
}

}  // namespace

namespace {

// A share gate's base: the first repeat's limit (or the published figure for
// the same hardware within kReferenceSizeWindow of the gate's size), with
// where it came from in gr.basis; nullopt and a note when none is known.
std::optional<double> share_base(const Gate& g, const GroupRun& run, GateResult& gr) {
  std::string why = "no repeat's record resolved one";
  for (const RepeatResult& r : run.repeats) {
    if (!r.figures) continue;
    const Ceiling& limit = r.figures->limit;
    const std::optional<PublishedFigure>& reference = r.figures->reference;
    if (g.share_of == "limit") {
      if (limit.gbps > 0) {
        gr.basis = fmt::format("limit {:.4g} GB/s: {}", limit.gbps, limit.basis);
        return limit.gbps;
      }
      if (!limit.basis.empty()) why = limit.basis;
    } else if (reference) {
      if (within_reference_window(g.at_bytes, reference->bytes)) {
        gr.basis = fmt::format("reference {:.4g} GB/s: {} at {} ({}, {})", reference->busbw_gbps, reference->system,
                               format_size(reference->bytes), reference->source,
                               reference->date.empty() ? "undated" : reference->date);
        return reference->busbw_gbps;
      }
      why = fmt::format("the reference for this hardware ({}) is at {}, not within {:g}x of {}", reference->id,
                        format_size(reference->bytes), kReferenceSizeWindow, format_size(g.at_bytes));
    } else {
      why = "no published figure for this hardware, collective, ranks and nodes (docs/expect.md)";
    }
  }
  gr.note = fmt::format("{} gate not judged: {}", g.share_of, why);
  return std::nullopt;
}

}  // namespace

GroupVerdict judge_group(const Check& check, const GroupRun& run, const BaselineLookup& baseline) {
  GroupVerdict v;
  v.run = run;
  const int nodes = static_cast<int>(run.nodes.size());
  std::string first_error;
  for (const RepeatResult& r : run.repeats) {
    if (!r.error.empty() && first_error.empty()) first_error = r.error;
    for (const MeasuredPoint& p : r.points) v.wrong += p.wrong;
  }
  for (const Gate& g : check.gates) {
    GateResult gr;
    if (!g.share_of.empty()) {
      gr.base = share_base(g, run, gr);
    } else if (g.relative()) {
      gr.base = baseline ? baseline(check, g, run.ranks, run.nodes) : std::nullopt;
      if (!gr.base && g.population)
        gr.note = fmt::format("population gate not judged: fewer than 3 groups of {} nodes measured so far", nodes);
      else if (!gr.base && g.history)
        gr.note = fmt::format("history gate not judged: fewer than {} past runs of this group in the history",
                              kHistoryMinRuns);
      else if (!gr.base)
        gr.note = fmt::format("{}: no baseline entry for {} {} {} ranks {} nodes {} at {} B", g.baseline,
                              check.series(), check.io ? "-" : info(check.dtype).name,
                              check.reduces() ? name(check.op) : "-", run.ranks, nodes, g.at_bytes);
    }
    gr.bar = g.bar(gr.base.value_or(0));
    // busbw is 0 by definition where nccl-tests' factor is (all_reduce at 1
    // rank: a per-node group of one rank): no bar can judge it, and a
    // healthy node was named DEFECTIVE at -100%.
    const bool no_busbw = g.metric == Metric::busbw && check.collective && run.ranks >= 1 &&
                          bus_factor(*check.collective, run.ranks) == 0;
    if (no_busbw)
      gr.note = fmt::format(
          "busbw gate not judged: {}'s busbw is 0 by definition at {} rank{} (nccl-tests' factor); "
          "gate on algbw or time, or run more ranks per group",
          check.collective->name, run.ranks, run.ranks == 1 ? "" : "s");
    for (const RepeatResult& r : run.repeats) {
      double value = kNaNv;
      if (r.error.empty())
        for (const MeasuredPoint& p : r.points)
          if (p.requested_bytes == g.at_bytes) value = metric_of(p, g.metric);
      gr.values.push_back(value);
      const bool passes = (!g.relative() || gr.base) && g.passes(value, gr.base.value_or(0));
      if (passes) ++gr.passed;
      // Noise explains a miss by up to kNoiseExplains x (an oversubscribed
      // 8-byte all_reduce took 12,541 us), not a floor missed a million-fold.
      const double shortfall = higher_is_better(g.metric) ? gr.bar / value : value / gr.bar;
      if (!passes && r.error.empty() && shortfall > 0 && shortfall <= kNoiseExplains)
        for (const MeasuredPoint& p : r.points)
          if (p.requested_bytes == g.at_bytes && p.noisy) v.noisy = true;
    }
    // No peers or no past yet: not judged.
    gr.pass = gr.passed >= check.pass_repeats || ((g.population || g.history) && !gr.base) || no_busbw;
    v.gates.push_back(gr);
  }
  v.headline = v.gates.empty() ? kNaNv : median_of(v.gates.front().values);
  v.margin = kNaNv;
  for (std::size_t i = 0; i < v.gates.size(); ++i) {
    const double m = median_of(v.gates[i].values), bar = v.gates[i].bar;
    if (!std::isfinite(m) || !(bar > 0) || !v.gates[i].note.empty()) continue;  // not judged: no margin
    const double mi = higher_is_better(check.gates[i].metric) ? (m - bar) / bar : (bar - m) / bar;
    v.margin = std::isnan(v.margin) ? mi : std::min(v.margin, mi);
  }
  v.pass = v.wrong == 0;
  for (std::size_t i = 0; i < v.gates.size(); ++i) v.pass = v.pass && v.gates[i].pass;
  bool skew_only = false;
  v.late_host = late_host(check, run, v, skew_only);
  if (skew_only) v.straggler_host = v.late_host;
  for (const RepeatResult& r : run.repeats)
    for (const MeasuredPoint& p : r.points)
      if (!p.straggler_host.empty() &&
          std::find(v.late_hosts.begin(), v.late_hosts.end(), p.straggler_host) == v.late_hosts.end() &&
          std::any_of(check.gates.begin(), check.gates.end(),
                      [&](const Gate& g) { return g.at_bytes == p.requested_bytes; }))
        v.late_hosts.push_back(p.straggler_host);
  if (v.pass || v.wrong > 0) v.noisy = false;  // wrong data is never noise
  if (v.wrong > 0) {
    v.reason = fmt::format("wrong data: {} elements failed verification", v.wrong);
  } else {
    for (std::size_t i = 0; i < v.gates.size() && v.reason.empty(); ++i) {
      const GateResult& gr = v.gates[i];
      const Gate& g = check.gates[i];
      if (gr.pass) continue;
      if (!gr.note.empty()) v.reason = gr.note;
      else if (!first_error.empty() && gr.passed == 0) v.reason = "run failed: " + first_error;
      else if (const double med = median_of(gr.values); !std::isfinite(med))
        v.reason =
            fmt::format("{} not measured at {} (no repeat reported that size): {} of {} repeats passed, {} needed",
                        name(g.metric), format_size(g.at_bytes), gr.passed, gr.values.size(), check.pass_repeats);
      else if (!g.share_of.empty() && gr.base)  // named by its share: what it should have been, and why
        v.reason = fmt::format(
            "{} {:.4g} {} (median) = {:.0f}% of the {}, against a bar of {:.4g} ({:g}% of it) at {}: {} of {} "
            "repeats passed, {} needed; {}",
            name(g.metric), med, unit(g.metric), med / *gr.base * 100, g.share_of, gr.bar, (1 - g.max_drop) * 100,
            format_size(g.at_bytes), gr.passed, gr.values.size(), check.pass_repeats, gr.basis);
      else
        v.reason = fmt::format(
            "{} {:.4g} {} (median) against a bar of {:.4g} at {}: {} of {} repeats passed, {} needed", name(g.metric),
            med, unit(g.metric), gr.bar, format_size(g.at_bytes), gr.passed, gr.values.size(), check.pass_repeats);
    }
  }
  return v;
}

void Population::add(const Check& check, const GroupRun& run) {
  for (std::size_t i = 0; i < check.gates.size(); ++i) {
    const Gate& g = check.gates[i];
    if (!g.population) continue;
    std::vector<double> values;
    for (const RepeatResult& r : run.repeats)
      if (r.error.empty())
        for (const MeasuredPoint& p : r.points)
          if (p.requested_bytes == g.at_bytes) values.push_back(metric_of(p, g.metric));
    const double m = median_of(values);
    if (std::isfinite(m)) medians_[{i, static_cast<int>(run.nodes.size())}].push_back(m);
  }
}

std::optional<double> Population::base(const Check& check, const Gate& g, int nodes) const {
  const std::size_t index = check.gate_index(g);
  const auto it = medians_.find({index, nodes});
  if (it == medians_.end() || it->second.size() < 3) return std::nullopt;
  const double median = median_of(it->second);
  std::vector<double> dev;
  for (double x : it->second) dev.push_back(std::fabs(x - median));
  const double spread = 3 * 1.4826 * median_of(dev);
  // bar = base x (1 -/+ max_drop) must be at least `spread` away from the median.
  const double f = higher_is_better(g.metric) ? 1 - g.max_drop : 1 + g.max_drop;
  const double far =
      higher_is_better(g.metric) ? std::min(median * f, median - spread) : std::max(median * f, median + spread);
  return far / f;
}

std::vector<GroupVerdict> judge_round(const Check& check, const std::vector<GroupRun>& runs, Population& population,
                                      const BaselineLookup& baseline) {
  for (const GroupRun& r : runs) population.add(check, r);
  const BaselineLookup lookup = [&](const Check& c, const Gate& g, int ranks,
                                    const NodeGroup& group) -> std::optional<double> {
    if (g.population) return population.base(c, g, static_cast<int>(group.size()));
    return baseline ? baseline(c, g, ranks, group) : std::nullopt;
  };
  std::vector<GroupVerdict> out;
  for (const GroupRun& r : runs) out.push_back(judge_group(check, r, lookup));
  return out;
}

std::string margin_text(double m) {
  return std::isfinite(m) ? fmt::format("margin {:+.0f}%", m * 100) : std::string("no margin: nothing measured");
}

Suspects find_suspects(const std::vector<GroupVerdict>& first, int nodes) {
  Suspects s;
  std::vector<std::pair<int, int>> failing;
  std::vector<int> in_failing(static_cast<std::size_t>(nodes), 0), tested(static_cast<std::size_t>(nodes), 0);
  for (const GroupVerdict& g : first) {
    for (int n : g.run.nodes) ++tested[static_cast<std::size_t>(n)];
    if (g.pass || g.run.nodes.size() != 2) continue;
    failing.emplace_back(g.run.nodes[0], g.run.nodes[1]);
    for (int n : g.run.nodes) ++in_failing[static_cast<std::size_t>(n)];
  }
  if (failing.empty()) return s;
  std::vector<int> clean, suspect;
  for (int n = 0; n < nodes; ++n) {
    if (in_failing[static_cast<std::size_t>(n)] > 0) suspect.push_back(n);
    else if (tested[static_cast<std::size_t>(n)] > 0) clean.push_back(n);
  }
  if (!clean.empty()) {
    s.suspects = suspect;
    s.references = clean;
    return s;
  }
  s.suspects = greedy_cover(failing);
  for (int n : suspect)
    if (!std::binary_search(s.suspects.begin(), s.suspects.end(), n)) s.references.push_back(n);
  s.presumed = true;
  if (s.references.empty()) s.suspects = suspect;  // nothing to compare against
  return s;
}

namespace {

// The same group run again in the second pass (per-node re-test, pairwise pair re-test).
const GroupVerdict* rerun_of(const CheckVerdict& v, const NodeGroup& nodes, GroupRole role) {
  for (const GroupVerdict& g : v.second)
    if (g.run.role == role && g.run.nodes == nodes) return &g;
  return nullptr;
}

// A group of all nodes that failed its skew gates on one late host (and its
// re-test, when there was one, on the same host): that host is defective (a
// suspect under noise); the others passed everything else. False when the
// failure names no host.
bool name_straggler(CheckVerdict& v, const GroupVerdict& g, const GroupVerdict* again,
                    const std::vector<std::string>& hosts, bool noisy) {
  if (g.straggler_host.empty() || (again && again->straggler_host != g.straggler_host)) return false;
  const auto it = std::find_if(g.run.nodes.begin(), g.run.nodes.end(),
                               [&](int n) { return hosts[static_cast<std::size_t>(n)] == g.straggler_host; });
  if (it == g.run.nodes.end()) return false;
  for (int n : g.run.nodes) {
    NodeVerdict& nv = v.nodes[static_cast<std::size_t>(n)];
    if (n != *it) {
      nv.reason = fmt::format("the group failed on {}'s lateness (skew gate), not on this node", g.straggler_host);
      continue;
    }
    nv.status = noisy ? NodeStatus::suspect : NodeStatus::defective;
    nv.reason = fmt::format("its rank arrived last: {}{}", g.reason, noisy ? fmt::format("; {}", kNoisyFailure) : "");
    nv.margin = g.margin;
  }
  v.findings.push_back(fmt::format("{} is {}: its rank arrived last in the group of all {} node{} ({}){}",
                                   g.straggler_host, noisy ? "a suspect" : "defective", g.run.nodes.size(),
                                   g.run.nodes.size() == 1 ? "" : "s", g.reason,
                                   noisy ? fmt::format("; {}", kNoisyFailure) : ""));
  return true;
}

// A failing group's late host as a lead for the search, not a verdict: a
// slow link or NIC makes no host late (every rank waits for it alike), so the
// late host may be a bystander of the failure.
std::string late_lead(const GroupVerdict& g) {
  if (g.late_host.empty()) return "";
  return fmt::format(
      "; a lead: {}'s rank arrived last in every repeat that missed (--stragglers), which a slow node explains and "
      "a slow link does not",
      g.late_host);
}

// all and per-node: a failing group whose re-test passes is noise; per-node
// names the node defective (a suspect under noise), all names no node unless
// its skew gates name the late one (name_straggler).
void judge_whole_groups(CheckVerdict& v, const std::vector<std::string>& hosts) {
  const bool per_node = v.check->pattern == GroupPattern::per_node;
  v.pass = true;
  for (const GroupVerdict& g : v.first) {
    if (g.pass) continue;
    const std::string names = group_hosts(g.run.nodes, hosts);
    const GroupVerdict* again = rerun_of(v, g.run.nodes, GroupRole::retest);
    if (again && again->pass) {
      // Failed once, passed when measured again: noise, not a verdict.
      ++v.noise_findings;
      v.findings.push_back(fmt::format("{}: {} failed ({}) and passed when re-tested ({})", kNoiseFinding, names,
                                       g.reason, margin_text(again->margin)));
      for (int n : g.run.nodes) v.nodes[static_cast<std::size_t>(n)].reason = "failed once, passed when re-tested";
      continue;
    }
    v.pass = false;
    const bool noisy = g.noisy && (!again || again->noisy);
    if (!per_node && name_straggler(v, g, again, hosts, noisy)) continue;
    for (int n : g.run.nodes) {
      NodeVerdict& nv = v.nodes[static_cast<std::size_t>(n)];
      nv.status = !per_node ? NodeStatus::group_failed : noisy ? NodeStatus::suspect : NodeStatus::defective;
      nv.reason = per_node ? g.reason + (noisy ? fmt::format("; {}", kNoisyFailure) : "")
                           : "the group of all nodes failed; this check cannot tell which node is the cause";
      if (per_node) nv.margin = g.margin;
    }
    v.findings.push_back(
        per_node && noisy ? fmt::format("{} is a suspect: {}; {}", names, g.reason, kNoisyFailure)
        : per_node        ? fmt::format("{} is defective: {}", names, g.reason)
                          : fmt::format("the group of all {} nodes failed ({}); one group cannot name a node: {}{}",
                                        g.run.nodes.size(), g.reason, localise_advice(g.run.nodes.size()), late_lead(g)));
  }
}

// Pairwise and ring: suspect x against its pairs with references (confirm,
// then re-confirm with another one): one that passes clears it; it is
// defective when every one fails (a suspect when that was under noise).
void judge_suspect(CheckVerdict& v, int x, const std::vector<std::string>& hosts, std::set<int>& defective) {
  NodeVerdict& nv = v.nodes[static_cast<std::size_t>(x)];
  const GroupVerdict* retest = nullptr;
  std::vector<std::string> failed_with;
  for (const GroupVerdict& g : v.second) {
    if (!(g.run.role == GroupRole::none || g.run.role == GroupRole::confirm || g.run.role == GroupRole::reconfirm) ||
        std::find(g.run.nodes.begin(), g.run.nodes.end(), x) == g.run.nodes.end())
      continue;
    const int partner = g.run.nodes[0] == x ? g.run.nodes[1] : g.run.nodes[0];
    if (!g.pass) failed_with.push_back(hosts[static_cast<std::size_t>(partner)]);
    if (!retest || !retest->pass) retest = &g;
  }
  if (!retest) {
    nv.status = NodeStatus::suspect;
    nv.reason = v.suspects.references.empty() ? "in failing pairs; no node passed that could serve as a reference"
                                              : "in failing pairs; not re-tested (second_pass: false)";
    return;
  }
  const int partner = retest->run.nodes[0] == x ? retest->run.nodes[1] : retest->run.nodes[0];
  const int failed = nv.groups - nv.groups_passed;
  if (retest->pass) {
    nv.status = NodeStatus::cleared;
    nv.reason = fmt::format("failed {} of {} pairs, but passed again with reference {}", failed, nv.groups,
                            hosts[static_cast<std::size_t>(partner)]);
    return;
  }
  nv.margin = retest->margin;
  const std::string again = fmt::format("failed {} of {} pairs, and again with reference{} {}: {}", failed, nv.groups,
                                        failed_with.size() > 1 ? "s" : "", name_list(failed_with), retest->reason);
  if (retest->noisy) {
    nv.status = NodeStatus::suspect;
    nv.reason = fmt::format("{}; {}", again, kNoisyFailure);
    v.findings.push_back(fmt::format("{} is a suspect: {}", hosts[static_cast<std::size_t>(x)], nv.reason));
  } else {
    nv.status = NodeStatus::defective;
    nv.reason = fmt::format("{} ({})", again, margin_text(retest->margin));
    defective.insert(x);
    v.findings.push_back(fmt::format("{} is defective: {}", hosts[static_cast<std::size_t>(x)], nv.reason));
  }
}

// Pairwise and ring: a failing pair with no defective member is noise when
// its re-test passes, the link's problem when both nodes were cleared.
void judge_failing_pairs(CheckVerdict& v, const std::set<int>& defective, const std::vector<std::string>& hosts) {
  for (const GroupVerdict& g : v.first) {
    if (g.pass || g.run.nodes.size() != 2) continue;
    if (defective.count(g.run.nodes[0]) || defective.count(g.run.nodes[1])) continue;
    const std::string names = group_hosts(g.run.nodes, hosts);
    const bool both_cleared = v.nodes[static_cast<std::size_t>(g.run.nodes[0])].status == NodeStatus::cleared &&
                              v.nodes[static_cast<std::size_t>(g.run.nodes[1])].status == NodeStatus::cleared;
    const GroupVerdict* again = rerun_of(v, g.run.nodes, GroupRole::pair_retest);
    if (again && again->pass) {
      ++v.noise_findings;
      v.findings.push_back(fmt::format("{}: pair {} failed ({}) but passed when re-tested ({})", kNoiseFinding, names,
                                       g.reason, margin_text(again->margin)));
      continue;
    }
    if (both_cleared) v.links.emplace_back(g.run.nodes[0], g.run.nodes[1]);
    v.findings.push_back(both_cleared
                             ? fmt::format("pair {} fails ({}){} while both nodes pass with a reference: suspect the "
                                           "link or path between them",
                                           names, g.reason, again ? ", and again when re-tested," : "")
                             : fmt::format("pair {} fails ({}); not isolated to a node", names, g.reason));
  }
}

}  // namespace

void judge_nodes(CheckVerdict& v, const std::vector<std::string>& hosts) {
  v.nodes.assign(hosts.size(), {});
  for (std::size_t i = 0; i < hosts.size(); ++i) v.nodes[i].host = hosts[i];
  for (const GroupVerdict& g : v.first)
    for (int n : g.run.nodes) {
      ++v.nodes[static_cast<std::size_t>(n)].groups;
      v.nodes[static_cast<std::size_t>(n)].groups_passed += g.pass ? 1 : 0;
    }
  if (v.check->pattern == GroupPattern::all || v.check->pattern == GroupPattern::per_node) {
    judge_whole_groups(v, hosts);
    return;
  }
  const Suspects& s = v.suspects;
  for (NodeVerdict& nv : v.nodes)
    if (nv.groups > 0 && nv.groups_passed == nv.groups) nv.reason = "passed every pair";
  for (int r : s.references) {
    if (!s.presumed) continue;
    NodeVerdict& nv = v.nodes[static_cast<std::size_t>(r)];
    nv.status = NodeStatus::presumed_good;
    std::vector<std::string> with;
    for (int x : s.suspects) with.push_back(hosts[static_cast<std::size_t>(x)]);
    nv.reason = fmt::format("every pair it failed includes {}", name_list(with));
  }
  std::set<int> defective;
  for (int x : s.suspects) judge_suspect(v, x, hosts, defective);
  judge_failing_pairs(v, defective, hosts);
  // The check passes when nothing was blamed: no node defective or left a
  // suspect, and every finding is noise that a re-test took back.
  v.pass = std::none_of(v.nodes.begin(), v.nodes.end(),
                        [](const NodeVerdict& n) {
                          return n.status == NodeStatus::defective || n.status == NodeStatus::suspect;
                        }) &&
           v.findings.size() == v.noise_findings;
}

}  // namespace ccb
