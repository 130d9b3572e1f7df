#include "analysis/compare/cost.hpp"

#include "common/sizes.hpp"
#include "analysis/compare/plateau.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <set>

#include "collectives/collective.hpp"
#include "common/errors.hpp"
#include "kernels/dtype.hpp"
#include "results/yaml_fields.hpp"

namespace ccb {

#if CCBENCH_HAVE_YAML
namespace {

[[noreturn]] void bad(const std::string& file, const YAML::Node& n, const std::string& key, const std::string& what) {
  yamlf::fail(file, n, key, what);
}

YAML::Node load_mapping(const std::string& path, const std::set<std::string>& allowed) {
  const YAML::Node root = yamlf::load_file(path);
  yamlf::check_keys(path, root, "", allowed);
  return root;
}

double number(const std::string& file, const YAML::Node& root, const char* key, double lo, double hi, bool required,
              bool whole = false) {
  return yamlf::number(file, root, "", key, lo, hi, required, whole);
}

std::string text(const std::string& file, const YAML::Node& root, const char* key) {
  return yamlf::text(file, root, "", key);
}

}  // namespace

CostProfile load_cost_profile(const std::string& path) {
  const YAML::Node root =
      load_mapping(path, {"kind", "name", "currency", "price_per_gpu_hour", "price_per_node_hour", "gpus_per_node",
                          "capital_cost", "amortisation_years", "yearly_operating_cost", "utilisation", "gpus",
                          "transfer_cost_per_tb", "node_mtbf_hours"});
  CostProfile c;
  c.file = path;
  c.kind = text(path, root, "kind");
  c.name = text(path, root, "name");
  c.currency.clear();
  if (root["currency"]) c.currency = text(path, root, "currency");
  // A key of the other kind would be ignored, and the profile mean something else than its author thought.
  const auto line_of = [&](const char* key) { return root[key] ? root[key].Mark().line + 1 : 1; };
  const char* cloud_keys[] = {"price_per_gpu_hour", "price_per_node_hour", "gpus_per_node"};
  const char* metal_keys[] = {"capital_cost", "amortisation_years", "yearly_operating_cost", "utilisation", "gpus"};
  for (const char* k : c.kind == "cloud"        ? std::span<const char* const>(metal_keys)
                       : c.kind == "bare_metal" ? std::span<const char* const>(cloud_keys)
                                                : std::span<const char* const>())
    if (root[k])
      throw UsageError(fmt::format("{}:{}: {}: a key of {} profiles; this one is kind {}", path, line_of(k), k,
                                   c.kind == "cloud" ? "bare_metal" : "cloud", c.kind));
  c.transfer_per_tb = number(path, root, "transfer_cost_per_tb", 0, 1e9, false);
  c.node_mtbf_hours = number(path, root, "node_mtbf_hours", 1e-3, 1e9, false);
  if (c.kind == "cloud") {
    c.per_gpu_hour = number(path, root, "price_per_gpu_hour", 0, 1e6, false);
    c.per_node_hour = number(path, root, "price_per_node_hour", 0, 1e8, false);
    if (std::isnan(c.per_gpu_hour) == std::isnan(c.per_node_hour))
      throw UsageError(fmt::format("{}:1: price_per_gpu_hour or price_per_node_hour: give exactly one", path));
    if (!std::isnan(c.per_node_hour)) {
      c.gpus_per_node = static_cast<int>(number(path, root, "gpus_per_node", 1, 1024, true, true));
      c.per_gpu_hour = c.per_node_hour / c.gpus_per_node;
      c.derivation = fmt::format("{} per node-hour / {} GPUs per node", c.per_node_hour, c.gpus_per_node);
    } else {
      c.derivation = "price per GPU-hour as given";
    }
  } else if (c.kind == "bare_metal") {
    c.capital_cost = number(path, root, "capital_cost", 0, 1e13, true);
    c.amortisation_years = number(path, root, "amortisation_years", 0.1, 50, true);
    c.yearly_operating_cost = number(path, root, "yearly_operating_cost", 0, 1e12, true);
    c.utilisation = number(path, root, "utilisation", 0.01, 1, true);
    c.gpus = static_cast<int>(number(path, root, "gpus", 1, 1e7, true, true));
    c.per_gpu_hour =
        (c.capital_cost / c.amortisation_years + c.yearly_operating_cost) / (c.gpus * 8760.0 * c.utilisation);
    c.derivation = fmt::format("(capital {} / {} years + yearly operating {}) / ({} GPUs x 8760 h x utilisation {})",
                               c.capital_cost, c.amortisation_years, c.yearly_operating_cost, c.gpus, c.utilisation);
  } else {
    const YAML::Node k = root["kind"];
    throw UsageError(fmt::format("{}:{}: kind: '{}' is unknown (allowed: cloud, bare_metal)", path,
                                 k ? k.Mark().line + 1 : 1, c.kind));
  }
  if (!(c.per_gpu_hour > 0))
    throw UsageError(
        fmt::format("{}:1: the price per GPU-hour is {}: a profile must cost something (every ratio and "
                    "break-even divides by it)",
                    path, c.per_gpu_hour));
  // Required: a profile without it was silently USD, and two profiles in different
  // currencies were compared as if they were one.
  if (c.currency.empty())
    throw UsageError(
        fmt::format("{}:1: currency: required (the code of the currency of every price, e.g. USD, EUR)", path));
  if (c.currency.size() != 3 ||
      !std::all_of(c.currency.begin(), c.currency.end(), [](char ch) { return ch >= 'A' && ch <= 'Z'; }))
    throw UsageError(fmt::format("{}:{}: currency: '{}' is not a currency code (three capital letters, e.g. USD, EUR)",
                                 path, line_of("currency"), c.currency));
  return c;
}

Workload load_workload(const std::string& path) {
  const YAML::Node root = load_mapping(path, {"name", "parameters", "dtype", "gpus", "collective",
                                              "compute_seconds_per_step", "dataset_tb", "transfer_gbit_s"});
  Workload w;
  w.file = path;
  w.name = text(path, root, "name");
  w.parameters = number(path, root, "parameters", 1, 1e16, true);
  w.gpus = static_cast<int>(number(path, root, "gpus", 2, 1e7, true, true));
  if (root["compute_seconds_per_step"]) w.compute_s = number(path, root, "compute_seconds_per_step", 0, 1e6, true);
  w.dataset_tb = number(path, root, "dataset_tb", 1e-6, 1e9, false);
  w.transfer_gbit_s = number(path, root, "transfer_gbit_s", 1e-3, 1e9, false);
  if (std::isnan(w.dataset_tb) != std::isnan(w.transfer_gbit_s))
    throw UsageError(fmt::format(
        "{}:1: dataset_tb and transfer_gbit_s: give both (the data set and the rate to move it at) or neither", path));
  w.dtype = text(path, root, "dtype");
  if (w.dtype.empty()) w.dtype = "bfloat16";
  const auto d = parse_dtype(w.dtype);
  if (!d) bad(path, root["dtype"], "dtype", fmt::format("'{}' is not a dtype (e.g. float, bfloat16, half)", w.dtype));
  w.dtype_bytes = info(*d).size;
  if (root["collective"]) w.collective = text(path, root, "collective");
  if (!find_collective(w.collective))
    bad(path, root["collective"], "collective", fmt::format("'{}' is not a collective", w.collective));
  return w;
}
#else
CostProfile load_cost_profile(const std::string& path) {
  throw UsageError(fmt::format("{}: cost profiles need yaml-cpp; this ccbench was built without it", path));
}
Workload load_workload(const std::string& path) {
  throw UsageError(fmt::format("{}: workload files need yaml-cpp; this ccbench was built without it", path));
}
#endif

double cost_per_pb(const CostProfile& c, double peak_busbw_gbps) {
  return peak_busbw_gbps > 0 ? c.per_gpu_hour * 1e6 / (3600 * peak_busbw_gbps) : kNaN;
}

std::optional<WorkloadEstimate> estimate_workload(const Workload& w, const SeriesTable& table,
                                                  const CostProfile* cost) {
  const Series* best = nullptr;
  for (const Series& s : table.series) {
    if (s.collective != w.collective || s.points.empty()) continue;
    const auto better = [&] {
      if (!best) return true;
      if (s.ranks != best->ranks) return s.ranks > best->ranks;
      return s.in_place == 0 && best->in_place != 0;
    };
    if (better()) best = &s;
  }
  if (!best) return std::nullopt;
  const double bytes = w.bytes_per_step();
  const auto& pts = best->points;
  WorkloadEstimate e;
  e.curve = best;
  std::size_t i = 0;
  while (i < pts.size() && static_cast<double>(pts[i].bytes) < bytes) ++i;
  if (i == pts.size()) {
    const std::optional<Plateau> p = plateau_of(*best);
    const double largest = static_cast<double>(pts.back().bytes);
    if (!p) {
      e.refused = "no size with a positive busbw";
      return e;
    }
    if (!p->flat) {
      e.refused = fmt::format("{} is beyond the largest measured size ({}), and {}", format_size(bytes),
                              format_size(largest), why_not_flat(*p));
      return e;
    }
    if (bytes > kMaxSizeExtrapolation * largest) {
      e.refused = fmt::format(
          "{} is {:.0f}x the largest measured size ({}); at most {:g}x is read off a plateau: "
          "measure up to {} or more",
          format_size(bytes), bytes / largest, format_size(largest), kMaxSizeExtrapolation,
          format_size(bytes / kMaxSizeExtrapolation));
      return e;
    }
    e.busbw_gbps = p->busbw_gbps, e.busbw_lo_gbps = p->lo_gbps, e.busbw_hi_gbps = p->hi_gbps;
    e.extrapolated = static_cast<double>(pts.back().bytes) != bytes;
    e.basis = e.extrapolated
                  ? fmt::format("plateau of {}-{}, {:.3g}x beyond", format_size(static_cast<double>(p->from_bytes)),
                                format_size(static_cast<double>(p->to_bytes)), bytes / largest)
                  : "measured";
  } else if (i == 0) {
    e.busbw_gbps = e.busbw_lo_gbps = e.busbw_hi_gbps = pts.front().busbw_gbps;
    e.extrapolated = static_cast<double>(pts.front().bytes) != bytes;
    e.basis = e.extrapolated ? "the smallest measured size's busbw" : "measured";
  } else {
    const SeriesPoint &lo = pts[i - 1], &hi = pts[i];
    const double l0 = std::log2(std::max<double>(1, static_cast<double>(lo.bytes)));
    const double l1 = std::log2(static_cast<double>(hi.bytes));
    const double t = (std::log2(bytes) - l0) / (l1 - l0);
    e.busbw_gbps = lo.busbw_gbps + t * (hi.busbw_gbps - lo.busbw_gbps);
    e.busbw_lo_gbps = std::min(lo.busbw_gbps, hi.busbw_gbps), e.busbw_hi_gbps = std::max(lo.busbw_gbps, hi.busbw_gbps);
    e.basis = "interpolated";
  }
  const Collective* c = find_collective(w.collective);
  if (!(e.busbw_gbps > 0) || !c) {
    e.refused = fmt::format("busbw {} GB/s at that size", e.busbw_gbps);
    return e;
  }
  const double factor = bus_factor(*c, w.gpus);
  const auto seconds = [&](double busbw) { return busbw > 0 ? bytes / (busbw * 1e9 / factor) : kNaN; };
  e.time_per_step_s = seconds(e.busbw_gbps);
  e.time_lo_s = seconds(e.busbw_hi_gbps), e.time_hi_s = seconds(e.busbw_lo_gbps);
  if (cost) e.cost_per_1000_steps = 1000 * e.time_per_step_s * w.gpus * cost->per_gpu_hour / 3600;
  return e;
}

}  // namespace ccb
