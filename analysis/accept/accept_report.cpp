#include "analysis/accept/accept_report.hpp"
#include "results/json_text.hpp"

#include "common/sizes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>

#include "results/stats.hpp"
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "common/errors.hpp"

namespace ccb {
namespace {

std::string value_text(double v, Metric m) {
  if (!std::isfinite(v)) return "-";
  return higher_is_better(m) ? fmt::format("{:.3g}", v) : format_us(v);
}

std::string sizes_text(const Check& c) {
  std::string s;
  for (std::size_t b : c.sizes) s += (s.empty() ? "" : ", ") + format_size(static_cast<double>(b));
  return s;
}

// How much of each list a view shows (verdict.json lists what the files
// show; groups.jsonl has every group).
struct ViewLimits {
  std::size_t findings, node_rows, group_rows, matrix_nodes;
};
ViewLimits limits_of(AcceptView v) {
  return v == AcceptView::terminal ? ViewLimits{10, 40, 20, 16} : ViewLimits{1000, SIZE_MAX, 2000, 64};
}

// A group by its members' names: up to 4 listed, else the first and last and the count.
std::string group_text(const NodeGroup& g, const std::vector<std::string>& hosts) {
  if (g.size() <= 4) return group_hosts(g, hosts);
  return fmt::format("{} + ... + {} ({} nodes)", hosts[static_cast<std::size_t>(g.front())],
                     hosts[static_cast<std::size_t>(g.back())], g.size());
}

// The groups to list: all of them when they fit, else the failing ones and
// the re-tests (what a reader acts on), up to the limit; the count left out.
std::vector<const GroupVerdict*> groups_to_show(const std::vector<GroupVerdict>& groups, std::size_t limit,
                                                std::size_t& left_out) {
  std::vector<const GroupVerdict*> shown;
  const bool all = groups.size() <= limit;
  for (const GroupVerdict& g : groups)
    if (all || !g.pass || (g.run.role != GroupRole::none && g.run.role != GroupRole::search)) {
      if (shown.size() < limit) shown.push_back(&g);
    }
  left_out = groups.size() - shown.size();
  return shown;
}

Table groups_table(const std::string& title, const Check& c, const std::vector<GroupVerdict>& groups,
                   const std::vector<std::string>& hosts, std::size_t limit) {
  Table t;
  std::size_t left_out = 0;
  const std::vector<const GroupVerdict*> shown = groups_to_show(groups, limit, left_out);
  t.title = left_out == 0 ? title
                          : fmt::format("{}: {} of {} groups (the failing ones and re-tests first)", title,
                                        shown.size(), groups.size());
  const bool roles =
      std::any_of(groups.begin(), groups.end(), [](const GroupVerdict& g) { return g.run.role != GroupRole::none; });
  t.header = {"round", "nodes", "ranks", "verdict"};
  if (roles) t.header.insert(t.header.begin() + 1, "why it ran");
  for (const Gate& g : c.gates)
    t.header.push_back(fmt::format("{} at {}", name(g.metric), format_size(static_cast<double>(g.at_bytes))));
  t.header.push_back("margin");
  if (c.times_stragglers()) t.header.push_back("late");
  t.header.push_back("reason");
  t.left_columns = 2;
  t.last_left = true;
  for (const GroupVerdict* gp : shown) {
    const GroupVerdict& g = *gp;
    std::vector<Cell> row{{std::to_string(g.run.round + 1)},
                          {group_text(g.run.nodes, hosts)},
                          {std::to_string(g.run.ranks)},
                          {g.pass ? "pass" : "FAIL", g.pass ? Tone::better : Tone::worse}};
    if (roles) row.insert(row.begin() + 1, Cell{std::string(name(g.run.role))});
    for (std::size_t i = 0; i < g.gates.size(); ++i) {
      std::string vals;
      for (double v : g.gates[i].values) vals += (vals.empty() ? "" : " ") + value_text(v, c.gates[i].metric);
      row.push_back({fmt::format("{} ({}/{} {} bar {:.4g})", vals, g.gates[i].passed, g.gates[i].values.size(),
                                 higher_is_better(c.gates[i].metric) ? ">=" : "<=", g.gates[i].bar),
                     g.gates[i].pass ? Tone::plain : Tone::worse});
    }
    row.push_back(
        {std::isfinite(g.margin) ? fmt::format("{:+.0f}%", g.margin * 100) : "-", g.pass ? Tone::plain : Tone::worse});
    if (c.times_stragglers()) {
      std::string late;
      for (const std::string& h : g.late_hosts) late += (late.empty() ? "" : ", ") + h;
      row.push_back({late.empty() ? "-" : late, late.empty() ? Tone::muted : Tone::plain});
    }
    row.push_back({g.reason, g.pass ? Tone::muted : Tone::plain});
    t.rows.push_back(row);
  }
  t.note = std::string(c.io ? "Values: one per repeat; busbw = GB/s of all the group's ranks (ccbench io); time = mean "
                              "per request in us (checkpoint: time to persist); "
                            : "Values: one per repeat, out-of-place, time = pipelined mean over ranks; ") +
           "the bar is the gate's threshold; margin: the median's distance to the bar (positive: better than needed), "
           "the smallest over gates." +
           (c.times_stragglers() ? " Late: the hosts whose rank arrived last at a gate's size in some repeat, "
                                   "named as --stragglers names them (docs/stragglers.md); '-': none."
                                 : "");
  if (left_out > 0)
    t.note +=
        fmt::format(" {} more groups (passing) are left out here: {} has every group.", left_out, kGroupDetailFile);
  if (roles)
    t.note +=
        " Why it ran: search (a group of the splitting; a pass clears its nodes, a failure splits it), "
        "re-test (a failing group whose halves all passed, run whole again), confirm / re-confirm (a suspect "
        "paired with a cleared node; named defective only when both fail), pair re-test (a failing pair whose "
        "nodes both passed with references, run again before its link is named).";
  return t;
}

// Nodes, what needs action first (defective, with the lowest margin first,
// then suspects, ...); the terminal lists only nodes that need a look and
// counts the rest. A check over all nodes at once judges one group, not
// nodes: it gets one row.
Table nodes_table(const CheckVerdict& v, const AcceptOutcome& o, const ViewLimits& lim, AcceptView view) {
  Table t;
  t.title = "Nodes";
  t.header = {"node", "ranks", "groups passed", "verdict", "margin", "why"};
  t.left_columns = 1;
  t.last_left = true;
  const auto tone_of = [](NodeStatus s) {
    return s == NodeStatus::defective || s == NodeStatus::group_failed ? Tone::worse
           : s == NodeStatus::suspect                                  ? Tone::warn
                                                                       : Tone::better;
  };
  const bool named = std::any_of(v.nodes.begin(), v.nodes.end(), [](const NodeVerdict& n) {
    return n.status == NodeStatus::defective || n.status == NodeStatus::suspect;
  });
  if (v.check->pattern == GroupPattern::all && !named) {  // one row, unless a skew gate named the late node
    const bool failed = std::any_of(v.nodes.begin(), v.nodes.end(),
                                    [](const NodeVerdict& n) { return n.status == NodeStatus::group_failed; });
    const GroupVerdict* g = v.first.empty() ? nullptr : &v.first.front();
    t.rows.push_back({{fmt::format("all {} nodes together", v.nodes.size())},
                      {"-"},
                      {fmt::format("{} of {}", g && g->pass ? 1 : 0, v.first.size())},
                      {failed ? "the group failed" : "pass", failed ? Tone::worse : Tone::better},
                      {g && std::isfinite(g->margin) ? fmt::format("{:+.0f}%", 100 * g->margin) : "-"},
                      {failed ? "one group cannot name a node (see the finding)" : "-"}});
    return t;
  }
  std::vector<std::size_t> order(v.nodes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const NodeVerdict &x = v.nodes[a], &y = v.nodes[b];
    if (severity(x.status) != severity(y.status)) return severity(x.status) < severity(y.status);
    const double mx = std::isfinite(x.margin) ? x.margin : INFINITY, my = std::isfinite(y.margin) ? y.margin : INFINITY;
    return mx < my;
  });
  std::map<std::string, std::size_t> rest;  // status -> nodes not listed
  for (std::size_t i : order) {
    const NodeVerdict& n = v.nodes[i];
    const bool notable = n.status == NodeStatus::defective || n.status == NodeStatus::suspect;
    if (t.rows.size() >= lim.node_rows || (view == AcceptView::terminal && !notable)) {
      ++rest[std::string(name(n.status))];
      continue;
    }
    t.rows.push_back({{n.host},
                      {i < o.ranks_per_node.size() ? std::to_string(o.ranks_per_node[i]) : "-"},
                      {fmt::format("{} of {}", n.groups_passed, n.groups)},
                      {std::string(name(n.status)), tone_of(n.status)},
                      {std::isfinite(n.margin) ? fmt::format("{:+.0f}%", 100 * n.margin) : "-"},
                      {n.reason.empty() ? "-" : n.reason}});
  }
  if (!rest.empty()) {
    std::string counts;
    for (const auto& [status, k] : rest) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", k, status);
    t.note = fmt::format("{} more nodes not listed: {} (verdict.md and verdict.json list every node).",
                         order.size() - t.rows.size(), counts);
  }
  return t;
}

Table pair_matrix_table(const Gate& g, const PairMatrix& m, const std::vector<std::string>& hosts) {
  double lo = INFINITY, hi = -INFINITY;
  for (std::size_t a = 0; a < m.nodes(); ++a)
    for (std::size_t b = 0; b < m.nodes(); ++b)
      if (std::isfinite(m.value(a, b))) lo = std::min(lo, m.value(a, b)), hi = std::max(hi, m.value(a, b));
  Table mt;
  mt.title = fmt::format("Pair matrix: {} at {} ({}, median over repeats; red fails the gate)", name(g.metric),
                         format_size(static_cast<double>(g.at_bytes)), metric_unit(g.metric));
  mt.header.push_back("");
  for (const auto& h : hosts) mt.header.push_back(h);
  for (std::size_t a = 0; a < m.nodes(); ++a) {
    std::vector<Cell> row{{hosts[a]}};
    for (std::size_t b = 0; b < m.nodes(); ++b) {
      Cell cell{a == b ? "x" : value_text(m.value(a, b), g.metric), Tone::muted};
      if (a != b && std::isfinite(m.value(a, b))) {
        const bool pass = m.passed(a, b);
        double q = hi > lo ? (m.value(a, b) - lo) / (hi - lo) : 1.0;
        if (!higher_is_better(g.metric)) q = 1 - q;
        cell.tone = pass ? Tone::plain : Tone::worse;
        cell.heat = pass ? 5 + static_cast<int>(std::lround(q * 5)) : std::min(4, static_cast<int>(std::lround(q * 4)));
        if (!pass) cell.text += " FAIL";
      }
      row.push_back(cell);
    }
    mt.rows.push_back(row);
  }
  mt.note =
      "Each cell is one pair of the first pass; the colour scale runs from the lowest to the highest value "
      "of this matrix (failing pairs in reds).";
  return mt;
}

}  // namespace

