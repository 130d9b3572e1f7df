#include "analysis/report/charts_gnuplot.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/environment.hpp"

extern char** environ;

namespace ccb {
namespace {

constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                   "#9467bd", "#8c564b", "#e377c2", "#17becf"};
constexpr const char* kKinds[] = {"busbw (GB/s)", "time (us)", "busbw / baseline"};

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs gnuplot on the script; returns "" or why it failed.
std::string run_gnuplot(const std::string& gnuplot, const std::string& script, const std::string& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::string prog = gnuplot;
  char* argv[] = {prog.data(), const_cast<char*>(script.c_str()), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, prog.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return fmt::format("{} could not be started ({})", gnuplot, std::strerror(rc));
  // CCBENCH_GNUPLOT_TIMEOUT (seconds, default 120) bounds a gnuplot that hangs.
  int limit_s = 120;
  if (const char* t = env_value(EnvVar::gnuplot_timeout); t && std::atoi(t) > 0) limit_s = std::atoi(t);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limit_s);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return fmt::format("gnuplot did not finish within {} s", limit_s);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string msg = read_all(log);
    if (msg.size() > 300) msg.resize(300);
    return fmt::format("gnuplot failed: {}", terminal_safe(msg));
  }
  return "";
}

constexpr double kBarClip = 10;  // error bars drawn at most this factor from their point

bool usable(double x, double y, bool log_y) {
  return std::isfinite(x) && x > 0 && std::isfinite(y) && (!log_y || y > 0);
}

// One curve of a chart (kind 0 busbw, 1 time, 2 ratio): its points written
// to `data`, and its gnuplot plot clause ("" when no point is usable). A
// ratio chart's points widen [lowest, highest].
std::string curve_plot(const ChartGroup::Curve& curve, const std::string& data, int kind, const char* color,
                       double& lowest, double& highest) {
  const bool log_y = kind == 1;
  const std::vector<double>& ys = kind == 0 ? curve.busbw_gbps : kind == 1 ? curve.time_us : curve.ratio;
  const std::size_t step = std::max<std::size_t>(1, curve.bytes.size() / kMaxChartPoints);
  std::ofstream out(data);
  std::size_t rows = 0;
  // Predicted curves carry their 90% interval (time, and busbw = bytes / time): error bars.
  const bool bars = curve.predicted && kind != 2 && curve.time_lo.size() == curve.bytes.size();
  bool clipped = false;
  for (std::size_t i = 0; i < curve.bytes.size(); i += step) {
    if (!usable(curve.bytes[i], ys[i], log_y || kind == 2)) continue;
    if (kind == 2) lowest = std::min(lowest, ys[i]), highest = std::max(highest, ys[i]);
    if (bars) {
      const double scale = kind == 0 ? ys[i] * curve.time_us[i] : 1;
      double lo = kind == 0 ? scale / curve.time_hi[i] : curve.time_lo[i];
      double hi = kind == 0 ? scale / curve.time_lo[i] : curve.time_hi[i];
      // An interval wider than the chart can say (1e-58 .. 1e58) would flatten the
      // measured curves to a line: bars are cut at kBarClip times the value.
      if (!(lo >= ys[i] / kBarClip)) lo = ys[i] / kBarClip, clipped = true;
      if (!(hi <= ys[i] * kBarClip)) hi = ys[i] * kBarClip, clipped = true;
      out << fmt::format("{} {} {} {}\n", curve.bytes[i], ys[i], lo, hi);
    } else {
      out << fmt::format("{} {}\n", curve.bytes[i], ys[i]);
    }
    ++rows;
  }
  if (rows == 0) return "";
  const char* style = curve.published   ? "points pt 7 ps 1.6"
                      : bars            ? "yerrorlines pt 6 ps 0.8 lw 2 dt 2"
                      : curve.predicted ? "linespoints pt 6 ps 0.8 lw 2 dt 2"
                                        : "linespoints pt 7 ps 0.6 lw 2";
  return fmt::format(
      "'{}' using {} with {} lc rgb '{}' title '{}{}'", data, bars ? "1:2:3:4" : "1:2", style, color,
      gnuplot_label(curve.label),
      curve.published ? " (published)"
      : bars ? clipped ? fmt::format(" (90% interval, cut at {:g}x)", kBarClip) : std::string(" (90% interval)")
             : "");
}

