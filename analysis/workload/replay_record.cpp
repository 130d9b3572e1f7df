#include "analysis/workload/replay_record.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "common/errors.hpp"
#include "common/user_file.hpp"

namespace ccb {
namespace {

using json = nlohmann::json;

double seconds_at(const json& j, const char* key, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number() || it->get<double>() < 0 || !std::isfinite(it->get<double>()))
    throw UsageError(fmt::format("{}: {}: expected seconds (a number >= 0)", where, key));
  return it->get<double>();
}

ReplayStep read_step(const json& j, const std::string& where) {
  ReplayStep s;
  s.step_s = seconds_at(j, "step_s", where);
  s.compute_s = seconds_at(j, "compute_s", where);
  s.exposed_s = seconds_at(j, "exposed_s", where);
  const auto by = j.find("exposed_by_dim_s");
  if (by == j.end() || !by->is_object())
    throw UsageError(fmt::format("{}: exposed_by_dim_s: expected an object", where));
  for (std::size_t d = 0; d < kDims; ++d) {
    const std::string name(setting_name(static_cast<Dim>(d)));
    s.by_dim[d] = by->contains(name) ? seconds_at(*by, name.c_str(), where) : 0;
  }
  return s;
}

}  // namespace

json replay_header_json(const TrainingWorkload& w, const StepProgram& prog, const std::string& file, int nodes,
                        const std::vector<std::string>& hosts, const std::vector<std::string>& noise,
                        const std::string& started_at) {
  return json({{"type", "replay"},
               {"schema_version", 1},
               {"workload", w.name},
               {"workload_file", file},
               {"ranks", prog.ranks},
               {"nodes", nodes},
               {"ranks_per_node", prog.ranks_per_node},
               {"parallelism",
                {{"tp", prog.group_size(Dim::tp)},
                 {"pp", prog.group_size(Dim::pp)},
                 {"dp", prog.group_size(Dim::dp)},
                 {"ep", prog.group_size(Dim::ep)},
                 {"zero", w.zero},
                 {"schedule", setting_name(w.schedule)},
                 {"virtual_stages", w.virtual_stages}}},
               {"micro_batches", prog.micro_batches},
               {"compute_per_step_s", prog.compute_per_step_s()},
               {"hosts", hosts},
               {"noise", noise},
               {"started_at", started_at}});
}

json replay_step_json(const ReplayStep& s, int step, int slowest_rank) {
  json by = json::object();
  for (std::size_t d = 0; d < kDims; ++d) by[std::string(setting_name(static_cast<Dim>(d)))] = s.by_dim[d];
  return {
      {"type", "step"},           {"step", step},           {"step_s", s.step_s},          {"compute_s", s.compute_s},
      {"exposed_s", s.exposed_s}, {"exposed_by_dim_s", by}, {"slowest_rank", slowest_rank}};
}

json replay_end_json(const ReplayEnd& e, const std::string& ended_at) {
  const auto measured = [&](double v) { return e.steps > 0 ? json(v) : json(); };
  return json({{"type", "end"},
               {"status", e.status},
               {"exit_code", e.exit_code},
               {"wrong", e.wrong},
               {"steps", e.steps},
               {"median_step_s", measured(e.median_step_s)},
               {"median_exposed_s", measured(e.median_exposed_s)},
               {"ended_at", ended_at}});
}

bool is_replay_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  std::ifstream in(path);
  std::string line;
  return std::getline(in, line) && is_replay_text(line);
}

bool is_replay_text(std::string_view text) {
  const std::string_view first = text.substr(0, text.find('\n'));
  if (first.find("\"replay\"") == std::string_view::npos) return false;  // most files: no parse
  const json j = json::parse(first, nullptr, false);
  const auto type = j.is_object() ? j.find("type") : j.end();
  return j.is_object() && type != j.end() && type->is_string() && *type == "replay";
}

ReplayRun read_replay(const std::string& label, const std::string& path) {
  return replay_of_text(label, read_user_file(path, ""), path);
}

ReplayRun replay_of_text(const std::string& label, std::string_view text, const std::string& path) {
  ReplayRun r;
  r.label = label, r.file = path;
  int n = 0;
  for (std::size_t at = 0; at < text.size();) {  // one record per line, read in place
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    at = end + 1, ++n;
    if (line.empty()) continue;
    const std::string where = fmt::format("{}:{}", path, n);
    const json j = json::parse(line, nullptr, false);
    if (!j.is_object()) throw UsageError(fmt::format("{}: not a JSON object", where));
    try {
      const std::string type = j.value("type", "");
      if (n == 1 && type != "replay")
        throw UsageError(fmt::format("{}: not a ccbench replay record (ccbench replay -J writes one)", where));
      if (type == "replay") {
        r.workload = j.value("workload", "");
        r.ranks = j.value("ranks", 0), r.ranks_per_node = j.value("ranks_per_node", 0), r.nodes = j.value("nodes", 0);
        r.started_at = j.value("started_at", ""), r.workload_file = j.value("workload_file", "");
        if (const auto h = j.find("hosts"); h != j.end() && h->is_array())
          for (const json& name : *h)
            if (name.is_string()) r.hosts.insert(name.get<std::string>());
        if (const auto z = j.find("noise"); z != j.end() && z->is_array())
          for (const json& flag : *z)
            if (flag.is_string()) r.noise.push_back(flag.get<std::string>());
        const json p = j.value("parallelism", json::object());
        r.parallelism = fmt::format("tp {}, pp {}, dp {}, ep {}, zero {}", p.value("tp", 1), p.value("pp", 1),
                                    p.value("dp", 1), p.value("ep", 1), p.value("zero", 0));
      } else if (type == "step") {
        r.steps.push_back(read_step(j, where));
      } else if (type == "end") {
        r.status = j.value("status", "");
      } else {
        throw UsageError(fmt::format("{}: record type '{}': expected replay, step or end", where, type));
      }
    } catch (const json::exception& e) {  // a field of another type than the record's
      throw UsageError(fmt::format("{}: {}", where, e.what()));
    }
  }
  if (r.steps.empty())
    throw UsageError(fmt::format("{}: the replay holds no step record{}", path,
                                 r.status.empty() ? "" : fmt::format(" (it ended: {})", r.status)));
  return r;
}

}  // namespace ccb
