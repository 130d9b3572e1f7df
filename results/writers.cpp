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

std::string format_time_us(double us) {
  if (us >= 10000.0) return fmt::format("{:7.0f}", us);
  if (us >= 100.0) return fmt::format("{:7.1f}", us);
  if (us > 0 && us < 0.005) return fmt::format("{:7.2g}", us);  // never a measured 0.00
  return fmt::format("{:7.2f}", us);
}

std::string format_gbps_column(double gbps) {
  if (gbps > 0 && gbps < 0.005) return fmt::format("{:6.2g}", gbps);  // 0.0042, 4.2e-05: never a measured 0.00
  return fmt::format("{:6.2f}", gbps);
}

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

// `text` after `lead` as comment lines within 160 columns, broken at spaces,
// continued under "#    ".
std::string comment_lines(std::string_view lead, std::string_view text) {
  constexpr std::size_t kWidth = 160;
  constexpr std::string_view kContinued = "#    ";
  std::string out(lead);
  std::size_t col = lead.size();
  bool fresh = true;  // at the start of a line: no space before the word
  while (!text.empty()) {
    const std::size_t space = text.find(' ');
    const std::string_view word = text.substr(0, space);
    if (!fresh && col + 1 + word.size() > kWidth) {
      out += "\n";
      out += kContinued;
      col = kContinued.size();
      fresh = true;
    }
    if (!fresh) out += ' ', ++col;
    out += word;
    col += word.size();
    fresh = false;
    text = space == std::string_view::npos ? std::string_view{} : text.substr(space + 1);
  }
  return out + "\n";
}

std::string devices_text(const std::vector<int>& devices) {
  if (devices.empty()) return "";
  std::string s = " gpu";
  for (int d : devices) s += fmt::format(" {}", d);
  return s;
}

std::string numa_text(const std::vector<int>& numa) {
  std::string s;
  for (int n : numa) s += fmt::format("{}{}", s.empty() ? " numa " : ",", n);
  return s;
}

// --stragglers, under a row: who arrived last and how late, or that none is named.
std::string straggler_text(const Stragglers& s) {
  const auto us = [](double v) {  // 3 significant figures in a unit that needs no exponent
    const double a = std::fabs(v);
    return a >= 1e6   ? fmt::format("{:.3g} s", v / 1e6)
           : a >= 1e3 ? fmt::format("{:.3g} ms", v / 1e3)
                      : fmt::format("{:.3g} us", v);
  };
  const std::string skew = s.skew_us.ci95_lo
                               ? fmt::format("skew (last vs the median of the others) {}, 95% CI {} to {}",
                                             us(s.skew_us.p50), us(*s.skew_us.ci95_lo), us(*s.skew_us.ci95_hi))
                               : fmt::format("skew (last vs the median of the others) {}", us(s.skew_us.p50));
  const std::string who = fmt::format("rank {}{}", s.last_rank, s.host.empty() ? "" : " (" + s.host + ")");
  const double late = s.lateness_us[static_cast<std::size_t>(s.last_rank)];
  return fmt::format("{} {}: last in {} of {} iterations (chance {:.3g}%), {} after the median of the others; {}{}",
                     s.named ? "straggler" : "no straggler named; most often last:", who, s.last_count, s.iterations,
                     100.0 / static_cast<double>(s.last_counts.size()), us(late), skew,
                     s.named && !s.noise.empty() ? "; noise may explain it: " + s.noise : "");
}

class TableWriter final : public Writer, private TextSink {
 public:
  TableWriter(std::FILE* out, bool stats) : TextSink(out), stats_(stats) {}
  std::string error() const override { return write_error(); }

