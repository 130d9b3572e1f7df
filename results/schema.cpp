#include "results/schema.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <initializer_list>
#include <utility>

#include "results/record.hpp"

namespace ccb {
using nlohmann::json;

namespace {

bool is(const json& j, const char* want) {
  const std::string w = want;
  if (w == "string") return j.is_string();
  if (w == "number") return j.is_number();
  if (w == "integer") return j.is_number_integer();
  if (w == "bool") return j.is_boolean();
  if (w == "object") return j.is_object();
  if (w == "array") return j.is_array();
  if (w == "string|null") return j.is_string() || j.is_null();
  if (w == "integer|null") return j.is_number_integer() || j.is_null();
  if (w == "number|null") return j.is_number() || j.is_null();
  if (w == "object|null") return j.is_object() || j.is_null();
  if (w == "array|null") return j.is_array() || j.is_null();
  return false;
}

std::string check_fields(const json& j, const std::string& where,
                         std::initializer_list<std::pair<const char*, const char*>> fields) {
  if (!j.is_object()) return fmt::format("{}: not an object", where);
  for (const auto& [key, type] : fields) {
    if (!j.contains(key)) return fmt::format("{}: missing \"{}\"", where, key);
    if (!is(j.at(key), type)) return fmt::format("{}: \"{}\" is not {}", where, key, type);
  }
  return {};
}

// rank_means (optional: files before 2026-12 lack it): min <= avg <= max, and
// no rank's mean above the mean of the per-iteration maxima over ranks.
std::string check_rank_means(const json& p, const std::string& where) {
  if (!p.contains("rank_means") || p["rank_means"].is_null()) return {};
  const json& m = p["rank_means"];
  if (auto e =
          check_fields(m, where + ".rank_means", {{"min_us", "number"}, {"avg_us", "number"}, {"max_us", "number"}});
      !e.empty())
    return e;
  const double lo = m["min_us"], avg = m["avg_us"], hi = m["max_us"];
  const double slack = 1e-9 * std::max(1.0, hi);  // rounding of the sums
  if (lo > avg + slack || avg > hi + slack)
    return fmt::format("{}.rank_means: min {} <= avg {} <= max {} does not hold", where, lo, avg, hi);
  if (p["per_iteration"].is_object() && hi > p["per_iteration"]["mean_us"].get<double>() + slack)
    return fmt::format(
        "{}.rank_means: max {} above per_iteration.mean_us {} (a mean of maxima is never below "
        "the largest mean)",
        where, hi, p["per_iteration"]["mean_us"].get<double>());
  return {};
}

std::string check_placement(const json& p, const std::string& where) {
  if (p.is_null()) return {};
  if (auto e = check_fields(p, where,
                            {{"time_us", "number"},
                             {"time_source", "string"},
                             {"algbw_gbps", "number"},
                             {"busbw_gbps", "number"},
                             {"wrong", "integer|null"},
                             {"pipelined_us", "number|null"},
                             {"per_iteration", "object|null"}});
      !e.empty())
    return e;
  if (p["per_iteration"].is_object())
    if (auto e = check_fields(p["per_iteration"], where + ".per_iteration",
                              {{"n", "integer"},
                               {"min_us", "number"},
                               {"p50_us", "number"},
                               {"p90_us", "number"},
                               {"p99_us", "number"},
                               {"max_us", "number"},
                               {"mean_us", "number"},
                               {"stddev_us", "number"},
                               {"ci95_median_us", "array|null"}});
        !e.empty())
      return e;
  return check_rank_means(p, where);
}
}  // namespace

std::string validate_record(const json& r) {
  if (!r.is_object() || !r.contains("type") || !r["type"].is_string()) return "record has no \"type\"";
  const std::string type = r["type"];
  if (type == "run") {
    if (auto e = check_fields(r, "run",
                              {{"schema_version", "integer"},
                               {"started_at", "string"},
                               {"argv", "array"},
                               {"versions", "object"},
                               {"config", "object"},
                               {"path", "object"},
                               {"ranks", "integer"},
                               {"nodes", "integer"},
                               {"placement", "array"},
                               {"environment", "object"}});
        !e.empty())
      return e;
    if (r["schema_version"] != kSchemaVersion)
      return fmt::format("run: schema_version {} (this build reads {})", r["schema_version"].dump(), kSchemaVersion);
    if (auto e = check_fields(r["config"], "run.config",
                              {{"collective", "string"},
                               {"backend", "string"},
                               {"memory_kind", "string"},
                               {"dtypes", "array"},
                               {"ops", "array"},
                               {"iterations", "integer"},
                               {"warmup_iterations", "integer"},
                               {"timing_modes", "string"},
                               {"clock", "string"}});
        !e.empty())
      return e;
    return check_fields(r["path"], "run.path",
                        {{"requested", "string"}, {"observed", "string"}, {"evidence", "string"}});
  }
  if (type == "point") {
    if (auto e = check_fields(r, "point",
                              {{"collective", "string"},
                               {"dtype", "string"},
                               {"op", "string|null"},
                               {"root", "integer|null"},
                               {"ranks", "integer"},
                               {"nodes", "integer"},
                               {"requested_bytes", "integer"},
                               {"bytes", "integer"},
                               {"count", "integer"},
                               {"iterations", "integer"},
                               {"bus_factor", "number"},
                               {"busbw_meaningful", "bool"},
                               {"out_of_place", "object|null"},
                               {"in_place", "object|null"},
                               {"notes", "array"},
                               {"path", "object|null"}});
        !e.empty())
      return e;
    if (r["path"].is_object())
      if (auto e = check_fields(r["path"], "point.path",
                                {{"observed", "array"}, {"transports", "array"}, {"warning", "string|null"}});
          !e.empty())
        return e;
    if (auto e = check_placement(r["out_of_place"], "point.out_of_place"); !e.empty()) return e;
    return check_placement(r["in_place"], "point.in_place");
  }
  if (type == "end")
    return check_fields(r, "end",
                        {{"status", "string"},
                         {"ended_at", "string"},
                         {"points", "integer"},
                         {"wrong_total", "integer"},
                         {"exit_code", "integer"},
                         {"avg_busbw_gbps", "number"}});
  return fmt::format("unknown record type \"{}\"", type);
}

std::string validate_jsonl_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return fmt::format("{}: cannot read", path);
  std::string line, last_type;
  std::size_t lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded()) return fmt::format("{}:{}: not JSON", path, lineno);
    if (auto e = validate_record(j); !e.empty()) return fmt::format("{}:{}: {}", path, lineno, e);
    const std::string type = j["type"];
    if (lineno == 1 && type != "run") return fmt::format("{}:1: the first record must be \"run\"", path);
    if (lineno > 1 && type == "run") return fmt::format("{}:{}: a second \"run\" record", path, lineno);
    if (last_type == "end") return fmt::format("{}:{}: a record after \"end\"", path, lineno);
    last_type = type;
  }
  if (lineno == 0) return fmt::format("{}: empty", path);
  if (last_type != "end") return fmt::format("{}:{}: no \"end\" record (the run did not finish)", path, lineno);
  return {};
}

}  // namespace ccb
