#include "results/accept/accept_report.hpp"

#include "common/sizes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/errors.hpp"

namespace ccb {
namespace {

constexpr double kNaNv = std::numeric_limits<double>::quiet_NaN();

std::string value_text(double v, Metric m) {
  if (!std::isfinite(v)) return "-";
  return m == Metric::time ? format_us(v) : fmt::format("{:.3g}", v);
}

std::string sizes_text(const Check& c) {
  std::string s;
  for (std::size_t b : c.sizes) s += (s.empty() ? "" : ", ") + format_size(static_cast<double>(b));
  return s;
}

Table groups_table(const std::string& title, const Check& c, const std::vector<GroupVerdict>& groups,
                   const std::vector<std::string>& hosts) {
  Table t;
  t.title = title;
  const bool roles = std::any_of(groups.begin(), groups.end(), [](const GroupVerdict& g) { return !g.run.role.empty(); });
  t.header = {"round", "nodes", "ranks", "verdict"};
  if (roles) t.header.insert(t.header.begin() + 1, "why it ran");
  for (const Gate& g : c.gates) t.header.push_back(fmt::format("{} at {}", name(g.metric), format_size(static_cast<double>(g.at_bytes))));
  t.header.push_back("margin");
  t.header.push_back("reason");
  t.left_columns = 2;
  t.last_left = true;
  for (const GroupVerdict& g : groups) {
    std::vector<Cell> row{{std::to_string(g.run.round + 1)}, {group_hosts(g.run.nodes, hosts)},
                          {std::to_string(g.run.ranks)}, {g.pass ? "pass" : "FAIL", g.pass ? Tone::better : Tone::worse}};
    if (roles) row.insert(row.begin() + 1, Cell{g.run.role});
    for (std::size_t i = 0; i < g.gates.size(); ++i) {
      std::string vals;
      for (double v : g.gates[i].values) vals += (vals.empty() ? "" : " ") + value_text(v, c.gates[i].metric);
      row.push_back({fmt::format("{} ({}/{} {} bar {:.4g})", vals, g.gates[i].passed, g.gates[i].values.size(),
                                 higher_is_better(c.gates[i].metric) ? ">=" : "<=", g.gates[i].bar),
                     g.gates[i].pass ? Tone::plain : Tone::worse});
    }
    row.push_back({std::isfinite(g.margin) ? fmt::format("{:+.0f}%", g.margin * 100) : "-", g.pass ? Tone::plain : Tone::worse});
    row.push_back({g.reason, g.pass ? Tone::muted : Tone::plain});
    t.rows.push_back(row);
  }
  t.note = std::string(c.io ? "Values: one per repeat; busbw = GB/s of all the group's ranks (ccbench io); time = mean "
                               "per request in us (checkpoint: time to persist); "
                             : "Values: one per repeat, out-of-place, time = pipelined mean over ranks; ") +
           "the bar is the gate's threshold; margin: the median's distance to the bar (positive: better than needed), "
           "the smallest over gates.";
  if (roles)
    t.note += " Why it ran: search (a group of the splitting; a pass clears its nodes, a failure splits it), "
              "re-test (a failing group whose halves all passed, run whole again), confirm / re-confirm (a suspect "
              "paired with a cleared node; named defective only when both fail), pair re-test (a failing pair whose "
              "nodes both passed with references, run again before its link is named).";
  return t;
}

}  // namespace

bool AcceptOutcome::accepted() const {
  if (!run_errors.empty()) return false;
  return std::all_of(checks.begin(), checks.end(), [](const CheckVerdict& v) { return v.pass; });
}

int AcceptOutcome::exit_code() const { return !run_errors.empty() ? kExitUsage : accepted() ? kExitOk : kExitRejected; }

std::vector<std::vector<double>> pair_matrix(const CheckVerdict& v, std::size_t nodes) {
  std::vector<std::vector<double>> m(nodes, std::vector<double>(nodes, kNaNv));
  for (const GroupVerdict& g : v.first) {
    if (g.run.nodes.size() != 2) continue;
    const auto a = static_cast<std::size_t>(g.run.nodes[0]), b = static_cast<std::size_t>(g.run.nodes[1]);
    m[a][b] = m[b][a] = g.headline;
  }
  return m;
}

Report build_accept_report(const AcceptOutcome& o) {
  Report r;
  const AcceptSpec& spec = *o.spec;
  r.title = fmt::format("ccbench accept: {}", spec.name.empty() ? spec.file : spec.name);
  Section top;
  top.heading = !o.finished          ? fmt::format("Verdict: INCOMPLETE ({} of {} checks done so far)", o.checks.size(),
                                                    spec.checks.size())
                : o.exit_code() == kExitOk       ? "Verdict: ACCEPTED"
                : o.exit_code() == kExitRejected ? "Verdict: REJECTED"
                                     : "Verdict: ERROR";
  const std::string node_list = o.hosts.size() <= 16
                                    ? group_hosts(schedule(Pattern::all, static_cast<int>(o.hosts.size()))[0][0], o.hosts)
                                    : fmt::format("{} ... {}", o.hosts.front(), o.hosts.back());
  top.paragraphs.push_back(fmt::format("{}Spec {}{}. {} nodes: {}. Started {}, ended {}.",
                                       o.simulated.empty() ? "" : "SIMULATED against the cluster model " + o.simulated + " (no MPI run). ",
                                       spec.file, spec.description.empty() ? "" : " (" + spec.description + ")", o.hosts.size(),
                                       node_list, o.started_at, o.ended_at));
  for (const std::string& e : o.run_errors) top.paragraphs.push_back("Run error: " + e);
  Table summary;
  summary.header = {"check", "pattern", "groups passed", "rounds", o.simulated.empty() ? "time (s)" : "simulated time (s)",
                    "verdict", "findings"};
  summary.left_columns = 2;
  summary.last_left = true;
  for (const CheckVerdict& v : o.checks) {
    std::size_t passed = 0;
    for (const GroupVerdict& g : v.first) passed += g.pass ? 1 : 0;
    std::string findings;
    for (const std::string& f : v.findings) findings += (findings.empty() ? "" : "; ") + f;
    summary.rows.push_back({{v.check->name},
                            {std::string(name(v.check->pattern))},
                            {fmt::format("{} of {}", passed, v.first.size())},
                            {std::to_string(v.rounds)},
                            {fmt::format("{:.0f}", v.wall_s)},
                            {v.pass ? "pass" : "FAIL", v.pass ? Tone::better : Tone::worse},
                            {findings.empty() ? "-" : findings}});
  }
  summary.note = "A group passes when it passes every gate in at least k of its n repeats and no element fails "
                 "verification; a check passes when nothing is blamed (no node defective or left a suspect, no link "
                 "or group finding): a failure that a re-test took back is noise, not a verdict (docs/acceptance.md: Acceptance "
                 "testing).";
  top.tables.push_back(summary);
  r.sections.push_back(top);

  for (const CheckVerdict& v : o.checks) {
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
          c.collective->name, info(c.dtype).name, c.reduces() ? " " + std::string(name(c.op)) : "", setting_name(c.backend),
          c.backend == BackendKind::nccl ? "device" : setting_name(c.memory), setting_name(c.path), sizes_text(c), c.iterations, c.warmup, name(c.pattern),
          c.pass_repeats, c.repeats, c.line));
    std::string gates;
    for (const Gate& g : c.gates) gates += (gates.empty() ? "Gates: " : "; ") + g.describe() + fmt::format(" (line {})", g.line);
    s.paragraphs.push_back(gates + ".");
    for (const std::string& f : v.findings) s.paragraphs.push_back("Finding: " + f);

