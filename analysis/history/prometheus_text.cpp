#include "analysis/history/prometheus_text.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <string_view>

#include "common/errors.hpp"
#include "common/terminal_text.hpp"
#include "analysis/compare/expectation.hpp"
#include "analysis/history/history_run.hpp"
#include "results/quantities.hpp"

namespace ccb {

std::string prom_label_value(const std::string& v) {
  std::string out;
  for (char c : utf8_repaired(v)) {  // Prometheus drops a whole file with one label that is not UTF-8
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

double iso_utc_seconds(const std::string& iso) {
  // Canonical digits only ("2026-12-3T1:2:3Z" would sort wrong beside
  // stored times), each field in its calendar range (timegm would carry
  // month 13 day 45 into the next year).
  static constexpr std::string_view kShape = "dddd-dd-ddTdd:dd:dd";
  if (iso.size() < kShape.size() + 1) return NAN;
  for (std::size_t i = 0; i < kShape.size(); ++i)
    if (kShape[i] == 'd' ? !std::isdigit(static_cast<unsigned char>(iso[i])) : iso[i] != kShape[i]) return NAN;
  const auto field = [&](std::size_t at, std::size_t n) { return std::stoi(iso.substr(at, n)); };
  std::tm tm{};
  tm.tm_year = field(0, 4) - 1900;
  tm.tm_mon = field(5, 2) - 1;
  tm.tm_mday = field(8, 2);
  tm.tm_hour = field(11, 2);
  tm.tm_min = field(14, 2);
  tm.tm_sec = field(17, 2);
  double frac = 0;
  std::size_t at = kShape.size();
  if (iso[at] == '.') {
    std::size_t end = at + 1;
    while (end < iso.size() && std::isdigit(static_cast<unsigned char>(iso[end]))) ++end;
    if (end == at + 1) return NAN;
    frac = std::stod("0" + iso.substr(at, end - at));
    at = end;
  }
  if (at + 1 != iso.size() || iso[at] != 'Z') return NAN;
  const std::tm typed = tm;
  const time_t t = timegm(&tm);
  std::tm back{};
  if (!gmtime_r(&t, &back) || back.tm_year != typed.tm_year || back.tm_mon != typed.tm_mon ||
      back.tm_mday != typed.tm_mday || back.tm_hour != typed.tm_hour || back.tm_min != typed.tm_min ||
      back.tm_sec != typed.tm_sec)
    return NAN;
  return static_cast<double>(t) + frac;
}

bool is_iso_day_or_time(const std::string& text) {
  if (text.size() == 10) return std::isfinite(iso_utc_seconds(text + "T00:00:00Z"));
  return std::isfinite(iso_utc_seconds(text));
}

namespace {

// Where the run was: one host names it, two name their link; a run over more
// nodes is labelled by its node count (bounded cardinality).
std::string place_labels(const ResultSet& set, const std::string& unnamed_place) {
  if (set.hosts.empty() && !unnamed_place.empty()) return fmt::format(",place=\"{}\"", prom_label_value(unnamed_place));
  const std::string joined = hosts_text(set.hosts);
  if (set.hosts.size() == 1) return fmt::format(",host=\"{}\"", prom_label_value(joined));
  if (set.hosts.size() == 2) return fmt::format(",link=\"{}\"", prom_label_value(joined));
  return "";
}

struct Metric {
  const char* name;
  std::string help;
  std::map<std::string, double> samples;  // labels -> value (a repeated point: the last)
};

}  // namespace

std::string prometheus_text(const std::vector<PromRun>& runs) {
  // The measured quantities: names and HELP from their one definition.
  const auto quantity_metric = [](Quantity q) {
    const QuantityDef& d = quantity_def(q);
    return Metric{d.prometheus_name.data(), prometheus_help(q), {}};
  };
  Metric busbw = quantity_metric(Quantity::busbw), algbw = quantity_metric(Quantity::algbw),
         time = quantity_metric(Quantity::time), p50 = quantity_metric(Quantity::iteration_p50),
         p90 = quantity_metric(Quantity::iteration_p90);
  Metric wrong{"ccbench_wrong_elements", "Elements verification found wrong (0: the data was right)", {}};
  Metric started{"ccbench_run_timestamp_seconds", "When the run started, seconds since the epoch", {}};
  Metric limit{"ccbench_busbw_limit_bytes_per_second",
               "The physical limit of busbw on the point's path (docs/expect.md: the node's NICs, NVLink, NVLS or "
               "host memory's copy rate), bytes/s",
               {}};
  Metric share{"ccbench_busbw_share_of_limit",
               "busbw / the limit of its path (above 1: not the rate it seems, docs/expect.md)",
               {}};
  Metric noisy{"ccbench_noise_flagged",
               "1 when the run recorded noise that threatens its numbers (ranks outnumbering CPUs, a busy host, "
               "steal time): read its values with care; 0 when none",
               {}};
  for (const PromRun& run : runs) {
    const std::string place = place_labels(*run.set, run.unnamed_place);
    const PathFacts facts = path_facts(*run.set, 0, 0);
    const std::string gpu = set_gpu_family(*run.set);
    for (const ImportedPoint& p : run.set->points) {
      const std::string labels = fmt::format(
          "collective=\"{}\",dtype=\"{}\",op=\"{}\",path=\"{}\",memory=\"{}\",size_bytes=\"{}\",in_place=\"{}\","
          "ranks=\"{}\",nodes=\"{}\"{}",
          prom_label_value(p.collective.str()), prom_label_value(p.dtype.str()), prom_label_value(p.op.str()),
          prom_label_value(p.path.str()), prom_label_value(p.memory.str()), p.bytes,
          p.in_place < 0 ? "" : std::to_string(p.in_place), p.ranks, p.nodes, place);
      // Each quantity in its base unit, by its definition's scale.
      const auto put = [&](Metric& m, Quantity q, double v) {
        if (std::isfinite(v)) m.samples[labels] = v * quantity_def(q).prometheus_scale;
      };
      put(busbw, Quantity::busbw, p.busbw_gbps);
      put(algbw, Quantity::algbw, p.algbw_gbps);
      put(time, Quantity::time, p.time_us);
      put(p50, Quantity::iteration_p50, p.p50_us);
      put(p90, Quantity::iteration_p90, p.p90_us);
      // The limit stored with a history point, else derived from the file (the same derivation).
      const double lim = p.busbw_limit_gbps > 0 ? p.busbw_limit_gbps : point_ceiling(p, gpu, facts).gbps;
      if (lim > 0 && std::isfinite(p.busbw_gbps)) {
        put(limit, Quantity::busbw, lim);
        share.samples[labels] = share_of_limit(p.busbw_gbps, lim);
      }
      if (p.wrong) wrong.samples[labels] = static_cast<double>(*p.wrong);
      noisy.samples[labels] = p.noise > 0 || !run.set->noise.empty() ? 1 : 0;
      if (const double t = iso_utc_seconds(run.run_time); std::isfinite(t))
        started.samples[fmt::format("collective=\"{}\"{}", prom_label_value(p.collective.str()), place)] = t;
    }
  }
  std::string out;
  for (const Metric* m : {&busbw, &algbw, &time, &p50, &p90, &limit, &share, &wrong, &started, &noisy}) {
    if (m->samples.size() > kMaxPromSamples)
      throw UsageError(fmt::format("--prom: {} samples of {} (at most {} per file): write fewer sizes or split the run",
                                   m->samples.size(), m->name, kMaxPromSamples));
    if (m->samples.empty()) continue;
    out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", m->name, m->help, m->name);
    for (const auto& [labels, v] : m->samples) out += fmt::format("{}{{{}}} {:.10g}\n", m->name, labels, v);
  }
  return out;
}

}  // namespace ccb
