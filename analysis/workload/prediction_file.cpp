#include "analysis/workload/prediction_file.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "common/errors.hpp"
#include "results/yaml_fields.hpp"

namespace ccb {
namespace {

using json = nlohmann::json;

json estimate_json(const Estimate& e) { return {{"mid", e.mid}, {"lo", e.lo}, {"hi", e.hi}}; }

Estimate read_estimate(const json& j, const std::string& path, const std::string& key) {
  const auto bad = [&] {
    throw UsageError(fmt::format("{}: {}: expected {{\"mid\", \"lo\", \"hi\"}} in seconds", path, key));
  };
  if (!j.is_object()) bad();
  Estimate e;
  for (auto [name, v] : {std::pair{"mid", &e.mid}, std::pair{"lo", &e.lo}, std::pair{"hi", &e.hi}}) {
    const auto it = j.find(name);
    if (it == j.end() || !it->is_number() || it->get<double>() < 0) bad();
    *v = it->get<double>();
  }
  return e;
}

}  // namespace

std::string format_ms(double seconds) {
  const double ms = seconds * 1e3;
  // 3 decimals where they mean something; significant figures beyond (never
  // "0.000" for a measured time, nor 10 digits of a 1e8 ms prediction).
  if (ms != 0 && std::fabs(ms) < 0.001) return fmt::format("{:.3g}", ms);
  if (std::fabs(ms) >= 1e5) return fmt::format("{:.4g}", ms);
  return fmt::format("{:.3f}", ms);
}

double exposed_of(const SimulatedStep& s) {
  double sum = 0;
  for (double e : s.slowest().exposed_s) sum += e;
  return sum;
}

PredictedStep summarize_prediction(const TrainingWorkload& w, const StepProgram& prog, const StepPrediction& p) {
  PredictedStep out;
  out.workload = w.name;
  out.ranks = prog.ranks, out.ranks_per_node = prog.ranks_per_node;
  out.step_s = {p.mid.step_s, p.lo.step_s, p.hi.step_s};
  out.exposed_s = {exposed_of(p.mid), exposed_of(p.lo), exposed_of(p.hi)};
  for (std::size_t d = 0; d < kDims; ++d)
    out.by_dim[d] = {p.mid.slowest().exposed_s[d], p.lo.slowest().exposed_s[d], p.hi.slowest().exposed_s[d]};
  out.compute_s = prog.compute_per_step_s();
  out.unbounded = p.unbounded;
  return out;
}

std::string prediction_json(const PredictedStep& p) {
  json by_dim = json::object();
  for (std::size_t d = 0; d < kDims; ++d)
    by_dim[std::string(setting_name(static_cast<Dim>(d)))] = estimate_json(p.by_dim[d]);
  const json j = {
      {"type", "workload_prediction"},           {"workload", p.workload},     {"ranks", p.ranks},
      {"ranks_per_node", p.ranks_per_node},      {"compute_s", p.compute_s},   {"step_s", estimate_json(p.step_s)},
      {"exposed_s", estimate_json(p.exposed_s)}, {"exposed_by_dim_s", by_dim}, {"unbounded_phases", p.unbounded}};
  return j.dump(2) + "\n";
}

PredictedStep read_prediction(const std::string& path) {
  const json j = json::parse(yamlf::read_text(path), nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("type", "") != "workload_prediction")
    throw UsageError(fmt::format("{}: not a workload prediction (ccbench workload predict --json writes one)", path));
  PredictedStep p;
  const auto whole = [&](const char* key) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer() || it->get<long>() < 1)
      throw UsageError(fmt::format("{}: {}: expected a positive whole number", path, key));
    return static_cast<int>(it->get<long>());
  };
  p.workload = j.value("workload", "");
  p.ranks = whole("ranks"), p.ranks_per_node = whole("ranks_per_node");
  p.compute_s = j.value("compute_s", 0.0);
  p.step_s = read_estimate(j.value("step_s", json()), path, "step_s");
  p.exposed_s = read_estimate(j.value("exposed_s", json()), path, "exposed_s");
  if (const auto u = j.find("unbounded_phases"); u != j.end() && u->is_array())
    for (const json& phase : *u)
      if (phase.is_string()) p.unbounded.push_back(phase.get<std::string>());
  const json by = j.value("exposed_by_dim_s", json::object());
  for (std::size_t d = 0; d < kDims; ++d) {
    const std::string name(setting_name(static_cast<Dim>(d)));
    // A dimension the file does not name had nothing exposed (files before edp was one).
    if (by.contains(name)) p.by_dim[d] = read_estimate(by[name], path, "exposed_by_dim_s." + name);
  }
  return p;
}

}  // namespace ccb