    Table nodes;
    nodes.title = "Nodes";
    nodes.header = {"node", "ranks", "groups passed", "verdict", "why"};
    nodes.left_columns = 1;
    nodes.last_left = true;
    for (std::size_t i = 0; i < v.nodes.size(); ++i) {
      const NodeVerdict& n = v.nodes[i];
      const Tone tone = n.status == NodeStatus::defective || n.status == NodeStatus::failed ? Tone::worse
                        : n.status == NodeStatus::suspect                                  ? Tone::warn
                                                                                           : Tone::better;
      nodes.rows.push_back({{n.host},
                            {i < o.ranks_per_node.size() ? std::to_string(o.ranks_per_node[i]) : "-"},
                            {fmt::format("{} of {}", n.groups_passed, n.groups)},
                            {std::string(name(n.status)), tone},
                            {n.reason.empty() ? "-" : n.reason}});
    }
    s.tables.push_back(nodes);

    if ((c.pattern == Pattern::pairwise || c.pattern == Pattern::ring) && !c.gates.empty()) {
      const Gate& g = c.gates.front();
      const auto m = pair_matrix(v, o.hosts.size());
      double lo = INFINITY, hi = -INFINITY;
      for (const auto& row : m)
        for (double x : row)
          if (std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x);
      Table mt;
      mt.title = fmt::format("Pair matrix: {} at {} ({}, median over repeats; red fails the gate)", name(g.metric),
                             format_size(static_cast<double>(g.at_bytes)), g.metric == Metric::time ? "us" : "GB/s");
      mt.header.push_back("");
      for (const auto& h : o.hosts) mt.header.push_back(h);
      for (std::size_t a = 0; a < m.size(); ++a) {
        std::vector<Cell> row{{o.hosts[a]}};
        for (std::size_t b = 0; b < m.size(); ++b) {
          Cell cell{a == b ? "x" : value_text(m[a][b], g.metric), Tone::muted};
          if (a != b && std::isfinite(m[a][b])) {
            bool pass = true;
            for (const GroupVerdict& gv : v.first)
              if (gv.run.nodes.size() == 2 && ((gv.run.nodes[0] == static_cast<int>(a) && gv.run.nodes[1] == static_cast<int>(b)) ||
                                               (gv.run.nodes[0] == static_cast<int>(b) && gv.run.nodes[1] == static_cast<int>(a))))
                pass = gv.pass;
            double q = hi > lo ? (m[a][b] - lo) / (hi - lo) : 1.0;
            if (!higher_is_better(g.metric)) q = 1 - q;
            cell.tone = pass ? Tone::plain : Tone::worse;
            cell.heat = pass ? 5 + static_cast<int>(std::lround(q * 5)) : std::min(4, static_cast<int>(std::lround(q * 4)));
            if (!pass) cell.text += " FAIL";
          }
          row.push_back(cell);
        }
        mt.rows.push_back(row);
      }
      mt.note = "Each cell is one pair of the first pass; the colour scale runs from the lowest to the highest value "
                "of this matrix (failing pairs in reds).";
      s.tables.push_back(mt);
    }
    s.tables.push_back(groups_table(c.pattern == Pattern::bisect ? "The search: every group, round by round" : "First pass", c,
                                    v.first, o.hosts));
    if (!v.second.empty()) {
      Table t = groups_table("Second pass: suspects re-paired with reference nodes", c, v.second, o.hosts);
      std::string refs;
      for (int n : v.suspects.references) refs += (refs.empty() ? "" : ", ") + o.hosts[static_cast<std::size_t>(n)];
      t.note = fmt::format("References ({}): {}. ", v.suspects.presumed ? "presumed good: every failing pair includes a suspect" : "nodes in no failing pair", refs) + t.note;
      s.tables.push_back(t);
    }
    r.sections.push_back(s);
  }
  return r;
}