  void begin(const RunInfo& r) override {
    std::string dtypes, ops;
    for (const auto& d : r.dtypes) dtypes += (dtypes.empty() ? "" : ",") + d;
    for (const auto& o : r.ops) ops += (ops.empty() ? "" : ",") + o;
    emit("# ccbench {} ({}): {} backend {} memory {}{}\n", r.ccbench_version, r.git_revision, r.collective, r.backend,
         r.memory_kind, r.mpi_calls == "nonblocking" ? " calls nonblocking" : "");
    if (!r.backend_reason.empty() && r.backend_reason != "--backend given")
      emit("{}", comment_lines("#  backend: ", r.backend_reason));
    emit("#  ranks {} nodes {}{} iters {} warmup iters {} ({}) check {} timing {} agg {} window {}\n", r.ranks, r.nodes,
         r.split.empty() ? "" : fmt::format(" groups {}", r.groups), r.iterations, r.warmup, r.warmup_order,
         r.check_iterations, r.timing_modes, r.aggregation, r.window);
    if (!r.split.empty())
      emit(
          "#  split {}: {} group{} of {} ranks side by side; each row is one group's size and bandwidth, its time "
          "over every rank of every group (agg)\n",
          r.split, r.groups, r.groups == 1 ? "" : "s", r.ranks);
    if (!r.traffic.empty())
      emit(
          "#  traffic {} ({}): size = {}; algbw = the busiest rank's bytes (the larger of\n#   what it sends and "
          "receives, its own share included) / time, as nccl-tests' alltoallv; each row's '# traffic' line names "
          "that rank\n",
          r.traffic, r.traffic_from,
          r.traffic.starts_with("moe:") ? "the bytes of a rank's tokens (tokens x hidden x the type's size)"
                                        : "the bytes a rank sends on average");
    if (!r.link_probe.slow_hosts.empty() || !r.link_probe.slow_links.empty()) link_finding_ = r.link_probe.text();
    if (r.link_probe_bytes > 0)
      emit("#  link probe ({} each way, one rank per host in a ring, median of {}): {}\n",
           format_size(r.link_probe_bytes), r.link_probe_repeats,
           r.link_probe.link_s.empty() ? fmt::format("not run: {} host{} (it needs {})", r.link_probe.hosts.size(),
                                                     r.link_probe.hosts.size() == 1 ? "" : "s", kLinkProbeHosts)
                                       : r.link_probe.text());
    emit("{}", comment_lines("#  clock: ", r.clock));
    emit("#  path requested {} observed {}\n", r.path_requested, r.path_observed);
    if (!r.path_tcp_interfaces.empty() && (r.path_requested == "tcp" || r.path_observed == "tcp"))
      emit("#  tcp interfaces: {}{}\n", r.path_tcp_interfaces,
           r.tcp_unpinned ? " (pin with --tcp-if: one that comes and goes can fail or hang the run)" : "");
    if (r.path_observed == "per point")
      emit(
          "#  (NCCL's transports per point: with --nccl-algorithms those of the algorithms its tuning log shows the "
          "point's\n"
          "#   operations chose, else every connection its INFO log shows set up by the end of the point; a '# path' "
          "line\n"
          "#   follows a change)\n");
    if (r.path_requested != "auto" && r.path_observed != r.path_requested && r.path_observed != "unverified" &&
        r.path_observed != "per point")
      emit("#  WARNING: path {} was requested but {} was observed\n", r.path_requested, r.path_observed);
    emit("#  sizes in bytes (K/M/G on the command line are binary); time in us; bandwidth in GB/s (1e9 B/s)\n");
    emit("#\n# Using devices\n");
    for (const auto& p : r.placement)
      emit("#  Rank {:2} Pid {:6} on {:>10} cpu {:3} bound {}{}{}{}\n", p.rank, p.pid, p.host, p.cpu,
           p.bound_cpus.empty() ? "-" : p.bound_cpus, numa_text(p.cpu_numa), devices_text(p.devices),
           p.nic.empty() ? ""
                         : fmt::format(" nic {}{}", p.nic, p.nic_distance.empty() ? "" : " (" + p.nic_distance + ")"));
    for (const auto& p : r.placement)
      for (const auto& w : p.warnings) emit("#  WARNING: rank {} ({}): {}\n", p.rank, p.host, w);
    for (const auto& d : r.node_differences) emit("#  WARNING: nodes differ: {}\n", d);
    for (const auto& n : r.noise) emit("#  WARNING: noise: {}\n", n);
    emit("#\n");
    std::string extra_h1, extra_h2, extra_h3;
    if (stats_) {
      extra_h1 = "  per-iteration (us): out-of-place                in-place";
      extra_h2 = "      p50      p99  ci95-lo  ci95-hi      p50      p99  ci95-lo  ci95-hi";
      extra_h3 = "     (us)     (us)     (us)     (us)     (us)     (us)     (us)     (us)";
    }
    emit("# {:>72}{:>32}{}\n", "out-of-place", "in-place", extra_h1);
    emit("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}{}\n", "size",
         "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong",
         stats_ ? "  " + extra_h2 : "");
    emit("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}{}\n", "(B)",
         "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "",
         stats_ ? "  " + extra_h3 : "");
    flush();
  }