bool AcceptOutcome::accepted() const {
  if (!run_errors.empty()) return false;
  return std::all_of(checks.begin(), checks.end(), [](const CheckVerdict& v) { return v.pass; });
}

int AcceptOutcome::exit_code() const { return !run_errors.empty() ? kExitUsage : accepted() ? kExitOk : kExitRejected; }

void withhold_blame_on_errors(AcceptOutcome& o) {
  if (o.run_errors.empty()) return;
  const std::string why =
      fmt::format("not named defective: the run had errors ({}{})", o.run_errors.front(),
                  o.run_errors.size() > 1 ? fmt::format(" and {} more", o.run_errors.size() - 1) : "");
  for (CheckVerdict& v : o.checks) {
    for (NodeVerdict& n : v.nodes)
      if (n.status == NodeStatus::defective) {
        n.status = NodeStatus::suspect;
        n.reason = why + "; measured: " + n.reason;
      }
    for (std::string& f : v.findings) {
      for (const std::string_view said : {std::string_view(" is defective: "), std::string_view(" are defective: ")})
        if (const std::size_t at = f.find(said); at != std::string::npos)
          f = f.substr(0, at) + " failed, " + why + ": " + f.substr(at + said.size());
    }
  }
}

PairMatrix::PairMatrix(const CheckVerdict& v, std::size_t nodes)
    : nodes_(nodes), value_(nodes * nodes, kNaNv), state_(nodes * nodes, 0) {
  for (const GroupVerdict& g : v.first) {
    if (g.run.nodes.size() != 2) continue;
    const auto a = static_cast<std::size_t>(g.run.nodes[0]), b = static_cast<std::size_t>(g.run.nodes[1]);
    if (a >= nodes || b >= nodes) continue;
    value_[a * nodes + b] = value_[b * nodes + a] = g.headline;
    state_[a * nodes + b] = state_[b * nodes + a] = g.pass ? 2 : 1;
  }
}

