#include "analysis/history/history_run.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <tuple>

#include "analysis/compare/expectation.hpp"
#include "common/sha256.hpp"
#include "common/errors.hpp"
#include "common/sizes.hpp"
#include "results/stats.hpp"

namespace ccb {

namespace {

// When a run happened: --time, else the record's, else the file's mtime.
void set_started_at(HistoryRun& run, const HistoryRunSource& source, const std::string& recorded) {
  if (!source.given_time.empty()) run.started_at = source.given_time, run.time_basis = "--time";
  else if (!recorded.empty()) run.started_at = recorded, run.time_basis = "record";
  else run.started_at = source.mtime, run.time_basis = "file mtime";
}

}  // namespace

bool operator<(const SeriesKey& a, const SeriesKey& b) {
  return std::tie(a.collective, a.dtype, a.op, a.path, a.memory, a.ranks, a.nodes, a.in_place, a.bytes, a.hosts,
                  a.gpu) <
         std::tie(b.collective, b.dtype, b.op, b.path, b.memory, b.ranks, b.nodes, b.in_place, b.bytes, b.hosts, b.gpu);
}

ResultSet imported_set(std::string_view text, const std::string& path, Format* format) {
  ResultSet set;
  set.label = path;
  set.files.push_back(path);
  const Format f = import_text(text, path, set, ImportOptions{});
  if (format) *format = f;
  return set;
}

std::string hosts_text(const std::set<std::string>& hosts) {
  std::string out;
  for (const std::string& h : hosts) out += (out.empty() ? "" : ",") + h;
  return out;
}

std::string series_place(const std::string& hosts, const HistoryRunSource& source) {
  if (!hosts.empty()) return hosts;
  if (!source.cluster.empty()) return "cluster:" + source.cluster;
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(source.path, ec);
  return "file:" + (ec ? source.path : abs.lexically_normal().string());
}

std::set<std::string> hosts_of(const std::string& joined) {
  std::set<std::string> out;
  if (is_unnamed_place(joined)) return out;
  std::size_t at = 0;
  for (std::size_t next; (next = joined.find(',', at)) != std::string::npos; at = next + 1)
    if (next > at) out.insert(joined.substr(at, next - at));
  if (at < joined.size()) out.insert(joined.substr(at));
  return out;
}

ImportedPoint imported_point(const SeriesKey& key, const StoredPoint& point) {
  ImportedPoint ip;
  ip.collective = key.collective;
  ip.dtype = key.dtype;
  ip.op = key.op;
  ip.path = key.path;
  ip.memory = key.memory;
  ip.ranks = key.ranks;
  ip.nodes = key.nodes;
  ip.in_place = key.in_place;
  ip.bytes = ip.requested_bytes = key.bytes;
  ip.time_us = point.time_us;
  ip.busbw_gbps = point.busbw_gbps;
  ip.algbw_gbps = point.algbw_gbps;
  ip.p50_us = point.p50_us;
  ip.p90_us = point.p90_us;
  ip.busbw_limit_gbps = point.busbw_limit_gbps;
  if (point.wrong) ip.wrong = point.wrong;
  ip.noise = point.noise.empty() ? 0 : 1;  // its run's flags, counted as one
  return ip;
}

std::optional<HistoryRun> history_run_of(std::string_view text, const HistoryRunSource& source, std::string* why) {
  if (is_replay_text(text)) {
    try {
      return replay_history_run(replay_of_text(source.label, text, source.path), text, source);
    } catch (const UsageError& e) {
      if (why) *why = e.what();
      return std::nullopt;
    }
  }
  Format f = Format::unknown;
  const ResultSet set = imported_set(text, source.path, &f);
  return history_run_of(set, f, text, source, why);
}

std::optional<HistoryRun> history_run_of(const ResultSet& set, Format f, std::string_view text,
                                         const HistoryRunSource& source, std::string* why) {
  if (set.points.empty()) {
    if (why)
      *why = f == Format::unknown ? "not a result format ccbench reads"
             : set.unread.empty() ? "no measured point"
                                  : "no measured point (" + set.unread.front() + ")";
    return std::nullopt;
  }
  if (const auto split =
          std::find_if(set.points.begin(), set.points.end(), [](const ImportedPoint& p) { return p.groups > 1; });
      split != set.points.end()) {
    if (why)
      *why = fmt::format("a --split run ({} groups side by side): not kept (its series would mix with single groups')",
                         split->groups);
    return std::nullopt;
  }
  HistoryRun run;
  run.sha256 = sha256_hex(text);
  if (f == Format::ccbench_jsonl && !set.run_identity.empty()) {
    run.run_key = sha256_hex("ccbench run\n" + set.run_identity);
    run.complete = set.ended;
  }
  run.source = source.path;
  run.format = std::string(format_name(f));
  run.noise = fmt::format("{}", fmt::join(set.noise, "; "));
  run.label = source.label;
  set_started_at(run, source, set.started_at);
  run.hosts = hosts_text(set.hosts);
  const auto env = [&](const char* k) {
    const auto it = set.environment.find(k);
    return it == set.environment.end() ? std::string() : it->second;
  };
  run.tool = env("tool");
  for (const auto& [k, v] : set.environment)
    if (k.starts_with("versions.") && !v.empty())
      run.versions += (run.versions.empty() ? "" : "; ") + k.substr(9) + " " + v;
  std::string gpu = env("hardware.gpu");
  if (gpu.empty()) {
    gpu = env("hardware.gpus_per_node");  // "8 x NVIDIA H200": the model after " x "
    const std::size_t x = gpu.find(" x ");
    gpu = x == std::string::npos ? "" : gpu.substr(x + 3);
  }
  // A text table prints GB/s to 2 decimals: its 0.00 is a bandwidth below
  // 0.005 GB/s, not a measured zero (kept, it would publish busbw 0 and ring
  // a dashboard's alarm on a healthy node): not recorded; the time is.
  const bool printed_rounded = f == Format::ccbench_table || f == Format::nccl_tests_text;
  const auto below_resolution = [&](double gbps) { return printed_rounded && gbps == 0; };
  run.values.reserve(set.points.size());
  const std::string place = series_place(run.hosts, source);
  // Each point's busbw limit, as compare and --prom derive it from the file.
  const PathFacts facts = path_facts(set, 0, 0);
  const std::string gpu_family = set_gpu_family(set);
  for (const ImportedPoint& p : set.points) {
    HistoryValue v;
    v.key = SeriesKey{.collective = p.collective.str(),
                      .dtype = p.dtype.str(),
                      .op = p.op.str(),
                      .path = p.path.str(),
                      .memory = p.memory.str(),
                      .ranks = p.ranks,
                      .nodes = p.nodes,
                      .in_place = p.in_place,
                      .bytes = p.bytes,
                      .hosts = place,
                      .gpu = p.memory == "device" ? gpu : ""};
    v.time_us = p.time_us;
    v.busbw_gbps = below_resolution(p.busbw_gbps) ? kNaN : p.busbw_gbps;
    v.algbw_gbps = below_resolution(p.algbw_gbps) ? kNaN : p.algbw_gbps;
    v.p50_us = p.p50_us;
    v.p90_us = p.p90_us;
    v.wrong = p.wrong.value_or(0);
    v.skew_us = p.straggler_skew_us;
    v.straggler_host = p.straggler_host;
    v.busbw_limit_gbps = point_ceiling(p, gpu_family, facts).gbps;
    if (!(v.busbw_limit_gbps > 0)) v.busbw_limit_gbps = kNaN;
    run.values.push_back(std::move(v));
  }
  return run;
}

HistoryRun replay_history_run(const ReplayRun& replay, std::string_view text, const HistoryRunSource& source) {
  HistoryRun run;
  run.sha256 = sha256_hex(text);
  run.source = source.path;
  run.format = "ccbench replay";
  run.noise = fmt::format("{}", fmt::join(replay.noise, "; "));
  if (!replay.started_at.empty()) {
    run.run_key = sha256_hex(
        fmt::format("ccbench replay\n{}\n{}\n{}", replay.started_at, replay.workload_file, hosts_text(replay.hosts)));
    run.complete = !replay.status.empty();
  }
  run.label = source.label;
  run.tool = "ccbench replay";
  set_started_at(run, source, replay.started_at);
  run.hosts = hosts_text(replay.hosts);
  std::string op = replay.parallelism;  // "tp 2, pp 2, dp 1, ep 1, zero 0" -> "tp2.pp2.dp1.ep1.zero0"
  op.erase(std::remove(op.begin(), op.end(), ' '), op.end());
  std::replace(op.begin(), op.end(), ',', '.');
  // The series is named by the workload file's stem (emu-3d), else its name.
  std::string workload = std::filesystem::path(replay.workload_file).stem().string();
  if (workload.empty()) workload = replay.workload;
  const auto add = [&](const std::string& what, auto get) {
    std::vector<double> v;
    for (const ReplayStep& s : replay.steps) v.push_back(get(s));
    std::sort(v.begin(), v.end());
    if (v.back() <= 0 && what != "") return;  // a dimension that exposed nothing
    HistoryValue h;
    h.key = SeriesKey{.collective = "step:" + workload + what,
                      .dtype = "-",
                      .op = op,
                      .path = "-",
                      .memory = "host",
                      .ranks = replay.ranks,
                      .nodes = replay.nodes,
                      .in_place = -1,
                      .bytes = 0,
                      .hosts = run.hosts,
                      .gpu = ""};
    h.time_us = quantile_sorted(v, 0.5) * 1e6, h.p50_us = h.time_us, h.p90_us = quantile_sorted(v, 0.9) * 1e6;
    h.busbw_gbps = h.algbw_gbps = kNaN;
    run.values.push_back(std::move(h));
  };
  add("", [](const ReplayStep& s) { return s.step_s; });
  add(":exposed", [](const ReplayStep& s) { return s.exposed_s; });
  for (std::size_t d = 0; d < kDims; ++d)
    add(fmt::format(":exposed.{}", setting_name(static_cast<Dim>(d))),
        [d](const ReplayStep& s) { return s.by_dim[d]; });
  return run;
}

std::string series_name(const SeriesKey& k) {
  if (is_step_series(k))  // a replayed step: no size, no dtype
    return fmt::format("{} {}, {} rank{}{}", k.collective, k.op, k.ranks, k.ranks == 1 ? "" : "s",
                       k.hosts.empty() ? "" : ", " + k.hosts);
  std::string s = fmt::format("{} {}", k.collective, format_size(static_cast<double>(k.bytes)));
  if (!k.dtype.empty() && k.dtype != "-") s += " " + k.dtype;
  if (!k.op.empty() && k.op != "-") s += " " + k.op;
  if (k.in_place == 1) s += " in-place";
  s += k.ranks > 0 ? fmt::format(", {} rank{}", k.ranks, k.ranks == 1 ? "" : "s") : ", ranks unknown";
  if (!k.path.empty() && k.path != "auto") s += " " + k.path;
  if (!k.memory.empty() && k.memory != "host") s += " " + k.memory;
  if (!k.gpu.empty()) s += " " + k.gpu;
  if (!k.hosts.empty()) s += ", " + k.hosts;
  return s;
}

std::string file_mtime_utc(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";
  std::tm tm{};
  gmtime_r(&st.st_mtime, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace ccb