  void point(const PointRecord& p) override {
    for (const Measurement* pl : {&p.out_of_place, &p.in_place})
      if (pl->bitwise) {
        ++bitwise_placements_;
        bitwise_repeats_ = pl->bitwise->repeats;
        bitwise_across_ = bitwise_across_ || pl->bitwise->across_ranks;
        if (pl->bitwise->differing > 0 || !pl->bitwise->first.empty()) ++bitwise_differing_;
      }
    std::string line = fmt::format("{:>12}  {:>12}  {:>8}  {:>6}  {:>6}", p.bytes, p.count, p.dtype,
                                   p.op.empty() ? "none" : p.op, p.root);
    for (const Measurement* pl : {&p.out_of_place, &p.in_place}) {
      if (!pl->measured) {
        line += fmt::format("  {:>7}  {:>6}  {:>6}  {:>6}", "N/A", "N/A", "N/A", "N/A");
        continue;
      }
      line += fmt::format("  {}  {}  {:>6}  {:>6}", format_time_us(pl->time_us), format_gbps_column(pl->algbw_gbps),
                          p.busbw_meaningful ? format_gbps_column(pl->busbw_gbps) : "N/A",
                          pl->wrong ? fmt::format("{}", *pl->wrong) : "N/A");
    }
    if (stats_) {
      for (const Measurement* pl : {&p.out_of_place, &p.in_place}) {
        if (!pl->per_iteration_us) {
          line += fmt::format("  {:>7}  {:>7}  {:>7}  {:>7}", "N/A", "N/A", "N/A", "N/A");
          continue;
        }
        const Summary& s = *pl->per_iteration_us;
        const auto opt = [](const std::optional<double>& v) { return v ? format_time_us(*v) : std::string("    N/A"); };
        line += fmt::format("  {}  {}  {}  {}", format_time_us(s.p50), format_time_us(s.p99), opt(s.ci95_lo),
                            opt(s.ci95_hi));
      }
    }
    emit("{}\n", line);
    // Comment lines (parsers of nccl-tests output skip them): what was not
    // measured or checked, and the observed transports when they change.
    if (p.traffic) {
      const TrafficPoint& t = *p.traffic;
      const double mean = static_cast<double>(t.sent_mean);
      emit(
          "# traffic: {}busiest rank {} ({}) moves {} ({:.3g}x the mean a rank sends, {}); ranks send {} to {}, "
          "receive {} to {}\n",
          t.tokens > 0 ? fmt::format("{} tokens per rank; ", t.tokens) : "", t.busiest_rank, t.busiest_host,
          format_size(t.busiest_bytes), mean > 0 ? static_cast<double>(t.busiest_bytes) / mean : 0.0,
          format_size(t.sent_mean), format_size(t.sent_min), format_size(t.sent_max), format_size(t.received_min),
          format_size(t.received_max));
      if (t.split_known && p.out_of_place.time_us > 0) {
        const double us = p.out_of_place.time_us;
        emit(
            "# traffic: of the busiest rank's {}: {} inside its host ({:.3g} GB/s, scale-up), {} across hosts "
            "({:.3g} GB/s, scale-out), at the out-of-place time\n",
            format_size(t.busiest_bytes), format_size(t.busiest_scale_up),
            static_cast<double>(t.busiest_scale_up) / us * 1e-3, format_size(t.busiest_scale_out),
            static_cast<double>(t.busiest_scale_out) / us * 1e-3);
      }
    }
    if (!p.out_of_place.note.empty()) emit("#  out-of-place {}\n", p.out_of_place.note);
    if (!p.in_place.note.empty()) emit("#  in-place {}\n", p.in_place.note);
    for (const Measurement* pl : {&p.out_of_place, &p.in_place})
      if (pl->stragglers)
        emit("#  ^ {}: {}\n", pl == &p.out_of_place ? "out-of-place" : "in-place", straggler_text(*pl->stragglers));
    for (const Measurement* pl : {&p.out_of_place, &p.in_place})
      if (!pl->noise.empty())
        emit("#  ^ noise ({}): {}\n", pl == &p.out_of_place ? "out-of-place" : "in-place", fmt::join(pl->noise, "; "));
    if (p.path_classes) {
      std::string now = p.transports_per_point ? "used by this point" : "set up so far";
      if (!p.algorithms.empty()) now += fmt::format("; NCCL chose {}", fmt::join(p.algorithms, ", "));
      else if (p.transports_per_point) now += "; no algorithm logged: point-to-point";
      now += p.transports.empty() ? std::string("): no connection reported")
                                  : fmt::format("): {}", fmt::join(p.transports, ", "));
      if (now != last_transports_ || p.path_warning != last_warning_)
        emit("# path observed ({}{}\n", now,
             p.path_warning.empty() ? std::string() : fmt::format(" -- WARNING: {}", p.path_warning));
      last_transports_ = now;
      last_warning_ = p.path_warning;
    }
    flush();
  }