namespace {

// The verdict, the run's facts and one row per check.
Section verdict_top(const AcceptOutcome& o) {
  const AcceptSpec& spec = *o.spec;
  Section top;
  top.heading = !o.finished ? fmt::format("Verdict: INCOMPLETE ({} of {} checks done so far)", o.checks.size(),
                                          spec.checks.size())
                : o.exit_code() == kExitOk       ? "Verdict: ACCEPTED"
                : o.exit_code() == kExitRejected ? "Verdict: REJECTED"
                                                 : "Verdict: ERROR";
  const std::string node_list =
      o.hosts.size() <= 16 ? group_hosts(schedule(GroupPattern::all, static_cast<int>(o.hosts.size()))[0][0], o.hosts)
                           : fmt::format("{} ... {}", o.hosts.front(), o.hosts.back());
  top.paragraphs.push_back(fmt::format(
      "{}Spec {}{}. {} nodes: {}. Started {}, ended {}.{}",
      o.simulated.empty() ? "" : "SIMULATED against the cluster model " + o.simulated + " (no MPI run). ", spec.file,
      spec.description.empty() ? "" : " (" + spec.description + ")", o.hosts.size(), node_list, o.started_at,
      o.ended_at, o.engine == "mpi" ? "" : " Each group ran as its own job step (" + o.engine + ")."));
  for (const std::string& e : o.run_errors) top.paragraphs.push_back("Run error: " + e);
  for (const std::string& r : o.reruns) top.paragraphs.push_back("Slurm: " + r);
  for (const std::string& a : o.actions) top.paragraphs.push_back("Slurm: " + a);
  Table summary;
  summary.header = {
      "check",   "pattern", "groups passed", "rounds", o.simulated.empty() ? "time (s)" : "simulated time (s)",
      "verdict", "findings"};
  summary.left_columns = 2;
  summary.last_left = true;
  for (const CheckVerdict& v : o.checks) {
    std::size_t passed = 0;
    for (const GroupVerdict& g : v.first) passed += g.pass ? 1 : 0;
    std::string findings = v.findings.empty() ? "-" : v.findings.front();
    if (v.findings.size() > 1) findings += fmt::format(" (and {} more findings)", v.findings.size() - 1);
    summary.rows.push_back({{v.check->name},
                            {std::string(name(v.check->pattern))},
                            {fmt::format("{} of {}", passed, v.first.size())},
                            {std::to_string(v.rounds)},
                            {fmt::format("{:.0f}", v.wall_s)},
                            {v.pass ? "pass" : "FAIL", v.pass ? Tone::better : Tone::worse},
                            {findings}});
  }
  summary.note =
      "A group passes when it passes every gate in at least k of its n repeats and no element fails "
      "verification; a check passes when nothing is blamed (no node defective or left a suspect, no link "
      "or group finding): a failure that a re-test took back is noise, not a verdict (docs/acceptance.md: Acceptance "
      "testing).";
  top.tables.push_back(summary);
  return top;
}

// One check: what it ran, its gates and findings, its nodes, pairs and groups.
Section check_section(const CheckVerdict& v, const AcceptOutcome& o, const ViewLimits& lim, AcceptView view) {
  const Check& c = *v.check;
  Section s;
  s.heading = fmt::format("Check {}: {}", c.name, v.pass ? "pass" : "FAIL");
  if (c.io)
    s.paragraphs.push_back(fmt::format(
        "ccbench io {} on {} ({} per rank, {} qd {}, {} thread{}{}), block sizes {}; pattern {}; {} of {} repeats "
        "must pass; spec line {}.",
        c.io->pattern, c.io->dir, format_size(c.io->file_bytes), c.io->direct ? "O_DIRECT" : "buffered",
        c.io->queue_depth, c.io->threads, c.io->threads == 1 ? "" : "s", c.io->shared_file ? ", one shared file" : "",
        sizes_text(c), name(c.pattern), c.pass_repeats, c.repeats, c.line));
  else
    s.paragraphs.push_back(fmt::format(
        "{} {}{}, backend {} ({} memory, path {}), sizes {}; {} iterations after {} warm-up; pattern {}; {} of {} "
        "repeats must pass; spec line {}.",
        c.collective->name, info(c.dtype).name, c.reduces() ? " " + std::string(name(c.op)) : "",
        setting_name(c.backend), c.backend == BackendKind::nccl ? "device" : setting_name(c.memory),
        setting_name(c.path), sizes_text(c), c.iterations, c.warmup, name(c.pattern), c.pass_repeats, c.repeats,
        c.line));
  std::string gates;
  for (const Gate& g : c.gates)
    gates += (gates.empty() ? "Gates: " : "; ") + g.describe() + fmt::format(" (line {})", g.line);
  s.paragraphs.push_back(gates + ".");
  // A share gate's floor: what it was a share of and where that came from,
  // each distinct basis once (every group's run resolves its own).
  for (std::size_t i = 0; i < c.gates.size(); ++i) {
    if (c.gates[i].share_of.empty()) continue;
    std::set<std::string> bases;
    for (const auto* pass : {&v.first, &v.second})
      for (const GroupVerdict& g : *pass)
        if (i < g.gates.size()) bases.insert(g.gates[i].basis.empty() ? g.gates[i].note : g.gates[i].basis);
    for (const std::string& b : bases)
      if (!b.empty()) s.paragraphs.push_back(fmt::format("Floor of line {}: {}.", c.gates[i].line, b));
  }
  for (std::size_t i = 0; i < v.findings.size() && i < lim.findings; ++i)
    s.paragraphs.push_back("Finding: " + v.findings[i]);
  if (v.findings.size() > lim.findings)
    s.paragraphs.push_back(fmt::format("... and {} more findings (verdict.md and verdict.json have them all).",
                                       v.findings.size() - lim.findings));
  s.tables.push_back(nodes_table(v, o, lim, view));
  if ((c.pattern == GroupPattern::pairwise || c.pattern == GroupPattern::ring) && !c.gates.empty()) {
    if (o.hosts.size() <= lim.matrix_nodes)
      s.tables.push_back(pair_matrix_table(c.gates.front(), PairMatrix(v, o.hosts.size()), o.hosts));
    else
      s.paragraphs.push_back(
          fmt::format("The pair matrix of {} nodes is not drawn here (over {}): {} has each pair's "
                      "values (its first-pass lines).",
                      o.hosts.size(), lim.matrix_nodes, kGroupDetailFile));
  }
  s.tables.push_back(
      groups_table(c.pattern == GroupPattern::bisect ? "The search: every group, round by round" : "First pass", c,
                   v.first, o.hosts, lim.group_rows));
  if (!v.second.empty()) {
    Table t =
        groups_table("Second pass: suspects re-paired with reference nodes", c, v.second, o.hosts, lim.group_rows);
    std::vector<std::string> refs;
    for (int n : v.suspects.references) refs.push_back(o.hosts[static_cast<std::size_t>(n)]);
    t.note = fmt::format("References ({}): {}. ",
                         v.suspects.presumed ? "presumed good: every failing pair includes a suspect"
                                             : "nodes in no failing pair",
                         name_list(refs, view == AcceptView::terminal ? 8 : 64)) +
             t.note;
    s.tables.push_back(t);
  }
  return s;
}

}  // namespace

