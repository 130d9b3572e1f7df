// nccl-tests' stdout table (results/nccl_tests_layout.hpp) with ccbench's
// own lines where nccl-tests' parsers do not look: its run description after
// the rank lines, each row's notes after the footer (docs/running.md "The
// table"). The data rows stay unbroken.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "common/sizes.hpp"
#include "results/nccl_tests_layout.hpp"
#include "results/writers.hpp"

namespace ccb {

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
    collective_ = r.collective;
    emit("{}", nccl_tests_header(r));  // nccl-tests' lines first, as its scrapers expect them
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
          "receives, its own share included) / time, as nccl-tests' alltoallv; each row's 'traffic:' note names "
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
    for (const auto& p : r.placement)
      emit("#  binding of rank {:2} ({}): cpu {} bound {}{}{}{}\n", p.rank, p.host, p.cpu,
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
      extra_h1 = "per-iteration (us): out-of-place                in-place";
      extra_h2 = "      p50      p99  ci95-lo  ci95-hi      p50      p99  ci95-lo  ci95-hi";
      extra_h3 = "     (us)     (us)     (us)     (us)     (us)     (us)     (us)     (us)";
    }
    emit("{}", nccl_tests_column_header(r, {extra_h1, extra_h2, extra_h3}));
    in_loop_ = r.per_iter_timing;
    cputime_ = r.report_cputime;
    timestamps_ = r.report_timestamps;
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
        if (in_loop_) line += nccl_tests_in_loop_cells(std::nullopt);
        continue;
      }
      const double time_us = cputime_ && pl->cputime_us ? *pl->cputime_us : pl->time_us;
      line += fmt::format("  {}  {}  {:>6}  {:>6}", format_time_us(time_us), format_gbps_column(pl->algbw_gbps),
                          p.busbw_meaningful ? format_gbps_column(pl->busbw_gbps) : "N/A",
                          pl->wrong ? fmt::format("{}", *pl->wrong) : "N/A");
      if (in_loop_) line += nccl_tests_in_loop_cells(pl->in_loop);
    }
    if (timestamps_) line += nccl_tests_timestamp();
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
    flush();
    // The row's notes, printed after the footer: what was not measured or
    // checked, traffic, stragglers, noise, and the observed transports when they change.
    const std::string row = fmt::format("#  {} B {}{}", p.bytes, p.dtype, p.op.empty() ? "" : " " + p.op);
    if (p.traffic) {
      const TrafficPoint& t = *p.traffic;
      const double mean = static_cast<double>(t.sent_mean);
      notes_ += fmt::format(
          "{} traffic: {}busiest rank {} ({}) moves {} ({:.3g}x the mean a rank sends, {}); ranks send {} to {}, "
          "receive {} to {}\n",
          row, t.tokens > 0 ? fmt::format("{} tokens per rank; ", t.tokens) : "", t.busiest_rank, t.busiest_host,
          format_size(t.busiest_bytes), mean > 0 ? static_cast<double>(t.busiest_bytes) / mean : 0.0,
          format_size(t.sent_mean), format_size(t.sent_min), format_size(t.sent_max), format_size(t.received_min),
          format_size(t.received_max));
      if (t.split_known && p.out_of_place.time_us > 0) {
        const double us = p.out_of_place.time_us;
        notes_ += fmt::format(
            "{} traffic: of the busiest rank's {}: {} inside its host ({:.3g} GB/s, scale-up), {} across hosts "
            "({:.3g} GB/s, scale-out), at the out-of-place time\n",
            row, format_size(t.busiest_bytes), format_size(t.busiest_scale_up),
            static_cast<double>(t.busiest_scale_up) / us * 1e-3, format_size(t.busiest_scale_out),
            static_cast<double>(t.busiest_scale_out) / us * 1e-3);
      }
    }
    for (const Measurement* pl : {&p.out_of_place, &p.in_place}) {
      const char* where = pl == &p.out_of_place ? "out-of-place" : "in-place";
      if (!pl->note.empty()) notes_ += fmt::format("{} {} {}\n", row, where, pl->note);
      if (pl->stragglers) notes_ += fmt::format("{} {}: {}\n", row, where, straggler_text(*pl->stragglers));
      if (!pl->noise.empty()) notes_ += fmt::format("{} {} noise: {}\n", row, where, fmt::join(pl->noise, "; "));
    }
    if (p.path_classes) {
      std::string now = p.transports_per_point ? "used by this point" : "set up so far";
      if (!p.algorithms.empty()) now += fmt::format("; NCCL chose {}", fmt::join(p.algorithms, ", "));
      else if (p.transports_per_point) now += "; no algorithm logged: point-to-point";
      now += p.transports.empty() ? std::string("): no connection reported")
                                  : fmt::format("): {}", fmt::join(p.transports, ", "));
      if (now != last_transports_ || p.path_warning != last_warning_)
        notes_ += fmt::format("{} path observed ({}{}\n", row, now,
                              p.path_warning.empty() ? std::string() : fmt::format(" -- WARNING: {}", p.path_warning));
      last_transports_ = now;
      last_warning_ = p.path_warning;
    }
  }

  void end(const EndInfo& e) override {
    emit("{}", nccl_tests_footer(e, collective_));
    // ccbench's own lines, after nccl-tests' last.
    if (!notes_.empty()) emit("# ccbench notes per row (size, type, op):\n{}", notes_);
    for (const auto& n : e.noise) emit("# Noise: {}\n", n);
    if (e.noisy_measurements > 0)
      emit("# Noise: {} of {} measurements flagged (the 'noise:' notes)\n", e.noisy_measurements, e.measurements);
    if (e.straggler_checked > 0 && e.stragglers.empty())
      emit("# Stragglers: no rank arrived late beyond chance in {} placements (the notes per row){}\n",
           e.straggler_checked,
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
               : fmt::format("{} of {} placements differed (the 'bitwise:' notes per row)", bitwise_differing_,
                             bitwise_placements_));
    for (const auto& s : e.stragglers)
      emit("# Straggler: {} of {} placements (the notes per row)\n", s, e.straggler_checked);
    if (!e.expectations.empty())
      emit("# Is this number normal? Each series at its largest size (docs/expect.md):\n{}",
           expectations_text(e.expectations, e.expectations_network, "#"));
    flush();
  }

 private:
  std::string collective_;
  bool in_loop_ = false;     // -I 1: i_* columns after each placement
  bool cputime_ = false;     // -C 1: the time column is cputime
  bool timestamps_ = false;  // -S 1: each row ends with the time
  std::string notes_;        // each row's notes, printed after the footer
  std::string last_transports_, last_warning_;
  std::string link_finding_;  // the link probe's slow hosts and links ("" none): the footer says them too
  std::size_t bitwise_placements_ = 0, bitwise_differing_ = 0;
  int bitwise_repeats_ = 0;
  bool bitwise_across_ = false;
  bool stats_;
};

}  // namespace

std::unique_ptr<Writer> make_table_writer(std::FILE* out, bool stats) {
  return std::make_unique<TableWriter>(out, stats);
}

}  // namespace ccb