  void end(const EndInfo& e) override {
    emit("# Out of bounds values : {} {}\n", e.wrong_total, e.wrong_total == 0 ? "OK" : "FAILED");
    if (e.points == 0 || e.avg_busbw_gbps < 0) emit("# Avg bus bandwidth    : N/A\n");
    else
      emit("# Avg bus bandwidth    : {:.6g}{}\n", e.avg_busbw_gbps,
           e.min_avg_busbw_gbps < 0                         ? ""
           : e.avg_busbw_gbps >= 0.9 * e.min_avg_busbw_gbps ? " OK"
                                                            : " FAILED");
    for (const auto& n : e.noise) emit("# Noise: {}\n", n);
    if (e.noisy_measurements > 0)
      emit("# Noise: {} of {} measurements flagged (the '^ noise' lines)\n", e.noisy_measurements, e.measurements);
    if (e.straggler_checked > 0 && e.stragglers.empty())
      emit("# Stragglers: no rank arrived late beyond chance in {} placements (the '^' lines){}\n", e.straggler_checked,
           link_finding_.empty()
               ? ""
               : "; but the link probe found " + link_finding_ +
                     ": a slow link delays every rank alike, so no rank stands out (docs/stragglers.md)");
    else if (!link_finding_.empty()) emit("# Slow links: the link probe found {}\n", link_finding_);
    if (bitwise_placements_ > 0)
      emit("# Bitwise (--bitwise): {}\n",
           bitwise_differing_ == 0
               ? fmt::format("{} placement{}, each repeated {} times: every bit the same{}", bitwise_placements_,
                             bitwise_placements_ == 1 ? "" : "s", bitwise_repeats_,
                             bitwise_across_ ? ", and across the ranks that hold the result" : "")
               : fmt::format("{} of {} placements differed (the 'bitwise:' notes above)", bitwise_differing_,
                             bitwise_placements_));
    for (const auto& s : e.stragglers)
      emit("# Straggler: {} of {} placements (the '^' lines)\n", s, e.straggler_checked);
    emit("#\n");
    flush();
  }

 private:
  std::string last_transports_, last_warning_;
  std::string link_finding_;  // the link probe's slow hosts and links ("" none): the footer says them too
  std::size_t bitwise_placements_ = 0, bitwise_differing_ = 0;
  int bitwise_repeats_ = 0;
  bool bitwise_across_ = false;
  bool stats_;
};

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
        "rank_mean_min_us,rank_mean_avg_us,rank_mean_max_us,groups\n");
  }
  void point(const PointRecord& p) override {
    std::string rows;
    for (const auto& [label, pl] : {std::pair{"out_of_place", &p.out_of_place}, std::pair{"in_place", &p.in_place}}) {
      if (!pl->measured) continue;
      const auto num = [](const std::optional<double>& v) { return v ? fmt::format("{}", *v) : std::string(); };
      const Summary* s = pl->per_iteration_us ? &*pl->per_iteration_us : nullptr;
      const std::optional<RankMeans>& rm = pl->rank_means;
      const auto means = [&rm](double RankMeans::*f) { return rm ? fmt::format("{}", (*rm).*f) : std::string(); };
      rows += fmt::format(
          "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
          csv_field(p.collective), csv_field(run_.backend), csv_field(run_.path_requested),
          csv_field(run_.path_observed), csv_field(run_.memory_kind), csv_field(p.dtype), csv_field(p.op),
          p.root < 0 ? "" : std::to_string(p.root), p.ranks, p.nodes, label, p.bytes, p.count, p.iterations,
          pl->time_us, csv_field(pl->time_source), pl->algbw_gbps,
          p.busbw_meaningful ? fmt::format("{}", pl->busbw_gbps) : "", num(pl->pipelined_us), s ? num(s->p50) : "",
          s ? num(s->p90) : "", s ? num(s->p99) : "", s ? num(s->min) : "", s ? num(s->max) : "", s ? num(s->mean) : "",
          s ? num(s->stddev) : "", s ? num(s->ci95_lo) : "", s ? num(s->ci95_hi) : "",
          pl->wrong ? std::to_string(*pl->wrong) : "", means(&RankMeans::min_us), means(&RankMeans::avg_us),
          means(&RankMeans::max_us), p.groups);
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

std::unique_ptr<Writer> make_table_writer(std::FILE* out, bool stats) {
  return std::make_unique<TableWriter>(out, stats);
}
std::unique_ptr<Writer> make_jsonl_writer(const std::string& path, bool append) {
  return std::make_unique<JsonlWriter>(path, append);
}
std::unique_ptr<Writer> make_csv_writer(const std::string& path) { return std::make_unique<CsvWriter>(path); }

}  // namespace ccb
