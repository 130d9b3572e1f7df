#include "results/writers.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include "common/sizes.hpp"
#include "results/output_file.hpp"
#include "results/json_records.hpp"

namespace ccb {

std::string nccl_tests_number(double v, int width) {
  const auto w = static_cast<std::size_t>(width);
  // A measured value above 0 that %.2f would print as 0.00: two significant
  // figures that fit the column (0.0042, else 6.9e-4 with the exponent's
  // sign and zeros dropped, else one figure).
  if (v > 0 && v < 0.005) {
    std::string t = fmt::format("{:.2g}", v);
    for (const int decimals : {1, 0}) {
      if (t.size() <= w) break;
      t = fmt::format("{:.{}e}", v, decimals);  // 6.9e-04
      const std::size_t e = t.find('e');
      std::string exponent = t.substr(e + 2);
      exponent.erase(0, std::min(exponent.find_first_not_of('0'), exponent.size() - 1));
      t = t.substr(0, e + 1) + (t[e + 1] == '-' ? "-" : "") + exponent;
    }
    return fmt::format("{:>{}}", t, width);
  }
  for (const int decimals : {2, 1, 0})
    if (std::string t = fmt::format("{:{}.{}f}", v, width, decimals); t.size() <= w) return t;
  return fmt::format("{:{}.{}e}", v, width, width >= 7 ? 1 : 0);
}

std::string format_time_us(double us) { return nccl_tests_number(us, 7); }
std::string format_gbps_column(double gbps) { return nccl_tests_number(gbps, 6); }

void TextSink::flush() {
  if (error_.empty()) {
    errno = 0;
    if (std::fwrite(buf_.data(), 1, buf_.size(), out_) != buf_.size() || std::fflush(out_) != 0) {
      error_ = fmt::format("{}: {}", out_ == stdout ? "stdout" : "table output", std::strerror(errno ? errno : EIO));
      std::clearerr(out_);
    }
  }
  buf_.clear();
}

namespace {

class JsonlWriter final : public Writer {
 public:
  JsonlWriter(const std::string& path, bool append) : file_("-J/--json", path, append) {}
  std::string error() const override { return file_.error(); }
  void begin(const RunInfo& r) override { write(run_to_json(r)); }
  void point(const PointRecord& p) override { write(point_to_json(p)); }
  void end(const EndInfo& e) override { write(end_to_json(e)); }

 private:
  void write(const nlohmann::json& j) {
    file_.write(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  }
  OutputFile file_;
};

class CsvWriter final : public Writer {
 public:
  explicit CsvWriter(const std::string& path) : file_("--csv", path) {}
  std::string error() const override { return file_.error(); }
  void begin(const RunInfo& r) override {
    run_ = r;
    file_.write(
        "collective,backend,path_requested,path_observed,memory_kind,dtype,op,root,ranks,nodes,"
        "placement,bytes,count,iterations,time_us,time_source,algbw_gbps,busbw_gbps,pipelined_us,"
        "p50_us,p90_us,p99_us,min_us,max_us,mean_us,stddev_us,ci95_lo_us,ci95_hi_us,wrong,"
        "rank_mean_min_us,rank_mean_avg_us,rank_mean_max_us,groups,busbw_limit_gbps,busbw_share_of_limit\n");
  }
  void point(const PointRecord& p) override {
    std::string rows;
    for (const auto& [label, pl] : {std::pair{"out_of_place", &p.out_of_place}, std::pair{"in_place", &p.in_place}}) {
      if (!pl->measured) continue;
      const auto num = [](const std::optional<double>& v) { return v ? fmt::format("{}", *v) : std::string(); };
      const Summary* s = pl->per_iteration_us ? &*pl->per_iteration_us : nullptr;
      const std::optional<RankMeans>& rm = pl->rank_means;
      const auto finite = [](double v) { return std::isfinite(v) ? fmt::format("{}", v) : std::string(); };
      const std::string limit = p.busbw_meaningful ? finite(p.busbw_limit_gbps) : "";
      const auto means = [&rm](double RankMeans::*f) { return rm ? fmt::format("{}", (*rm).*f) : std::string(); };
      rows += fmt::format(
          "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
          csv_field(p.collective), csv_field(run_.backend), csv_field(run_.path_requested),
          csv_field(run_.path_observed), csv_field(run_.memory_kind), csv_field(p.dtype), csv_field(p.op),
          p.root < 0 ? "" : std::to_string(p.root), p.ranks, p.nodes, label, p.bytes, p.count, p.iterations,
          pl->time_us, csv_field(pl->time_source), pl->algbw_gbps,
          p.busbw_meaningful ? fmt::format("{}", pl->busbw_gbps) : "", num(pl->pipelined_us), s ? num(s->p50) : "",
          s ? num(s->p90) : "", s ? num(s->p99) : "", s ? num(s->min) : "", s ? num(s->max) : "", s ? num(s->mean) : "",
          s ? num(s->stddev) : "", s ? num(s->ci95_lo) : "", s ? num(s->ci95_hi) : "",
          pl->wrong ? std::to_string(*pl->wrong) : "", means(&RankMeans::min_us), means(&RankMeans::avg_us),
          means(&RankMeans::max_us), p.groups, limit,
          p.busbw_meaningful ? finite(share_of_limit(pl->busbw_gbps, p.busbw_limit_gbps)) : "");
    }
    file_.write(rows);  // a point's rows are one record: all or none
  }
  void end(const EndInfo&) override {}

 private:
  OutputFile file_;
  RunInfo run_;
};

}  // namespace

std::string csv_field(const std::string& v) {
  if (v.find_first_of(",\"\r\n") == std::string::npos) return v;
  std::string out = "\"";
  for (char c : v) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::unique_ptr<Writer> make_jsonl_writer(const std::string& path, bool append) {
  return std::make_unique<JsonlWriter>(path, append);
}
std::unique_ptr<Writer> make_csv_writer(const std::string& path) { return std::make_unique<CsvWriter>(path); }

}  // namespace ccb
