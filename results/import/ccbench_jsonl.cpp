// ccbench's own JSON Lines (results/SCHEMA.md, schema versions 1 and 2): a
// run record sets the context (collective, backend, memory, path, ranks) and
// the environment; each point record holds out-of-place and in-place.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "results/noise.hpp"
#include "results/record.hpp"
#include "results/import/importer.hpp"
#include "results/import/json_lines.hpp"
#include "results/import/text_input.hpp"

namespace ccb {
namespace {

using nlohmann::json;

std::string str_at(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<double> num_at(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

const json& obj_at(const json& j, const char* key) {
  static const json empty = json::object();
  const auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : empty;
}

std::string first_line(std::string s) { return s.substr(0, s.find('\n')); }

// Environment variables that change how communication runs (not the
// launcher's own bookkeeping: job ids, URIs, session folders).
bool tunes_communication(std::string_view name) {
  if (name.starts_with("NCCL_") || name.starts_with("UCX_") || name == "CUDA_VISIBLE_DEVICES") return true;
  if (!name.starts_with("OMPI_MCA_")) return false;
  for (std::string_view launcher : {"orte_", "ess", "pmix", "initial_wdir", "shmem_", "mpi_oversubscribe", "rmaps_"})
    if (name.substr(9).starts_with(launcher)) return false;
  return true;
}

struct RunContext {
  std::string collective, memory = "host", path = "auto", mpi_calls;
  std::map<std::string, std::string> tuning;  // the run's OMPI_MCA_coll_{tuned,libnbc}_* and NCCL_ALGO
  bool seen = false;
};

// Open MPI's name of a collective in its coll_tuned_<name>_algorithm variables
// (reduce_scatter is MPI_Reduce_scatter_block: its own variable).
std::string_view ompi_coll_name(std::string_view collective) {
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"all_reduce", "allreduce"}, {"all_gather", "allgather"}, {"reduce_scatter", "reduce_scatter_block"},
      {"alltoall", "alltoall"},    {"broadcast", "bcast"},      {"reduce", "reduce"},
      {"gather", "gather"},        {"scatter", "scatter"}};
  for (const auto& [ours, theirs] : kNames)
    if (collective == ours) return theirs;
  return {};
}

bool mca_true(const std::string& v) {
  std::string l;
  for (char c : v) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return l == "1" || l == "true" || l == "yes" || l == "t" || l == "y";
}

// "ompi:N" when a run of blocking calls forced Open MPI's tuned algorithm N
// for the collective (dynamic rules on, N > 0), "libnbc:N" when one of
// nonblocking calls forced libnbc's (coll_libnbc_i<name>_algorithm N > 0: the
// calls libnbc serves, which coll/tuned's settings do not reach),
// "nccl:NAME" for NCCL_ALGO, else "".
std::string forced_algorithm(const RunContext& run, std::string_view collective) {
  const auto at = [&](const std::string& k) {
    const auto it = run.tuning.find(k);
    return it == run.tuning.end() ? std::string() : it->second;
  };
  if (const std::string_view name = ompi_coll_name(collective); !name.empty()) {
    if (run.mpi_calls == "nonblocking") {
      const auto n = parse_uint(at(fmt::format("OMPI_MCA_coll_libnbc_i{}_algorithm", name)));
      if (n && *n > 0 && *n < 100) return fmt::format("libnbc:{}", *n);
    } else {
      const auto n = parse_uint(at(fmt::format("OMPI_MCA_coll_tuned_{}_algorithm", name)));
      if (mca_true(at("OMPI_MCA_coll_tuned_use_dynamic_rules")) && n && *n > 0 && *n < 100)
        return fmt::format("ompi:{}", *n);
    }
  }
  const std::string nccl = at("NCCL_ALGO");
  if (!nccl.empty() && nccl.size() <= 32 &&
      std::all_of(nccl.begin(), nccl.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; }))
    return "nccl:" + nccl;
  return "";
}

// The run record's start, command and hosts, one per line ("" without a start).
std::string run_identity(const json& run) {
  const std::string started = str_at(run, "started_at");
  if (started.empty()) return "";
  std::set<std::string> hosts;
  if (const auto it = run.find("placement"); it != run.end() && it->is_array())
    for (const json& p : *it) hosts.insert(str_at(p, "host"));
  const auto argv = run.find("argv");
  return fmt::format("{}\n{}\n{}", started, argv == run.end() ? "" : argv->dump(), fmt::join(hosts, ","));
}

void read_environment(const json& run, ResultSet& set) {
  if (const std::string t = str_at(run, "started_at"); set.started_at.empty()) set.started_at = t;
  if (set.run_identity.empty()) set.run_identity = run_identity(run);
  const json& versions = obj_at(run, "versions");
  set.note_env("tool", "ccbench " + str_at(versions, "ccbench"));
  for (const char* k : {"mpi_library", "cuda", "nccl", "os", "os_kernel", "compiler", "host_kernels", "hwloc_api"})
    set.note_env(std::string("versions.") + k, first_line(str_at(versions, k)));
  const json& config = obj_at(run, "config");
  set.note_env("config.backend", str_at(config, "backend"));
  set.note_env("config.memory", str_at(config, "memory_kind"));
  set.note_env("config.timing", str_at(config, "timing_modes"));
  set.note_env("config.traffic", str_at(obj_at(config, "traffic"), "model"));  // alltoallv
  if (const auto n = num_at(config, "iterations")) set.note_env("config.iterations", fmt::format("{}", *n));
  const json& path = obj_at(run, "path");
  set.note_env("path.requested", str_at(path, "requested"));
  set.note_env("path.observed", str_at(path, "observed"));
  if (const auto r = num_at(run, "ranks")) set.note_env("placement.ranks", fmt::format("{}", *r));
  if (const auto n = num_at(run, "nodes")) set.note_env("placement.nodes", fmt::format("{}", *n));
  if (const auto it = run.find("node_topologies"); it != run.end() && it->is_array()) {
    set.note_env("topology.distinct_nodes", std::to_string(it->size()));
    for (const json& node : *it) {
      const json& t = obj_at(node, "topology");
      set.note_env("hardware.cpu", str_at(t, "cpu_model"));
      if (const auto c = num_at(t, "cores")) set.note_env("hardware.cores_per_node", fmt::format("{}", *c));
      if (const auto m = num_at(t, "memory_bytes"))
        set.note_env("hardware.memory_per_node", fmt::format("{:.0f} GiB", *m / (1 << 30)));
      if (const auto numa = t.find("numa"); numa != t.end() && numa->is_array())
        set.note_env("topology.numa_nodes_per_node", std::to_string(numa->size()));
      std::set<std::string> gpus, nics;
      std::size_t gpu_count = 0;
      if (const auto g = t.find("gpus"); g != t.end() && g->is_array()) {
        gpu_count = g->size();
        for (const json& x : *g) gpus.insert(str_at(x, "model"));
      }
      if (const auto n = t.find("nics"); n != t.end() && n->is_array())
        for (const json& x : *n)
          nics.insert(fmt::format("{} {} {}", str_at(x, "kind"), str_at(x, "name"), str_at(x, "link_speed")));
      std::string g, n;
      for (const auto& s : gpus) g += (g.empty() ? "" : ", ") + s;
      for (const auto& s : nics) n += (n.empty() ? "" : ", ") + s;
      set.note_env("hardware.gpus_per_node", fmt::format("{}{}", gpu_count, g.empty() ? "" : " x " + g));
      set.note_env("hardware.nics", n);
    }
  }
  if (const auto it = run.find("placement"); it != run.end() && it->is_array()) {
    std::set<std::string> binds;
    std::size_t warnings = 0;
    for (const json& p : *it) {
      binds.insert(str_at(obj_at(p, "bind"), "policy"));
      if (const std::string h = str_at(p, "host"); !h.empty()) set.hosts.insert(h);
      if (const auto w = p.find("warnings"); w != p.end() && w->is_array()) warnings += w->size();
    }
    std::string b;
    for (const auto& s : binds) b += (b.empty() ? "" : ", ") + s;
    set.note_env("placement.bind", b);
    set.note_env("placement.warnings", std::to_string(warnings));
  }
  if (const auto it = run.find("node_differences"); it != run.end() && it->is_array() && !it->empty())
    set.note_env("topology.node_differences", it->dump());
  // What the path's limit is derived from (docs/expect.md): --link-rate and
  // the host-memory copy rate measured beside the run.
  const json& limits = obj_at(run, "limits");
  set.note_env("limits.link_rate", str_at(limits, "link_rate"));
  for (const char* k : {"link_rate_gbps", "nics_per_node", "memory_copy_gbps"})
    if (const auto v = num_at(limits, k); v && *v > 0)
      set.note_env(std::string("limits.") + k, fmt::format("{:.9g}", *v));
  set.note_env("limits.memory_copy", str_at(limits, "memory_copy"));
  for (const auto& [k, v] : obj_at(run, "environment").items())
    if (v.is_string() && tunes_communication(k)) set.note_env("env." + k, v.get<std::string>());
}

// The algorithm names in path.algorithms ("RING/LL128/16ch" -> RING), sorted
// and "+"-joined; a name that is not a plain word is left out.
std::string algorithm_names(const json& path) {
  std::set<std::string> names;
  if (const auto a = path.find("algorithms"); a != path.end() && a->is_array())
    for (const json& v : *a) {
      if (!v.is_string()) continue;
      const std::string full = v.get<std::string>();
      const std::string name = full.substr(0, full.find('/'));
      if (!name.empty() && name.size() <= 32 &&
          std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; }))
        names.insert(name);
    }
  return fmt::format("{}", fmt::join(names, "+"));
}

