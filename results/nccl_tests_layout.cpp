#include "results/nccl_tests_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>

#include "results/stats.hpp"
#include "results/writers.hpp"

namespace ccb {
namespace {

using nlohmann::json;

// Each host's GPUs, from its node's topology record (parsed once per node).
std::map<std::string, json> gpus_by_host(const RunInfo& r) {
  std::map<std::string, json> out;
  for (const NodeRecord& n : r.node_topologies) {
    const json t = json::parse(n.topology_json, nullptr, false);
    if (t.is_discarded() || !t.contains("gpus") || !t["gpus"].is_array()) continue;
    for (const std::string& h : n.hosts) out[h] = t["gpus"];
  }
  return out;
}

// The model and PCI address ("0000:18:00") of GPU `index` on a host; "" when not known.
std::pair<std::string, std::string> gpu_of(const std::map<std::string, json>& gpus, const std::string& host,
                                           int index) {
  const auto it = gpus.find(host);
  if (it == gpus.end()) return {};
  for (const json& g : it->second)
    if (g.is_object() && g.value("index", -1) == index) {
      std::string bus = g.value("bus_id", "");
      if (const std::size_t dot = bus.rfind('.'); dot != std::string::npos) bus.resize(dot);  // domain:bus:device
      return {g.value("model", ""), bus};
    }
  return {};
}

}  // namespace

int nccl_version_code(const std::string& version) {
  int major = 0, minor = 0, patch = 0;
  if (std::sscanf(version.c_str(), "%d.%d.%d", &major, &minor, &patch) < 2) return 0;
  return major * 10000 + minor * 100 + patch;  // NCCL_VERSION_CODE from 2.9 on
}

std::vector<DeviceLine> device_lines(const RunInfo& r) {
  const std::map<std::string, json> gpus = gpus_by_host(r);
  std::vector<DeviceLine> out;
  for (const RankPlacement& p : r.placement) {
    DeviceLine d;
    d.rank = p.rank, d.group = p.group, d.pid = p.pid, d.host = p.host;
    if (p.devices.empty()) {
      d.device_hex = "host";
      d.device_info = "host memory";
      out.push_back(d);
      continue;
    }
    // -g N: one process drives N ranks, one line each, as nccl-tests prints them.
    for (std::size_t i = 0; i < p.devices.size(); ++i) {
      DeviceLine g = d;
      g.rank = p.rank + static_cast<int>(i);
      g.device = p.devices[i];
      std::tie(g.device_info, g.device_hex) = gpu_of(gpus, p.host, g.device);
      out.push_back(g);
    }
  }
  return out;
}

std::string nccl_tests_program(const std::string& collective) { return collective + "_perf"; }

std::string nccl_tests_header(const RunInfo& r) {
  // nccl-tests prints its headers' and the loaded library's NCCL_VERSION_CODE;
  // ccbench adds its own version as one more key=value (0: no NCCL in this build).
  std::string out =
      fmt::format("# nccl-tests version {} nccl-headers={} nccl-library={} ccbench={}\n", kNcclTestsLayoutVersion,
                  nccl_version_code(r.nccl_headers), nccl_version_code(r.nccl), r.ccbench_version);
  out += fmt::format("# Collective test starting: {}\n", nccl_tests_program(r.collective));
  const bool factor = r.step_factor > 1;
  out += fmt::format(
      "# nThread 1 nGpus {} minBytes {} maxBytes {} step: {}({}) warmup iters: {} iters: {} agg iters: 1 "
      "validation: {} graph: {} unalign: {}\n",
      r.ranks_per_process, r.min_bytes, r.max_bytes, factor ? static_cast<std::size_t>(r.step_factor) : r.step_bytes,
      factor ? "factor" : "bytes", r.warmup, r.iterations, r.check_iterations, r.cuda_graph, r.unalign);
  if (r.blocking_requested == 1) out += "# Blocking Enabled: wait and barrier after each inner iteration (-m) \n";
  if (r.blocking_requested == 2) out += "# Blocking Enabled: wait after each inner iteration (-m), no barrier \n";
  if (r.blocking_requested == 3)
    out += "# Blocking Enabled: wait and barrier after each outer iteration (-n); time excludes barrier \n";
  if (r.per_iter_timing)  // nccl-tests names its CUDA events; ccbench's mpi backend times on the host clock
    out += fmt::format("# Per-Iteration Report: {} timing; i_* uses max over process rows{} \n",
                       r.backend == "nccl" ? "CUDA event" : "host clock",
                       r.per_iter_skip > 0 ? fmt::format("; summary skips first {} iterations", r.per_iter_skip) : "");
  out += "#\n# Using devices\n";
  for (const DeviceLine& d : device_lines(r))
    out += fmt::format("#  Rank {:2} Group {:2} Pid {:6} on {:>10} device {:2} [{}] {}\n", d.rank, d.group, d.pid,
                       d.host, d.device, d.device_hex.empty() ? "unknown" : d.device_hex,
                       d.device_info.empty() ? "unknown" : d.device_info);
  return out + "#\n";
}

std::string nccl_tests_column_header(const RunInfo& r, const std::array<std::string, 3>& extra) {
  // Each line ends " %*s": the -S column (its label, then its format as the
  // unit), padded to 19, or nothing; then the --stats columns.
  const auto tail = [&](std::size_t line) {
    static constexpr const char* kTimestamp[] = {"", "timestamp", "%Y-%m-%d %H:%M:%S"};
    std::string t = r.report_timestamps && line > 0 ? fmt::format(" {:>19}", kTimestamp[line]) : " ";
    if (!extra[line].empty()) t += " " + extra[line];
    return t;
  };
  const char* time = r.report_cputime ? "cputime" : "time";
  if (!r.per_iter_timing)
    return fmt::format(
        "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}           out-of-place                       in-place          {}\n"
        "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}{}\n"
        "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}{}\n",
        "", "", "", "", "", extra[0], "size", "count", "type", "redop", "root", time, "algbw", "busbw", "#wrong", time,
        "algbw", "busbw", "#wrong", tail(1), "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)",
        "(GB/s)", "(GB/s)", "", tail(2));
  constexpr const char* kRow =
      "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>7}  {:>7}  {:>7}  {:>7}  {:>6}  "
      "{:>6}  {:>6}  {:>7}  {:>7}  {:>7}  {:>7}{}\n";
  return fmt::format(
             "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}              out-of-place (+ per-iteration)                      "
             "          in-place (+ per-iteration){}\n",
             "", "", "", "", "", extra[0].empty() ? "" : "  " + extra[0]) +
         fmt::format(fmt::runtime(kRow), "size", "count", "type", "redop", "root", time, "algbw", "busbw", "#wrong",
                     "i_min", "i_max", "i_p99", "i_cv%", time, "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99",
                     "i_cv%", tail(1)) +
         fmt::format(fmt::runtime(kRow), "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)",
                     "(us)", "(us)", "(%)", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)", tail(2));
}

std::string nccl_tests_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return fmt::format("{:>21}", buf);
}

