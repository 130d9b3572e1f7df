#include "analysis/accept/baseline.hpp"
#include "results/json_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "common/errors.hpp"
#include "results/json_integer.hpp"
#include "results/stats.hpp"
#include "results/yaml_fields.hpp"

namespace ccb {
namespace {

using Key = std::tuple<std::string, std::string, std::string, int, int, std::uint64_t>;

nlohmann::json metric_json(const BaselineMetric& m) {
  return {{"median", m.median}, {"values", m.values}, {"outliers", m.outliers}};
}

BaselineMetric metric_from(const nlohmann::json& j) {
  BaselineMetric m;
  m.median = j.at("median").get<double>();
  m.values = j.at("values").get<std::vector<double>>();
  m.outliers = json_integers<std::size_t>(j.at("outliers"));
  if (!std::isfinite(m.median) || m.median < 0) throw std::runtime_error("a median is not a finite value >= 0");
  return m;
}

}  // namespace

const BaselineEntry* Baseline::find(const std::string& collective, const std::string& dtype, const std::string& op,
                                    int ranks, int nodes, std::uint64_t bytes) const {
  for (const BaselineEntry& e : entries)
    if (e.collective == collective && e.dtype == dtype && e.op == op && e.ranks == ranks && e.nodes == nodes &&
        e.bytes == bytes)
      return &e;
  return nullptr;
}

bool operator<(const PastKey& a, const PastKey& b) {
  return std::tie(a.check, a.gate, a.ranks, a.nodes, a.hosts) < std::tie(b.check, b.gate, b.ranks, b.nodes, b.hosts);
}

GateBaselines load_gate_baselines(const AcceptSpec& spec) {
  GateBaselines loaded;
  for (const Check& c : spec.checks)
    for (const Gate& g : c.gates)
      if (!g.baseline.empty() && !loaded.files.count(g.baseline))
        loaded.files.emplace(g.baseline, load_baseline(g.baseline));
  return loaded;
}

namespace {

std::optional<double> history_median(const HistoryPast& past, const Check& c, const Gate& g, int ranks, int nodes,
                                     const std::string& hosts) {
  const std::size_t index = c.gate_index(g);
  const auto it = past.runs.find(PastKey{c.name, index, ranks, nodes, hosts});
  if (it == past.runs.end()) return std::nullopt;
  std::vector<double> last;  // newest first, finite values only
  for (auto r = it->second.rbegin(); r != it->second.rend() && last.size() < static_cast<std::size_t>(g.history_runs);
       ++r) {
    const double v = g.metric == Metric::busbw ? r->busbw_gbps : g.metric == Metric::algbw ? r->algbw_gbps : r->time_us;
    if (std::isfinite(v) && v > 0) last.push_back(v);
  }
  if (last.size() < static_cast<std::size_t>(kHistoryMinRuns)) return std::nullopt;
  return median_of(last);
}

}  // namespace

std::optional<double> baseline_median(const GateBaselines& loaded, const Check& c, const Gate& g, int ranks, int nodes,
                                      const std::string& hosts) {
  if (g.history) return history_median(loaded.history, c, g, ranks, nodes, hosts);
  const auto it = loaded.files.find(g.baseline);
  if (it == loaded.files.end()) return std::nullopt;
  const BaselineEntry* e = it->second.find(c.series(), c.io ? "-" : std::string(info(c.dtype).name),
                                           c.reduces() ? std::string(name(c.op)) : "-", ranks, nodes, g.at_bytes);
  if (!e) return std::nullopt;
  return g.metric == Metric::busbw   ? e->busbw_gbps.median
         : g.metric == Metric::algbw ? e->algbw_gbps.median
                                     : e->time_us.median;
}

BaselineMetric summarize_runs(std::vector<double> values) {
  BaselineMetric m;
  m.values = values;
  const double med = median_of(values);
  std::vector<double> dev;
  for (double v : values) dev.push_back(std::fabs(v - med));
  const double mad = median_of(dev);
  std::vector<double> kept;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double d = std::fabs(values[i] - med);
    if (values.size() >= 3 && d > kOutlierMads * 1.4826 * mad && d > kOutlierMinFraction * std::fabs(med))
      m.outliers.push_back(i);
    else kept.push_back(values[i]);
  }
  m.median = median_of(kept);
  return m;
}