// The run's noise flags (run and end records), each once, at most 64 and 300 characters each.
void read_noise(const json& j, ResultSet& set) {
  const auto it = j.find("noise");
  if (it == j.end() || !it->is_array()) return;
  for (const json& f : *it)
    if (f.is_string() && set.noise.size() < 64) {
      std::string text = f.get<std::string>().substr(0, 300);
      set.oversubscribed = set.oversubscribed || text.starts_with(kOversubscribedFlag);
      if (std::find(set.noise.begin(), set.noise.end(), text) == set.noise.end()) set.noise.push_back(std::move(text));
    }
}

void read_placement(const json& pl, bool in_place, const ImportedPoint& base, std::uint32_t line, ImportContext& ctx) {
  if (!pl.is_object()) return;
  ImportedPoint p = base;
  p.in_place = in_place ? 1 : 0;
  const auto time = num_at(pl, "time_us");
  if (!time || !(*time > 0)) {
    ctx.unread(line,
               fmt::format("{}: time_us missing or not a positive number", in_place ? "in_place" : "out_of_place"));
    return;
  }
  p.time_us = *time;
  if (const auto a = num_at(pl, "algbw_gbps")) p.algbw_gbps = *a;
  // One rank moves no bus bytes, except ccbench io's storage bandwidth (its busbw is its GB/s).
  const bool io = base.collective.str().starts_with("io_");
  if (const auto b = num_at(pl, "busbw_gbps"); b && *b >= 0 && (base.ranks > 1 || io)) p.busbw_gbps = *b;
  if (const auto w = num_at(pl, "wrong")) p.wrong = count_from_double(*w);
  const json& it = obj_at(pl, "per_iteration");
  if (const auto v = num_at(it, "p50_us")) p.p50_us = *v;
  if (const auto v = num_at(it, "p90_us")) p.p90_us = *v;
  if (const auto v = num_at(obj_at(pl, "rank_means"), "avg_us"); v && *v > 0) p.rank_mean_avg_us = *v;
  if (const auto s = pl.find("noise"); s != pl.end() && s->is_array()) {
    p.noise = static_cast<std::uint8_t>(std::min<std::size_t>(s->size(), 255));
    for (const json& f : *s)
      p.noise_stretch =
          std::max(p.noise_stretch, f.is_string() ? static_cast<float>(noise_stretch(f.get<std::string>())) : INFINITY);
  }
  if (const json& st = obj_at(pl, "stragglers"); st.is_object()) {
    if (const auto v = num_at(obj_at(st, "skew_us"), "p50_us"); v && *v >= 0) p.straggler_skew_us = *v;
    const auto rank = num_at(st, "last_rank");
    if (const auto n = st.find("named");
        n != st.end() && n->is_boolean() && n->get<bool>() && rank && *rank >= 0 && *rank < 1 << 24) {
      p.straggler_rank = static_cast<int>(*rank);
      p.straggler_host = str_at(st, "host").substr(0, 256);
    }
  }
  if (const auto s = pl.find("samples_us"); s != pl.end() && s->is_array()) {
    p.samples_us.reserve(s->size());
    for (const json& v : *s)
      if (v.is_number() && v.get<double>() > 0) p.samples_us.push_back(v.get<double>());
  }
  p.line = line;
  ctx.add(std::move(p));
}

