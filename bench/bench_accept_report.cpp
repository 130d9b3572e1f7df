// Building an acceptance report at scale: a simulated check (the real plan
// and verdict code) on n nodes with two defective ones, then the time of each
// step that turns its verdict into files and the terminal report: the Report
// for the files and for the terminal, verdict.md, report.html, verdict.json,
// and the terminal's line count. The bounds (docs/performance.md): 1,024-node
// pairwise and 16,384-node bisect each under 10 s, the terminal under 200 lines.
// Usage: bench_accept_report [--pairwise N] [--bisect N]   (defaults 1024, 16384)
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "bench/simulated_check.hpp"
#include "analysis/accept/accept_report.hpp"
#include "analysis/accept/simulate.hpp"
#include "analysis/report/render.hpp"

using namespace ccb;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Returns false when a bound is missed.
bool run(GroupPattern p, int n) {
  const Check c = simulated_check(p);
  const ClusterModel m = make_cluster(n, {16, n / 3}, 0.5, 0.05, 1);
  std::mt19937_64 rng(m.seed);
  auto t0 = std::chrono::steady_clock::now();
  AcceptSpec spec;
  spec.file = "bench.yaml";
  AcceptOutcome o;
  o.spec = &spec;
  o.hosts = m.names;
  o.ranks_per_node.assign(m.names.size(), 1);
  o.simulated = "bench";
  o.checks.push_back(simulate_check(c, m, rng));
  const double sim = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  const Report files = build_accept_report(o, AcceptView::files);
  const std::string md = render_markdown(files), html = render_html(files, ChartImages{});
  const double file_reports = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  const std::string json = accept_to_json(o);
  const double json_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  const std::string term = render_terminal(build_accept_report(o, AcceptView::terminal), false);
  const double term_s = seconds_since(t0);
  const auto lines = std::count(term.begin(), term.end(), '\n');
  const double report_s = file_reports + json_s + term_s;
  const bool ok = report_s < 10 && lines < 200;
  fmt::print("| {} | {} | {} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | **{:.2f}** | {} | {:.1f} / {:.1f} / {:.1f} | {} |\n",
             name(p), n, o.checks[0].first.size() + o.checks[0].second.size(), sim, file_reports, json_s, term_s,
             report_s, lines, static_cast<double>(md.size()) / 1e6, static_cast<double>(html.size()) / 1e6,
             static_cast<double>(json.size()) / 1e6, ok ? "met" : "MISSED");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  int pairwise = 1024, bisect = 16384;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--pairwise")) pairwise = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--bisect")) bisect = std::atoi(argv[i + 1]);
  }
  fmt::print(
      "| pattern | nodes | groups | simulate (s) | md + html (s) | json (s) | terminal (s) | report (s) | terminal "
      "lines | "
      "md / html / json (MB) | bound (report < 10 s, < 200 lines) "
      "|\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
  const bool a = run(GroupPattern::pairwise, pairwise);
  const bool b = run(GroupPattern::bisect, bisect);
  return a && b ? 0 : 1;
}