Report build_accept_report(const AcceptOutcome& o, AcceptView view) {
  const ViewLimits lim = limits_of(view);
  Report r;
  const AcceptSpec& spec = *o.spec;
  r.title = fmt::format("ccbench accept: {}", spec.name.empty() ? spec.file : spec.name);
  r.sections.push_back(verdict_top(o));
  for (const CheckVerdict& v : o.checks) r.sections.push_back(check_section(v, o, lim, view));
  return r;
}

namespace {

using nlohmann::json;

json num(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

// verdict.json is written piece by piece in nlohmann's dump(1) layout: a
// 1,024-node pairwise check has 523,776 groups, too many to hold as one json
// tree. Text that is not UTF-8 (a host name) is replaced, never thrown on.
template <class Json>
void put(std::string& out, const Json& v, int depth) {
  const std::string s = json_text(v, 1);
  for (char ch : s) {
    out += ch;
    if (ch == '\n') out.append(static_cast<std::size_t>(depth), ' ');
  }
}

// Members of an object at `depth`, then the streamed ones after them; the
// caller writes the braces.
using Streamed = std::vector<std::pair<std::string, std::function<void(std::string&, int)>>>;
template <class Json>
void put_members(std::string& out, const Json& fixed, const Streamed& streamed, int depth) {
  bool first = true;
  const auto key = [&](const std::string& k) {
    out += first ? "\n" : ",\n";
    first = false;
    out.append(static_cast<std::size_t>(depth), ' ');
    put(out, json(k), depth);
    out += ": ";
  };
  for (const auto& [k, v] : fixed.items()) key(k), put(out, v, depth);
  for (const auto& [k, f] : streamed) key(k), f(out, depth);
  out += '\n';
  out.append(static_cast<std::size_t>(depth - 1), ' ');
}

template <class Each>
void put_array(std::string& out, std::size_t n, int depth, Each&& each) {
  if (n == 0) {
    out += "[]";
    return;
  }
  out += '[';
  for (std::size_t i = 0; i < n; ++i) {
    out += i ? ",\n" : "\n";
    out.append(static_cast<std::size_t>(depth + 1), ' ');
    each(i, depth + 1);
  }
  out += '\n';
  out.append(static_cast<std::size_t>(depth), ' ');
  out += ']';
}

json group_json(const GroupVerdict& g, const std::vector<std::string>& hosts) {
  json gj{{"nodes", json::array()},  {"round", g.run.round + 1},   {"ranks", g.run.ranks},
          {"pass", g.pass},          {"reason", g.reason},         {"wrong", g.wrong},
          {"margin", num(g.margin)}, {"headline", num(g.headline)}};
  if (g.run.role != GroupRole::none) gj["role"] = std::string(name(g.run.role));
  for (int n : g.run.nodes) gj["nodes"].push_back(hosts[static_cast<std::size_t>(n)]);
  if (!g.late_hosts.empty()) gj["late_hosts"] = g.late_hosts;
  if (!g.late_host.empty()) gj["late_host"] = g.late_host;
  gj["gates"] = json::array();
  for (const GateResult& gr : g.gates) {
    json values = json::array();
    for (double x : gr.values) values.push_back(num(x));
    gj["gates"].push_back({{"values", values},
                           {"bar", gr.bar},
                           {"passed", gr.passed},
                           {"pass", gr.pass},
                           {"baseline", gr.base ? json(*gr.base) : json(nullptr)},
                           {"basis", gr.basis},
                           {"note", gr.note}});
  }
  return gj;
}

// Groups verdict.json lists per pass (groups.jsonl has every group).
constexpr std::size_t kJsonGroups = 200;

void put_check(std::string& out, const CheckVerdict& v, const AcceptOutcome& o, int depth) {
  const Check& c = *v.check;
  json cj{{"name", c.name},
          {"collective", c.series()},
          {"dtype", c.io ? "-" : info(c.dtype).name},
          {"op", c.reduces() ? std::string(name(c.op)) : "-"},
          {"backend", c.io ? "io" : setting_name(c.backend)},
          {"path", setting_name(c.path)},
          {"pattern", name(c.pattern)},
          {"sizes", c.sizes},
          {"repeats", c.repeats},
          {"pass_repeats", c.pass_repeats},
          {"pass", v.pass},
          {"findings", v.findings},
          {"line", c.line},
          {"rounds", v.rounds},
          {"wall_s", v.wall_s}};
  cj["gates"] = json::array();
  for (const Gate& g : c.gates)
    cj["gates"].push_back(
        {{"describe", g.describe()}, {"metric", name(g.metric)}, {"at_bytes", g.at_bytes}, {"line", g.line}});
  cj["references"] = json::array();
  for (int n : v.suspects.references) cj["references"].push_back(o.hosts[static_cast<std::size_t>(n)]);
  cj["references_presumed"] = v.suspects.presumed;
  // The groups a reader acts on (all of them when they fit, else the
  // failing ones and the re-tests, as verdict.md lists them); every group,
  // with its gates' values per repeat, is a line of groups.jsonl.
  const ViewLimits lim = limits_of(AcceptView::files);
  std::size_t left_first = 0, left_second = 0;
  auto first = std::make_shared<std::vector<const GroupVerdict*>>(groups_to_show(v.first, kJsonGroups, left_first));
  auto second = std::make_shared<std::vector<const GroupVerdict*>>(groups_to_show(v.second, kJsonGroups, left_second));
  const auto failed = [](const std::vector<GroupVerdict>& gs) {
    return std::count_if(gs.begin(), gs.end(), [](const GroupVerdict& g) { return !g.pass; });
  };
  cj["groups"] = {{"first_pass", v.first.size()},
                  {"second_pass", v.second.size()},
                  {"failed", failed(v.first) + failed(v.second)},
                  {"listed", first->size() + second->size()},
                  {"every_group", kGroupDetailFile}};
  Streamed streamed;
  for (const auto& pass : {std::pair{"first_pass", first}, std::pair{"second_pass", second}})
    streamed.emplace_back(pass.first, [list = pass.second, &o](std::string& s, int d) {
      put_array(s, list->size(), d, [&](std::size_t i, int dd) { put(s, group_json(*(*list)[i], o.hosts), dd); });
    });
  streamed.emplace_back("node_verdicts", [&v](std::string& s, int d) {
    put_array(s, v.nodes.size(), d, [&](std::size_t i, int dd) {
      const NodeVerdict& n = v.nodes[i];
      put(s,
          json{{"node", n.host},
               {"status", name(n.status)},
               {"groups", n.groups},
               {"groups_passed", n.groups_passed},
               {"reason", n.reason},
               {"margin", num(n.margin)}},
          dd);
    });
  });
  if ((c.pattern == GroupPattern::pairwise || c.pattern == GroupPattern::ring) && o.hosts.size() <= lim.matrix_nodes)
    streamed.emplace_back("pair_matrix", [&v, &o, &c](std::string& s, int d) {
      const PairMatrix pm(v, o.hosts.size());
      s += "{\n";
      s.append(static_cast<std::size_t>(d + 1), ' ');
      s += fmt::format("\"metric\": \"{}\",\n", c.gates.empty() ? "" : std::string(name(c.gates.front().metric)));
      s.append(static_cast<std::size_t>(d + 1), ' ');
      s += "\"values\": ";
      put_array(s, pm.nodes(), d + 1, [&](std::size_t a, int) {
        json row = json::array();
        for (std::size_t b = 0; b < pm.nodes(); ++b) row.push_back(num(pm.value(a, b)));
        s += json_text(row);  // one row per line
      });
      s += '\n';
      s.append(static_cast<std::size_t>(d), ' ');
      s += '}';
    });
  out += '{';
  put_members(out, cj, streamed, depth + 1);
  out += '}';
}

}  // namespace

std::string group_detail_line(const Check& c, const GroupVerdict& g, const std::vector<std::string>& hosts) {
  // 4 significant figures: what the tables print; 1,024 nodes pairwise are
  // 523,776 lines of about 200 bytes.
  const auto short_num = [](double v) { return std::isfinite(v) ? json(std::stod(fmt::format("{:.4g}", v))) : json(); };
  json j{{"check", c.name},
         {"in_pass", g.run.pass == 1 ? "first" : "second"},
         {"round", g.run.round + 1},
         {"nodes", json::array()},
         {"ranks", g.run.ranks},
         {"pass", g.pass},
         {"margin", short_num(g.margin)}};
  if (g.run.role != GroupRole::none) j["role"] = std::string(name(g.run.role));
  for (int n : g.run.nodes) j["nodes"].push_back(hosts[static_cast<std::size_t>(n)]);
  if (!g.reason.empty()) j["reason"] = g.reason;
  if (g.wrong) j["wrong"] = g.wrong;
  if (!g.late_hosts.empty()) j["late_hosts"] = g.late_hosts;
  j["gates"] = json::array();
  for (const GateResult& gr : g.gates) {
    json gj{{"values", json::array()}, {"bar", short_num(gr.bar)}, {"passed", gr.passed}};
    for (double x : gr.values) gj["values"].push_back(short_num(x));
    if (gr.base) gj["baseline"] = short_num(*gr.base);
    if (!gr.basis.empty()) gj["basis"] = gr.basis;
    if (!gr.note.empty()) gj["note"] = gr.note;
    j["gates"].push_back(std::move(gj));
  }
  return json_text(j) + "\n";
}

std::string accept_to_json(const AcceptOutcome& o) {
  // The answer first (a reader who opens the file sees it): the verdict, the
  // defective nodes with the checks that named them, the run's errors; then
  // the run, then each check's detail.
  std::map<std::string, std::vector<std::string>> defective;
  for (const CheckVerdict& v : o.checks)
    for (const NodeVerdict& n : v.nodes)
      if (n.status == NodeStatus::defective) defective[n.host].push_back(v.check->name);
  nlohmann::ordered_json j;
  j["ccbench_accept"] = 1;
  j["verdict"] = !o.finished          ? "incomplete"
                 : o.exit_code() == 0 ? "accepted"
                 : o.exit_code() == 1 ? "rejected"
                                      : "error";
  j["exit_code"] = o.exit_code();
  j["defective_nodes"] = defective.empty() ? json::object() : json(defective);
  j["run_errors"] = o.run_errors;
  j["actions"] = o.actions;
  j["step_reruns"] = o.reruns;
  j["spec"] = {{"file", o.spec->file}, {"name", o.spec->name}, {"description", o.spec->description}};
  j["started_at"] = o.started_at;
  j["ended_at"] = o.ended_at;
  j["simulated"] = o.simulated.empty() ? json(nullptr) : json(o.simulated);
  j["engine"] = o.engine;
  j["nodes"] = o.hosts;
  j["ranks_per_node"] = o.ranks_per_node;
  std::string out = "{";
  put_members(out, j,
              {{"checks",
                [&](std::string& s, int d) {
                  put_array(s, o.checks.size(), d, [&](std::size_t i, int dd) { put_check(s, o.checks[i], o, dd); });
                }}},
              1);
  out += "}\n";
  return out;
}

}  // namespace ccb