void read_point(const json& j, const RunContext& run, std::uint32_t line, ImportContext& ctx) {
  ImportedPoint p;
  p.collective = str_at(j, "collective");
  p.dtype = str_at(j, "dtype");
  p.op = j.contains("op") && j["op"].is_string() ? j["op"].get<std::string>() : "-";
  p.memory = run.memory;
  p.path = run.path;
  p.mpi_calls = run.mpi_calls;
  if (const auto io = j.find("io"); io != j.end() && io->is_object()) {
    // ccbench io: no element type; the I/O settings (direct, engine, queue
    // depth, threads, layout) key the series where a collective has its path.
    p.dtype = "-";
    p.path = str_at(*io, "mode");
  }
  const auto ranks = num_at(j, "ranks"), nodes = num_at(j, "nodes"), bytes = num_at(j, "bytes");
  if (p.collective.empty() || !ranks || !bytes || *ranks < 1 || *ranks > 1e7 || *bytes < 0 || *bytes > 1.8e19) {
    ctx.unread(line, "point record without a valid collective, ranks or bytes");
    return;
  }
  p.ranks = static_cast<int>(*ranks);
  p.nodes = nodes && *nodes >= 1 && *nodes <= 1e7 ? static_cast<int>(*nodes) : 0;
  const auto groups = num_at(j, "groups");
  p.groups = groups && *groups >= 1 && *groups <= 1e7 ? static_cast<int>(*groups) : 1;
  p.bytes = static_cast<std::uint64_t>(*bytes);
  const auto requested = num_at(j, "requested_bytes");
  p.requested_bytes =
      requested && *requested >= 0 && *requested <= 1.8e19 ? static_cast<std::uint64_t>(*requested) : p.bytes;
  p.algorithm = algorithm_names(obj_at(j, "path"));
  p.forced_algorithm = forced_algorithm(run, p.collective.str());
  if (const json& t = obj_at(j, "traffic"); t.is_object()) {  // alltoallv
    const auto rank = num_at(t, "busiest_rank"), b = num_at(t, "busiest_bytes");
    if (rank && *rank >= 0 && *rank < p.ranks && b && *b >= 0 && *b <= 1.8e19) {
      p.busiest_rank = static_cast<int>(*rank), p.busiest_bytes = static_cast<std::uint64_t>(*b);
      p.busiest_host = str_at(t, "busiest_host").substr(0, 256);
    }
  }
  const auto oop = j.find("out_of_place"), ip = j.find("in_place");
  if (oop != j.end()) read_placement(*oop, false, p, line, ctx);
  if (ip != j.end()) read_placement(*ip, true, p, line, ctx);
}

}  // namespace

