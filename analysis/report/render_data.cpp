// CSV and JSON: every aligned point of every pair with raw numbers, for
// spreadsheets and scripts. Text fields that a spreadsheet would run as a
// formula (=, +, @ first, or - and more) get a leading apostrophe.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "analysis/compare/catalogue.hpp"
#include "analysis/compare/expectation.hpp"
#include "analysis/report/render.hpp"
#include "results/json_records.hpp"
#include "results/writers.hpp"

namespace ccb {
namespace {

std::string text_field(const std::string& v) {
  const bool formula = !v.empty() && (std::string_view("=+@\t\r").find(v.front()) != std::string_view::npos ||
                                      (v.front() == '-' && v.size() > 1));
  if (formula) return csv_field("'" + v);
  return csv_field(v);
}

nlohmann::json num_json(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

nlohmann::json facts_json(const CurveFacts& f) {
  return {{"peak_busbw_gbps", num_json(f.peak_busbw_gbps)},
          {"peak_bytes", f.peak_bytes},
          {"small_time_us", num_json(f.small_time_us)},
          {"small_bytes", f.small_bytes},
          {"half_peak_bytes", num_json(f.half_peak_bytes)}};
}

nlohmann::json key_json(const Series& s) {
  nlohmann::json k = {{"collective", s.collective}};
  if (!s.dtype.empty()) k["dtype"] = s.dtype;
  if (!s.op.empty()) k["op"] = s.op;
  if (s.ranks > 0) k["ranks"] = s.ranks;
  if (s.nodes > 0) k["nodes"] = s.nodes;
  if (s.in_place >= 0) k["in_place"] = s.in_place == 1;
  if (!s.path.empty()) k["path"] = s.path;
  if (!s.memory.empty()) k["memory"] = s.memory;
  return k;
}

}  // namespace

void write_csv(const Comparison& c, std::FILE* out) {
  fmt::print(out,
             "baseline,other,collective,dtype,op,ranks,nodes,in_place,path,memory,bytes,baseline_time_us,other_time_us,"
             "baseline_busbw_gbps,other_busbw_gbps,busbw_ratio,time_ratio,p_value,significant,"
             "baseline_busbw_limit_gbps,other_busbw_limit_gbps,baseline_share_of_limit,other_share_of_limit\n");
  // Each side's busbw limit on its own path (docs/expect.md; a published or
  // predicted set has none): the series' limit, the same at every size.
  std::vector<PathFacts> facts;
  std::vector<std::string> gpus;
  for (const ResultSet& set : c.sets) facts.push_back(path_facts(set, 0, 0)), gpus.push_back(set_gpu_family(set));
  const auto limit_of = [&](std::size_t set, const Series& s) {
    if (!c.sets[set].published_source.empty() || !c.sets[set].predicted_from.empty())
      return std::numeric_limits<double>::quiet_NaN();
    return point_ceiling(s.collective.str(), s.ranks, s.nodes, s.memory.str(), gpus[set], facts[set]).gbps;
  };
  const std::string base = text_field(c.baseline().label);
  for (const PairComparison& pc : c.pairs) {
    const std::string other = text_field(c.sets[pc.other].label);
    for (const SeriesComparison& sc : pc.series) {
      const Series& s = *sc.base;
      const double base_limit = limit_of(c.options.baseline, s), other_limit = limit_of(pc.other, *sc.other);
      const std::string key =
          fmt::format("{},{},{},{},{},{},{},{},{}", text_field(s.collective), text_field(s.dtype), text_field(s.op),
                      s.ranks > 0 ? std::to_string(s.ranks) : "", s.nodes > 0 ? std::to_string(s.nodes) : "",
                      s.in_place < 0 ? ""
                      : s.in_place   ? "true"
                                     : "false",
                      text_field(s.path), text_field(s.memory), "");
      const std::string prefix = fmt::format("{},{},{}", base, other, key);
      fmt::memory_buffer buf;
      const auto number = [&](double v) {
        if (std::isfinite(v)) fmt::format_to(std::back_inserter(buf), "{}", v);
        buf.push_back(',');
      };
      for (const AlignedPoint& a : sc.points) {
        buf.append(prefix);
        fmt::format_to(std::back_inserter(buf), "{},", a.bytes);
        for (double v :
             {a.base->time_us, a.other->time_us, a.base->busbw_gbps, a.other->busbw_gbps, a.busbw_ratio, a.time_ratio})
          number(v);
        if (a.p_value) number(*a.p_value), buf.append(std::string_view(a.significant() ? "true" : "false"));
        else buf.push_back(',');
        buf.push_back(',');
        for (double v : {base_limit, other_limit, share_of_limit(a.base->busbw_gbps, base_limit)}) number(v);
        if (const double v = share_of_limit(a.other->busbw_gbps, other_limit); std::isfinite(v))
          fmt::format_to(std::back_inserter(buf), "{}", v);
        buf.push_back('\n');
        if (buf.size() > (1 << 20)) std::fwrite(buf.data(), 1, buf.size(), out), buf.clear();
      }
      std::fwrite(buf.data(), 1, buf.size(), out);
    }
  }
}

namespace {

// A series' verdict (analysis/compare/comparison.cpp): what the Summary renders.
nlohmann::json verdict_json(const SeriesVerdict& v) {
  using nlohmann::json;
  static constexpr const char* kKinds[] = {"faster", "on_par", "mixed", "cannot_tell"};
  return json{
      {"kind", kKinds[v.kind]},
      {"faster", v.kind == SeriesVerdict::faster || v.kind == SeriesVerdict::mixed ? json(v.call.lower) : json()},
      {"by", num_json(v.call.ratio)},
      {"interval", std::isfinite(v.call.lo) ? json::array({v.call.lo, v.call.hi}) : json()},
      {"reason", v.reason},
      {"noise", v.noise}};
}

// One series of a pair: its aligned points, crossovers, facts and verdict.
nlohmann::json series_json(const SeriesComparison& sc, const SeriesVerdict& verdict) {
  using nlohmann::json;
  json points = json::array();
  for (const AlignedPoint& a : sc.points)
    points.push_back({{"bytes", a.bytes},
                      {"baseline_time_us", num_json(a.base->time_us)},
                      {"other_time_us", num_json(a.other->time_us)},
                      {"baseline_busbw_gbps", num_json(a.base->busbw_gbps)},
                      {"other_busbw_gbps", num_json(a.other->busbw_gbps)},
                      {"busbw_ratio", num_json(a.busbw_ratio)},
                      {"time_ratio", num_json(a.time_ratio)},
                      {"p_value", a.p_value ? num_json(*a.p_value) : json()},
                      {"significant", a.p_value ? json(a.significant()) : json()}});
  json crossovers = json::array();
  for (const Crossover& x : sc.crossovers)
    crossovers.push_back(
        {{"below_bytes", x.below_bytes}, {"above_bytes", x.above_bytes}, {"other_faster_above", x.other_wins_above}});
  return json{{"key", key_json(*sc.base)},
              {"label", sc.base->label()},
              {"geomean_busbw_ratio", num_json(sc.geomean_busbw_ratio)},
              {"geomean_time_ratio", num_json(sc.geomean_time_ratio)},
              {"baseline", facts_json(sc.base_facts)},
              {"other", facts_json(sc.other_facts)},
              {"crossovers", crossovers},
              {"only_baseline_bytes", sc.only_base},
              {"only_other_bytes", sc.only_other},
              {"tested", sc.tested},
              {"not_significant", sc.not_significant},
              {"verdict", verdict_json(verdict)},
              {"points", points}};
}

}  // namespace

std::string render_json(const Comparison& c, const Report& r) {
  using nlohmann::json;
  json doc = {{"type", "ccbench_compare"},
              {"version", 1},
              {"baseline", c.baseline().label},
              {"alpha", c.options.alpha},
              {"chart_key", key_fields_text(c.chart_fields)}};
  json sets = json::array();
  const std::vector<PublishedFigure>& catalogue = reference_catalogue();
  for (std::size_t i = 0; i < c.sets.size(); ++i) {
    const ResultSet& s = c.sets[i];
    json normal = json::array();  // measured sets only: "Is each number normal?" (docs/expect.md)
    if (s.published_source.empty() && s.predicted_from.empty())
      for (const Expectation& e : expectations(s, path_facts(s, 0, 0), catalogue))
        normal.push_back(expectation_json(e));
    sets.push_back({{"label", s.label},
                    {"baseline", i == c.options.baseline},
                    {"files", s.files},
                    {"formats", s.formats},
                    {"points", s.points.size()},
                    {"unread", s.unread},
                    {"environment", s.environment},
                    {"published_source", s.published_source.empty() ? json() : json(s.published_source)},
                    {"expectations", normal}});
  }
  doc["sets"] = std::move(sets);
  json pairs = json::array();
  for (const PairComparison& pc : c.pairs) {
    json series = json::array();
    for (const SeriesComparison& sc : pc.series) series.push_back(series_json(sc, sc.verdict));
    json only_base = json::array(), only_other = json::array();
    for (const Series* s : pc.only_base) only_base.push_back(s->label());
    for (const Series* s : pc.only_other) only_other.push_back(s->label());
    pairs.push_back({{"other", c.sets[pc.other].label},
                     {"key", key_fields_text(pc.fields)},
                     {"aligned", pc.aligned},
                     {"tested", pc.tested},
                     {"not_significant", pc.not_significant},
                     {"significance_test", pc.tested ? "mann_whitney_u" : "none: no per-iteration samples"},
                     {"hint", pc.hint},
                     {"series", series},
                     {"only_baseline_series", only_base},
                     {"only_other_series", only_other}});
  }
  doc["pairs"] = std::move(pairs);
  for (const Section& s : r.sections) {
    const bool decision = s.heading.rfind("The decision at scale", 0) == 0;
    if (s.heading != "Cost" && s.heading != "Environment" && !decision) continue;
    json tables = json::array();
    for (const Table& t : s.tables) {
      json rows = json::array();
      for (const auto& row : t.rows) {
        json cells = json::array();
        for (const auto& cell : row) cells.push_back(cell.text);
        rows.push_back(cells);
      }
      tables.push_back({{"title", t.title}, {"header", t.header}, {"rows", rows}});
    }
    doc[decision              ? "decision"
        : s.heading == "Cost" ? "cost"
                              : "environment"] = {{"notes", s.paragraphs}, {"tables", tables}};
  }
  return doc.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace ccb
