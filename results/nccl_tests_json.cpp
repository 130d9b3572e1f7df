#include "results/nccl_tests_json.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>

#include "results/output_file.hpp"
#include "results/stats.hpp"

namespace ccb {

namespace {

using nlohmann::json;
using ordered = nlohmann::ordered_json;

// nccl-tests writes its booleans as the strings "true" and "false".
std::string json_flag(bool v) { return v ? "true" : "false"; }

// "2026-12-07 03:04:05" in local time, as nccl-tests' TIME_STRING_FORMAT.
std::string local_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

// A time or bandwidth as nccl-tests writes it (%lf): a number, "nan" for NaN.
ordered json_number(double v) { return std::isnan(v) ? ordered("nan") : ordered(v); }

// -I 1: nccl-tests' writePerIterReport block of one placement.
ordered per_iter_block(const Measurement::InLoop& in) {
  const std::size_t skip = std::min(in.times_us.size(), static_cast<std::size_t>(std::max(0, in.skipped)));
  const InLoopStats s =
      in_loop_stats(std::vector<double>(in.times_us.begin() + static_cast<std::ptrdiff_t>(skip), in.times_us.end()));
  ordered b;
  b["skipped_iterations"] = in.skipped;
  b["min_us"] = s.min;
  b["max_us"] = s.max;
  b["avg_us"] = s.avg;
  b["p50_us"] = s.p50;
  b["p95_us"] = s.p95;
  b["p99_us"] = s.p99;
  b["stdev_us"] = s.stdev;
  b["cv_pct"] = s.cv_pct;
  b["times_us"] = in.times_us;
  if (!in.per_process_us.empty()) b["per_process_max_times_us"] = in.per_process_us;
  return b;
}

class NcclTestsJsonWriter final : public Writer {
 public:
  explicit NcclTestsJsonWriter(const std::string& path) : path_(path) {
    struct stat st {};
    regular_ = ::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode);
    // Checked now, as every output is: a path that cannot be written is a
    // usage error before the run (an empty document until the run begins).
    if (regular_) write_file_atomically("-J", path_, std::string("{}\n"));
  }
  std::string error() const override { return error_; }

  void begin(const RunInfo& r) override {
    doc_ = ordered::object();
    cputime_ = r.report_cputime;
    doc_["version"] = kNcclTestsJsonVersion;
    doc_["start_time"] = local_now();
    doc_["args"] = r.argv;
    ordered env = ordered::array();
    for (const auto& [k, v] : r.environment)
      env.push_back(k + "=" + v);  // filtered and redacted (not the whole environment)
    doc_["env"] = env;
    doc_["nccl_version"] = nccl_version_code(r.nccl);
    ordered config;
    config["nthreads"] = 1;
    config["ngpus"] = r.ranks_per_process;
    config["minimum_bytes"] = r.min_bytes;
    config["maximum_bytes"] = r.max_bytes;
    if (r.step_factor > 1) config["step_factor"] = r.step_factor;
    else config["step_bytes"] = r.step_bytes;
    config["warmup_iters"] = r.warmup;
    config["iterations"] = r.iterations;
    config["aggregated_iterations"] = 1;
    config["validation"] = r.check_iterations;
    config["graph"] = r.cuda_graph;
    config["blocking_collectives"] = json_flag(r.blocking_requested != 0);
    config["per_iter_timing"] = json_flag(r.per_iter_timing);
    config["per_iter_skip"] = r.per_iter_skip;
    config["parallel_init"] = json_flag(false);
    ordered devices = ordered::array();
    // nccl-tests parses each process's first "#  Rank" line into its entry.
    int last_pid = -1;
    std::string last_host;
    for (const DeviceLine& d : device_lines(r)) {
      if (d.pid == last_pid && d.host == last_host) continue;
      last_pid = static_cast<int>(d.pid), last_host = d.host;
      devices.push_back({{"rank", d.rank},
                         {"group", d.group},
                         {"pid", d.pid},
                         {"hostname", d.host},
                         {"device", d.device},
                         {"device_hex", d.device_hex},
                         {"device_info", d.device_info}});
    }
    config["devices"] = devices;
    doc_["config"] = config;
    doc_["results"] = ordered::array();
    flush(false);
  }

  void point(const PointRecord& p) override {
    ordered row;
    row["size"] = p.bytes;
    row["count"] = p.count;
    row["type"] = p.dtype;
    row["redop"] = p.op.empty() ? "none" : p.op;
    row["root"] = fmt::format("{:6}", p.root);
    for (const auto& [key, m] : {std::pair{"out_of_place", &p.out_of_place}, std::pair{"in_place", &p.in_place}}) {
      if (!m->measured) {
        row[key] = nullptr;
        continue;
      }
      row[key] = {
          {cputime_ ? "cpu_time" : "time", json_number(cputime_ && m->cputime_us ? *m->cputime_us : m->time_us)},
          {"alg_bw", json_number(m->algbw_gbps)},
          {"bus_bw", json_number(p.busbw_meaningful ? m->busbw_gbps : NAN)},
          {"nwrong", m->wrong ? ordered(static_cast<double>(*m->wrong)) : ordered(nullptr)}};
      if (m->in_loop) row[std::string(key) + "_per_iter"] = per_iter_block(*m->in_loop);
    }
    row["actual_iterations"] = p.iterations;
    row["experiment_name"] = "";
    doc_["results"].push_back(std::move(row));
    if (regular_) flush(false);  // a run cut short leaves a whole document with the points so far
  }

  void end(const EndInfo& e) override {
    doc_["out_of_bounds"] = {{"count", e.wrong_total}, {"okay", json_flag(e.wrong_total == 0)}};
    doc_["average_bus_bandwidth"] = {
        {"bandwidth", e.avg_busbw_gbps < 0 ? ordered("nan") : ordered(e.avg_busbw_gbps)},
        {"okay", e.min_avg_busbw_gbps < 0 ? ordered("unchecked")
                                          : ordered(json_flag(e.avg_busbw_gbps >= 0.9 * e.min_avg_busbw_gbps))}};
    // nccl-tests' writeErrors: NCCL's last error, "" when none (here: the run's failure).
    doc_["errors"] = ordered::array({nccl_tests_error(e)});
    doc_["end_time"] = local_now();
    flush(true);
  }

 private:
  void flush(bool last) {
    if (!error_.empty() || (!regular_ && !last)) return;  // a FIFO or a terminal takes the document once
    try {
      write_file_atomically("-J", path_, doc_.dump(-1, ' ', false, json::error_handler_t::replace) + "\n");
    } catch (const std::exception& x) {
      if (error_.empty()) error_ = x.what();
    }
  }
  std::string path_, error_;
  bool regular_ = true;
  bool cputime_ = false;  // -C 1: "cpu_time" for "time", as nccl-tests
  ordered doc_;
};

}  // namespace

bool is_nccl_tests_json_path(std::string_view path) {
  if (path.size() < 5) return false;
  std::string tail(path.substr(path.size() - 5));
  for (char& c : tail) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return tail == ".json";
}

std::unique_ptr<Writer> make_nccl_tests_json_writer(const std::string& path) {
  return std::make_unique<NcclTestsJsonWriter>(path);
}

}  // namespace ccb