void import_ccbench_jsonl(std::string_view text, ImportContext& ctx) {
  RunContext run;
  for_each_json_object(text, ctx, [&](const json& j, std::uint32_t n) {
    const std::string type = str_at(j, "type");
    if (type == "run") {
      const auto version = num_at(j, "schema_version");
      if (!version || *version < 1 || *version > kSchemaVersion || *version != std::floor(*version)) {
        ctx.unread(n, fmt::format("run record with schema_version {}: this ccbench reads 1 to {}; the file is skipped",
                                  j.contains("schema_version") ? quote_value(j["schema_version"].dump()) : "missing",
                                  kSchemaVersion));
        return JsonLine::stop;
      }
      const json& config = obj_at(j, "config");
      run.collective = str_at(config, "collective");
      run.memory = str_at(config, "memory_kind");
      run.path = str_at(obj_at(j, "path"), "requested");
      if (run.memory.empty()) run.memory = "host";
      if (run.path.empty()) run.path = "auto";
      // Records before --mpi-calls have no field: the mpi backend's calls were blocking.
      const std::string calls = str_at(config, "mpi_calls");
      run.mpi_calls = calls == "nonblocking"                                ? calls
                      : calls.empty() && str_at(config, "backend") != "mpi" ? ""
                                                                            : "blocking";
      run.tuning.clear();
      for (const auto& [k, v] : obj_at(j, "environment").items())
        if (v.is_string() &&
            (k.starts_with("OMPI_MCA_coll_tuned_") || k.starts_with("OMPI_MCA_coll_libnbc_") || k == "NCCL_ALGO"))
          run.tuning[k] = v.get<std::string>();
      run.seen = true;
      read_environment(j, ctx.set);
      read_noise(j, ctx.set);
    } else if (type == "replay") {
      ctx.unread(n,
                 "a ccbench replay record (one training step's phases, docs/workload.md), not a sweep: the file is "
                 "skipped");
      return JsonLine::stop;
    } else if (type == "point") {
      if (!run.seen) ctx.unread(n, "point record before any run record: memory kind and path assumed host, auto");
      run.seen = true;
      read_point(j, run, n, ctx);
    } else if (type == "end") {
      ctx.set.ended = true;
      const std::string status = str_at(j, "status");
      if (!status.empty() && status != "completed") ctx.set.note_env("run.end_status", status);
      read_noise(j, ctx.set);
    } else {
      ctx.unread(n, fmt::format("record type {}: expected run, point or end", quote_value(type)));
    }
    return JsonLine::next;
  });
}

}  // namespace ccb