std::string nccl_tests_in_loop_cells(const std::optional<Measurement::InLoop>& in_loop) {
  if (!in_loop || in_loop->times_us.empty())
    return fmt::format("  {:>7}  {:>7}  {:>7}  {:>7}", "N/A", "N/A", "N/A", "N/A");
  const std::vector<double>& t = in_loop->times_us;
  const std::size_t skip = std::min(t.size(), static_cast<std::size_t>(std::max(0, in_loop->skipped)));
  const InLoopStats s = in_loop_stats(std::vector<double>(t.begin() + static_cast<std::ptrdiff_t>(skip), t.end()));
  return fmt::format("  {}  {}  {}  {}", nccl_tests_number(s.min, 7), nccl_tests_number(s.max, 7),
                     nccl_tests_number(s.p99, 7), nccl_tests_number(s.cv_pct, 7));
}

std::string nccl_tests_error(const EndInfo& e) {
  return e.status.starts_with("failed: ") ? e.status.substr(8) : std::string();
}

std::string nccl_tests_footer(const EndInfo& e, const std::string& collective) {
  // nccl-tests' "%g %s": a space before the (possibly empty) verdict.
  std::string out =
      fmt::format("# {:<20} : {} {}\n", "Out of bounds values", e.wrong_total, e.wrong_total == 0 ? "OK" : "FAILED");
  if (e.points == 0 || e.avg_busbw_gbps < 0) out += fmt::format("# {:<20} : N/A\n", "Avg bus bandwidth");
  else
    out += fmt::format("# {:<20} : {:g} {}\n", "Avg bus bandwidth", e.avg_busbw_gbps,
                       e.min_avg_busbw_gbps < 0                         ? ""
                       : e.avg_busbw_gbps >= 0.9 * e.min_avg_busbw_gbps ? "OK"
                                                                        : "FAILED");
  // nccl-tests then prints "#" and its writeErrors line: "# error: TEXT", or an empty line.
  out += fmt::format("#\n# Collective test concluded: {}\n#\n{}\n", nccl_tests_program(collective),
                     nccl_tests_error(e).empty() ? "" : "# error: " + nccl_tests_error(e));
  return out;
}

}  // namespace ccb