std::string accept_to_json(const AcceptOutcome& o) {
  using nlohmann::json;
  const auto num = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  json j;
  j["ccbench_accept"] = 1;
  j["spec"] = {{"file", o.spec->file}, {"name", o.spec->name}, {"description", o.spec->description}};
  j["verdict"] = !o.finished ? "incomplete" : o.exit_code() == 0 ? "accepted" : o.exit_code() == 1 ? "rejected" : "error";
  j["exit_code"] = o.exit_code();
  j["started_at"] = o.started_at;
  j["simulated"] = o.simulated.empty() ? json(nullptr) : json(o.simulated);
  j["ended_at"] = o.ended_at;
  j["nodes"] = o.hosts;
  j["ranks_per_node"] = o.ranks_per_node;
  j["run_errors"] = o.run_errors;
  j["checks"] = json::array();
  for (const CheckVerdict& v : o.checks) {
    const Check& c = *v.check;
    json cj{{"name", c.name}, {"collective", c.series()}, {"dtype", c.io ? "-" : info(c.dtype).name},
            {"op", c.reduces() ? std::string(name(c.op)) : "-"}, {"backend", c.io ? "io" : setting_name(c.backend)},
            {"path", setting_name(c.path)}, {"pattern", name(c.pattern)}, {"sizes", c.sizes}, {"repeats", c.repeats},
            {"pass_repeats", c.pass_repeats}, {"pass", v.pass}, {"findings", v.findings}, {"line", c.line},
            {"rounds", v.rounds}, {"wall_s", v.wall_s}};
    cj["gates"] = json::array();
    for (const Gate& g : c.gates) cj["gates"].push_back({{"describe", g.describe()}, {"metric", name(g.metric)}, {"at_bytes", g.at_bytes}, {"line", g.line}});
    for (const char* pass : {"first_pass", "second_pass"}) {
      json groups = json::array();
      for (const GroupVerdict& g : std::string(pass) == "first_pass" ? v.first : v.second) {
        json gj{{"nodes", json::array()}, {"round", g.run.round + 1}, {"ranks", g.run.ranks}, {"pass", g.pass},
                {"reason", g.reason}, {"wrong", g.wrong}, {"margin", num(g.margin)}};
        if (!g.run.role.empty()) gj["role"] = g.run.role;
        for (int n : g.run.nodes) gj["nodes"].push_back(o.hosts[static_cast<std::size_t>(n)]);
        gj["gates"] = json::array();
        for (const GateResult& gr : g.gates) {
          json values = json::array();
          for (double x : gr.values) values.push_back(num(x));
          gj["gates"].push_back({{"values", values}, {"bar", gr.bar}, {"passed", gr.passed}, {"pass", gr.pass},
                                 {"baseline", gr.base ? json(*gr.base) : json(nullptr)}, {"note", gr.note}});
        }
        groups.push_back(gj);
      }
      cj[pass] = groups;
    }
    cj["references"] = json::array();
    for (int n : v.suspects.references) cj["references"].push_back(o.hosts[static_cast<std::size_t>(n)]);
    cj["references_presumed"] = v.suspects.presumed;
    cj["node_verdicts"] = json::array();
    for (const NodeVerdict& n : v.nodes)
      cj["node_verdicts"].push_back({{"node", n.host}, {"status", name(n.status)}, {"groups", n.groups},
                                     {"groups_passed", n.groups_passed}, {"reason", n.reason}});
    if (c.pattern == Pattern::pairwise || c.pattern == Pattern::ring) {
      json m = json::array();
      for (const auto& row : pair_matrix(v, o.hosts.size())) {
        json r = json::array();
        for (double x : row) r.push_back(num(x));
        m.push_back(r);
      }
      cj["pair_matrix"] = {{"metric", c.gates.empty() ? "" : std::string(name(c.gates.front().metric))}, {"values", m}};
    }
    j["checks"].push_back(cj);
  }
  return j.dump(1) + "\n";
}

}  // namespace ccb