Baseline build_baseline(const std::vector<ResultSet>& runs) {
  Baseline b;
  // key -> per run: the values of its points
  struct PerRun {
    std::vector<double> busbw, algbw, time;
  };
  std::map<Key, std::map<std::size_t, PerRun>> table;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    b.runs.push_back(runs[r].label);
    bool has_out_of_place = false;
    for (const ImportedPoint& p : runs[r].points) has_out_of_place = has_out_of_place || p.in_place == 0;
    for (const ImportedPoint& p : runs[r].points) {
      if (has_out_of_place && p.in_place == 1) continue;
      if (!std::isfinite(p.time_us) || p.time_us <= 0) continue;
      PerRun& pr = table[Key{p.collective.str(), p.dtype.str(), p.op.str(), p.ranks, p.nodes, p.bytes}][r];
      pr.busbw.push_back(p.busbw_gbps);
      pr.algbw.push_back(p.algbw_gbps);
      pr.time.push_back(p.time_us);
    }
  }
  for (const auto& [key, per_run] : table) {
    BaselineEntry e;
    std::tie(e.collective, e.dtype, e.op, e.ranks, e.nodes, e.bytes) = key;
    std::vector<double> busbw, algbw, time;
    for (const auto& [r, pr] : per_run) {
      e.runs.push_back(r);
      busbw.push_back(median_of(pr.busbw));
      algbw.push_back(median_of(pr.algbw));
      time.push_back(median_of(pr.time));
    }
    e.busbw_gbps = summarize_runs(busbw);
    e.algbw_gbps = summarize_runs(algbw);
    e.time_us = summarize_runs(time);
    b.entries.push_back(std::move(e));
  }
  return b;
}

std::string baseline_to_json(const Baseline& b) {
  nlohmann::json j;
  j["ccbench_baseline"] = 1;
  j["rule"] = kOutlierRule;
  j["runs"] = b.runs;
  j["entries"] = nlohmann::json::array();
  for (const BaselineEntry& e : b.entries)
    j["entries"].push_back({{"collective", e.collective},
                            {"dtype", e.dtype},
                            {"op", e.op},
                            {"ranks", e.ranks},
                            {"nodes", e.nodes},
                            {"bytes", e.bytes},
                            {"runs", e.runs},
                            {"busbw_gbps", metric_json(e.busbw_gbps)},
                            {"algbw_gbps", metric_json(e.algbw_gbps)},
                            {"time_us", metric_json(e.time_us)}});
  return json_text(j, 1) + "\n";
}

Baseline load_baseline(const std::string& path) {
  Baseline b;
  b.file = path;
  const std::string text = yamlf::read_text(path, 64L << 20);
  std::size_t entry = 0;
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    if (!j.is_object() || !j.contains("ccbench_baseline") || j["ccbench_baseline"] != 1)
      throw std::runtime_error("not a ccbench baseline (no \"ccbench_baseline\": 1; write one with ccbench baseline)");
    b.runs = j.at("runs").get<std::vector<std::string>>();
    for (const auto& e : j.at("entries")) {
      ++entry;
      BaselineEntry x;
      x.collective = e.at("collective").get<std::string>();
      x.dtype = e.at("dtype").get<std::string>();
      x.op = e.at("op").get<std::string>();
      x.ranks = json_integer<int>(e.at("ranks"));
      x.nodes = json_integer<int>(e.at("nodes"));
      x.bytes = json_integer<std::uint64_t>(e.at("bytes"));
      x.runs = json_integers<std::size_t>(e.at("runs"));
      x.busbw_gbps = metric_from(e.at("busbw_gbps"));
      x.algbw_gbps = metric_from(e.at("algbw_gbps"));
      x.time_us = metric_from(e.at("time_us"));
      for (std::size_t r : x.runs)
        if (r >= b.runs.size()) throw std::runtime_error(fmt::format("runs names run {} of {}", r, b.runs.size()));
      for (const BaselineMetric* m : {&x.busbw_gbps, &x.algbw_gbps, &x.time_us})
        for (std::size_t i : m->outliers)
          if (i >= m->values.size())
            throw std::runtime_error(fmt::format("outlier {} of {} values", i, m->values.size()));
      b.entries.push_back(std::move(x));
    }
  } catch (const UsageError&) {
    throw;
  } catch (const nlohmann::json::parse_error& e) {
    // The line of the byte where the JSON broke.
    const std::size_t at = std::min<std::size_t>(e.byte, text.size());
    const long line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(at > 0 ? at - 1 : 0), '\n');
    throw UsageError(fmt::format("{}:{}: not a valid baseline file ({})", path, line, e.what()));
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("{}: {}not a valid baseline file ({})", path,
                                 entry > 0 ? fmt::format("entries[{}]: ", entry - 1) : "", e.what()));
  }
  return b;
}

}  // namespace ccb