// The script for one chart written to `svg`: its axes, and its plots.
std::string chart_script(const std::string& svg, int kind, const std::string& plots, double lowest, double highest) {
  const double margin = std::max(0.05 * (highest - lowest), 0.02 * highest);
  return fmt::format(
      "reset\nset output '{}'\nset logscale x 2\nset format x '%.0b%B'\nset xlabel 'message size (bytes, binary "
      "prefixes)' noenhanced\nset ylabel '{}' noenhanced\nset key outside bottom center horizontal noenhanced\n"
      "set grid\n{}{}plot {}\nunset output\n",
      svg, kKinds[kind], kind == 1 ? "set logscale y 10\n" : "",
      kind == 2 ? fmt::format("set yrange [{}:{}]\nset arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc "
                              "rgb '#888888'\n",
                              lowest - margin, highest + margin)
                : "",
      plots);
}

}  // namespace

std::string gnuplot_label(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 48)) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    std::string_view(" ._:+=/()-").find(c) != std::string_view::npos;
    out += ok ? c : '?';
  }
  return out;
}

ChartImages render_charts(const std::vector<ChartGroup>& groups, const std::string& gnuplot) {
  namespace fs = std::filesystem;
  ChartImages images;
  const std::size_t n = std::min(groups.size(), kMaxChartGroups);
  images.svg.assign(n * 3, "");
  if (n == 0) return images;
  char tmpl[] = "/tmp/ccbench-charts-XXXXXX";
  if (!mkdtemp(tmpl)) {
    images.unavailable = fmt::format("no temporary folder for gnuplot ({})", std::strerror(errno));
    return images;
  }
  const std::string dir = tmpl;
  // 520 x 360 drawn about 430 px wide (three to a row at 1,400 px): 18-point
  // text lands near the page's body text.
  std::string script = "set terminal svg size 520,360 dynamic background '#ffffff' font 'sans,18'\n";
  for (std::size_t g = 0; g < n; ++g) {
    for (int kind = 0; kind < 3; ++kind) {
      std::string plots;
      double lowest = 1, highest = 1;  // ratio charts always show the line at 1.0
      for (std::size_t c = 0; c < groups[g].curves.size(); ++c) {
        if (kind == 2 && c == 0) continue;  // the baseline against itself
        const std::string clause = curve_plot(groups[g].curves[c], fmt::format("{}/g{}k{}c{}.dat", dir, g, kind, c),
                                              kind, kColors[c % 8], lowest, highest);
        if (!clause.empty()) plots += (plots.empty() ? "" : ", ") + clause;
      }
      if (!plots.empty())
        script += chart_script(fmt::format("{}/g{}k{}.svg", dir, g, kind), kind, plots, lowest, highest);
    }
  }
  const std::string script_path = dir + "/charts.gp";
  std::ofstream(script_path) << script;
  images.unavailable = run_gnuplot(gnuplot, script_path, dir + "/gnuplot.log");
  if (images.unavailable.empty()) {
    for (std::size_t g = 0; g < n; ++g)
      for (int kind = 0; kind < 3; ++kind) {
        std::string svg = read_all(fmt::format("{}/g{}k{}.svg", dir, g, kind));
        const std::size_t start = svg.find("<svg");
        images.svg[g * 3 + static_cast<std::size_t>(kind)] = start == std::string::npos ? "" : svg.substr(start);
      }
  } else {
    images.svg.clear();
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return images;
}

}  // namespace ccb
