#include "analysis/accept/spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>

#include "analysis/compare/expectation.hpp"
#include "common/sizes.hpp"
#include "common/errors.hpp"
#include "results/yaml_fields.hpp"

namespace ccb {

double Gate::bar(double base) const {
  if (relative()) return higher_is_better(metric) ? base * (1 - max_drop) : base * (1 + max_drop);
  return higher_is_better(metric) ? min * (1 - tolerance) : max * (1 + tolerance);
}

bool Gate::passes(double value, double base) const {
  if (!std::isfinite(value)) return false;
  return higher_is_better(metric) ? value >= bar(base) : value <= bar(base);
}

std::string Gate::describe() const {
  const char* unit = metric_unit(metric);
  const char* cmp = higher_is_better(metric) ? ">=" : "<=";
  const std::string at = "at " + format_size(at_bytes);
  if (!share_of.empty())
    return fmt::format("{} >= {:g}% of the {} ({}) {}", name(metric), (1 - max_drop) * 100, share_of,
                       share_of == "limit" ? "the path's physical limit" : "the published figure for this hardware",
                       at);
  if (population)
    return fmt::format(
        "{} {} {:g} x the median of this check's groups of the same size (or 3 MADs, whichever is "
        "further) {}",
        name(metric), cmp, higher_is_better(metric) ? 1 - max_drop : 1 + max_drop, at);
  if (history)
    return fmt::format("{} {} {:g} x the median of this group's last {} runs in the history ({} {:g}%) {}",
                       name(metric), cmp, higher_is_better(metric) ? 1 - max_drop : 1 + max_drop, history_runs,
                       higher_is_better(metric) ? "-" : "+", max_drop * 100, at);
  if (relative())
    return fmt::format("{} {} {:g} x baseline median ({} {:g}%) {}", name(metric), cmp,
                       higher_is_better(metric) ? 1 - max_drop : 1 + max_drop, higher_is_better(metric) ? "-" : "+",
                       max_drop * 100, at);
  const double v = higher_is_better(metric) ? min : max;
  if (tolerance == 0) return fmt::format("{} {} {:g} {} {}", name(metric), cmp, v, unit, at);
  return fmt::format("{} {} {:g} {} ({:g} {} {:g}%) {}", name(metric), cmp, bar(), unit, v,
                     higher_is_better(metric) ? "-" : "+", tolerance * 100, at);
}

#if CCBENCH_HAVE_YAML
namespace {

using yamlf::fail;
using yamlf::key_path;

std::size_t size_value(const std::string& file, const YAML::Node& n, const std::string& key) {
  if (!n.IsScalar()) fail(file, n, key, "expected a size (8, 64K, 1M, 8G)");
  const auto v = parse_size(n.Scalar());
  if (!v) fail(file, n, key, size_error(n.Scalar()));
  if (*v == 0) fail(file, n, key, "a size of 0 bytes");
  return *v;
}

Gate parse_gate(const std::string& file, const YAML::Node& g, const std::string& where, const Check& c,
                const std::filesystem::path& folder) {
  yamlf::check_keys(file, g, where,
                    {"metric", "at", "min", "max", "tolerance", "baseline", "max_drop", "population", "runs"});
  Gate gate;
  gate.line = g.Mark().line + 1;
  const std::string metric = yamlf::text(file, g, where, "metric", true);
  const std::optional<Metric> m = parse_setting<Metric>(metric);
  if (!m)
    fail(file, g["metric"], key_path(where, "metric"),
         fmt::format("'{}' is unknown (allowed: {})", metric, allowed_settings<Metric>()));
  gate.metric = *m;
  if (!g["at"]) fail(file, g, key_path(where, "at"), "missing (the size this gate judges)");
  gate.at_bytes = size_value(file, g["at"], key_path(where, "at"));
  bool listed = false;
  for (std::size_t s : c.sizes) listed = listed || s == gate.at_bytes;
  if (!listed)
    fail(file, g["at"], key_path(where, "at"), fmt::format("{} B is not one of the check's sizes", gate.at_bytes));
  const bool busbw_like = higher_is_better(gate.metric);
  static const std::regex share(R"(^\s*([0-9]+(?:\.[0-9]+)?)\s*%\s+of\s+(limit|reference)\s*$)");
  std::smatch m_share;
  const std::string min_text = g["min"] && g["min"].IsScalar() ? g["min"].Scalar() : "";
  if (std::regex_match(min_text, m_share, share)) {
    const double pct = std::stod(m_share[1].str());
    if (gate.metric != Metric::busbw)
      fail(file, g["min"], key_path(where, "min"), "a share of the limit or reference judges busbw (metric: busbw)");
    if (!(pct > 0 && pct <= 200))
      fail(file, g["min"], key_path(where, "min"), fmt::format("{}%: a share from 1% to 200%", m_share[1].str()));
    gate.share_of = m_share[2].str();
    gate.max_drop = 1 - pct / 100;
  } else {
    gate.min = yamlf::number(file, g, where, "min", 0, 1e9, false);
  }
  gate.max = yamlf::number(file, g, where, "max", 0, 1e12, false);
  gate.tolerance = yamlf::number(file, g, where, "tolerance", 0, 0.99, false);
  if (std::isnan(gate.tolerance)) gate.tolerance = 0;
  if (g["baseline"] && !gate.share_of.empty())
    fail(file, g["baseline"], key_path(where, "baseline"), "give min: N% of limit or a baseline, not both");
  if (g["baseline"]) {
    const std::string b = yamlf::text(file, g, where, "baseline", true);
    if (b.empty()) fail(file, g["baseline"], key_path(where, "baseline"), "empty path");
    const std::filesystem::path p(b);
    if (b == "history")  // a file of that name: ./history
      gate.history = true;
    else gate.baseline = p.is_absolute() ? b : (folder / p).lexically_normal().string();
    gate.max_drop = yamlf::number(file, g, where, "max_drop", 0, 0.99, true);
  } else if (g["max_drop"]) {
    fail(file, g["max_drop"], key_path(where, "max_drop"), "needs baseline: FILE (or baseline: history)");
  }
  if (g["runs"]) {
    if (!gate.history) fail(file, g["runs"], key_path(where, "runs"), "needs baseline: history (the runs it reads)");
    gate.history_runs = static_cast<int>(yamlf::number(file, g, where, "runs", kHistoryMinRuns, 1000, true, true));
  }
  if (g["population"]) {
    if (g["baseline"])
      fail(file, g["population"], key_path(where, "population"), "give baseline or population, not both");
    gate.population = true;
    gate.max_drop = yamlf::number(file, g, where, "population", 0, 0.99, true);
  }
  const int given = !std::isnan(gate.min) + !std::isnan(gate.max) + gate.relative();
  if (given != 1)
    fail(file, g, where, "give exactly one of min (bandwidth floor), max (time ceiling), baseline, population");
  if (!std::isnan(gate.min) && !busbw_like)
    fail(file, g["min"], key_path(where, "min"),
         fmt::format("a floor applies to busbw or algbw; {} takes max", metric));
  if (!std::isnan(gate.max) && busbw_like)
    fail(file, g["max"], key_path(where, "max"),
         fmt::format("a ceiling applies to time and skew; {} takes min", metric));
  if (gate.metric == Metric::skew && c.io)
    fail(file, g["metric"], key_path(where, "metric"), "skew is a collective's (its ranks' arrival); io has none");
  if (gate.metric == Metric::skew && gate.relative())
    fail(file, g, where,
         "a skew gate takes max (us): a straggler's lateness is judged against a ceiling, not a baseline");
  // A floor of 0 passes every measurement; no operation takes 0 us, so a
  // ceiling of 0 fails every one: neither judges the hardware.
  if (gate.min == 0) fail(file, g["min"], key_path(where, "min"), "a floor of 0 passes every measurement");
  if (gate.max == 0) fail(file, g["max"], key_path(where, "max"), "a ceiling of 0 us fails every measurement");
  if (gate.relative() && g["tolerance"])
    fail(file, g["tolerance"], key_path(where, "tolerance"), "a baseline or population gate takes no tolerance");
  return gate;
}

// io: {dir, pattern, file_size, files, qd, threads, direct, shared_file, engine}
// (the pattern's name is checked by the accept command, which knows them).
IoCheck parse_io_check(const std::string& file, const YAML::Node& n, const std::string& where) {
  if (!n.IsMap()) fail(file, n, where, "expected a mapping such as {dir: /scratch, pattern: checkpoint}");
  yamlf::check_keys(file, n, where,
                    {"dir", "pattern", "file_size", "files", "qd", "threads", "direct", "shared_file", "engine"});
  IoCheck io;
  io.dir = yamlf::text(file, n, where, "dir", true);
  if (n["pattern"]) io.pattern = yamlf::text(file, n, where, "pattern");
  if (n["engine"]) io.engine = yamlf::text(file, n, where, "engine");
  if (n["file_size"]) io.file_bytes = size_value(file, n["file_size"], key_path(where, "file_size"));
  const auto whole = [&](const char* key, double hi, double fallback) {
    const double v = yamlf::number(file, n, where, key, 1, hi, false, true);
    return std::isnan(v) ? fallback : v;
  };
  io.files = static_cast<std::size_t>(whole("files", 1e7, 256));
  io.queue_depth = static_cast<int>(whole("qd", 4096, 1));
  io.threads = static_cast<int>(whole("threads", 1024, 1));
  for (const char* k : {"direct", "shared_file"})
    if (n[k]) {
      const std::string v = yamlf::text(file, n, where, k);
      if (v != "true" && v != "false") fail(file, n[k], key_path(where, k), "expected true or false");
      (std::string(k) == "direct" ? io.direct : io.shared_file) = v == "true";
    }
  return io;
}

Check parse_check(const std::string& file, const YAML::Node& n, const std::string& where,
                  const std::filesystem::path& folder) {
  yamlf::check_keys(
      file, n, where,
      {"name",      "collective",     "io",     "backend",          "memory",    "path", "dtype",   "op",
       "sizes",     "iterations",     "warmup", "gpus_per_process", "repeats",   "pass", "pattern", "second_pass",
       "timeout_s", "step_timeout_s", "gates",  "bitwise",          "stragglers"});
  Check c;
  c.line = n.Mark().line + 1;
  c.name = yamlf::text(file, n, where, "name", true);
  if (c.name.empty() || c.name.size() > 64 ||
      c.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
          std::string::npos)
    fail(file, n["name"], key_path(where, "name"), "1 to 64 letters, digits, '.', '_' or '-' (it names files)");
  if (c.name.front() == '.')
    fail(file, n["name"], key_path(where, "name"),
         fmt::format("'{}' starts with '.'; it names a folder (raw/NAME), so '.', '..' and hidden names are refused",
                     c.name));
  if (n["io"]) {
    c.io = parse_io_check(file, n["io"], key_path(where, "io"));
    for (const char* k : {"collective", "backend", "memory", "path", "dtype", "op", "gpus_per_process"})
      if (n[k]) fail(file, n[k], key_path(where, k), "does not apply to an io check");
  } else {
    const std::string coll = yamlf::text(file, n, where, "collective", true);
    c.collective = find_collective(coll);
    if (!c.collective)
      fail(file, n["collective"], key_path(where, "collective"),
           fmt::format("'{}' is not a collective (ccbench list)", coll));
  }
  // A setting word, or "'x' is unknown (allowed: ...)" at its line.
  const auto word = [&]<class E>(const char* key, E& out) {
    if (!n[key]) return;
    const std::string text = yamlf::text(file, n, where, key);
    const auto v = parse_setting<E>(text);
    if (!v)
      fail(file, n[key], key_path(where, key),
           fmt::format("'{}' is unknown (allowed: {})", text, allowed_settings<E>()));
    out = *v;
  };
  word("backend", c.backend);
  word("memory", c.memory);
  if (n["memory"] && c.backend != BackendKind::mpi)
    fail(file, n["memory"], key_path(where, "memory"), "applies to backend mpi (nccl always uses device memory)");
  if (n["path"]) {
    const std::string text = yamlf::text(file, n, where, "path");
    const auto p = parse_setting<PathRequest>(text);
    const bool nccl_only = p == PathRequest::nvlink || p == PathRequest::pcie;
    if (!p || (nccl_only && c.backend != BackendKind::nccl))
      fail(file, n["path"], key_path(where, "path"),
           fmt::format("'{}' is not a {} path (allowed: {})", text, setting_name(c.backend),
                       c.backend == BackendKind::nccl ? allowed_settings<PathRequest>() : "auto, shm, rdma, tcp"));
    c.path = *p;
  }
  if (n["dtype"]) {
    const std::string d = yamlf::text(file, n, where, "dtype");
    const auto dt = parse_dtype(d);
    if (!dt)
      fail(file, n["dtype"], key_path(where, "dtype"),
           fmt::format("'{}' is not a dtype (float, bfloat16, half, ...)", d));
    c.dtype = *dt;
  }
  if (n["op"]) {
    if (!c.reduces()) fail(file, n["op"], key_path(where, "op"), fmt::format("{} does not reduce", c.series()));
    const std::string o = yamlf::text(file, n, where, "op");
    const auto op = parse_op(o);
    if (!op) fail(file, n["op"], key_path(where, "op"), fmt::format("'{}' is not an op (sum, prod, max, min, avg)", o));
    c.op = *op;
  }
  const YAML::Node sizes = n["sizes"];
  if (!sizes) fail(file, n, key_path(where, "sizes"), "missing (a list such as [8, 1M, 64M])");
  if (!sizes.IsSequence() || sizes.size() == 0 || sizes.size() > 64)
    fail(file, sizes, key_path(where, "sizes"), "expected a list of 1 to 64 sizes");
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::size_t s = size_value(file, sizes[i], fmt::format("{}[{}]", key_path(where, "sizes"), i));
    for (std::size_t have : c.sizes)
      if (have == s) fail(file, sizes[i], fmt::format("{}[{}]", key_path(where, "sizes"), i), "listed twice");
    c.sizes.push_back(s);
  }
  const auto whole = [&](const char* key, double lo, double hi, int fallback) {
    const double v = yamlf::number(file, n, where, key, lo, hi, false, true);
    return std::isnan(v) ? fallback : static_cast<int>(v);
  };
  c.iterations = whole("iterations", 1, 1e6, 20);
  c.warmup = whole("warmup", 0, 1e6, 5);
  c.gpus_per_process = whole("gpus_per_process", 1, 64, 1);
  if (n["gpus_per_process"] && c.backend != BackendKind::nccl)
    fail(file, n["gpus_per_process"], key_path(where, "gpus_per_process"), "applies to backend nccl only");
  c.repeats = whole("repeats", 1, 1000, 1);
  c.bitwise = whole("bitwise", 1, 1000, 0);
  if (n["bitwise"] && c.io)
    fail(file, n["bitwise"], key_path(where, "bitwise"),
         "does not apply to an io check (it compares a collective's results bit for bit)");
  c.pass_repeats = whole("pass", 1, 1000, c.repeats);
  if (c.pass_repeats > c.repeats)
    fail(file, n["pass"], key_path(where, "pass"),
         fmt::format("{} of {} repeats cannot pass", c.pass_repeats, c.repeats));
  if (n["pattern"]) {
    const std::string p = yamlf::text(file, n, where, "pattern");
    const std::optional<GroupPattern> pattern = parse_setting<GroupPattern>(p);
    if (!pattern)
      fail(file, n["pattern"], key_path(where, "pattern"),
           fmt::format("'{}' is unknown (allowed: {})", p, allowed_settings<GroupPattern>()));
    c.pattern = *pattern;
  }
  for (const char* key : {"second_pass", "stragglers"})
    if (n[key]) {
      const std::string v = yamlf::text(file, n, where, key);
      if (v != "true" && v != "false") fail(file, n[key], key_path(where, key), "expected true or false");
      (std::string_view(key) == "second_pass" ? c.second_pass : c.stragglers) = v == "true";
    }
  if (n["stragglers"] && c.io)
    fail(file, n["stragglers"], key_path(where, "stragglers"),
         "does not apply to an io check (it has no ranks' arrival)");
  const double t = yamlf::number(file, n, where, "timeout_s", 1, 86400, false);
  c.timeout_s = std::isnan(t) ? 0 : t;
  const double st = yamlf::number(file, n, where, "step_timeout_s", 1, 86400, false);
  c.step_timeout_s = std::isnan(st) ? 0 : st;
  const YAML::Node gates = n["gates"];
  if (!gates) fail(file, n, key_path(where, "gates"), "missing (a check without gates judges nothing)");
  if (!gates.IsSequence() || gates.size() == 0 || gates.size() > 64)
    fail(file, gates, key_path(where, "gates"), "expected a list of 1 to 64 gates");
  for (std::size_t i = 0; i < gates.size(); ++i)
    c.gates.push_back(parse_gate(file, gates[i], fmt::format("{}[{}]", key_path(where, "gates"), i), c, folder));
  if (c.has_skew_gate() && !c.times_stragglers())
    fail(file, gates, key_path(where, "gates"),
         c.gpus_per_process > 1
             ? "a skew gate needs a rank per GPU: with gpus_per_process above 1 a process has no rank of its own"
             : "a skew gate reads the ranks' arrival, which stragglers: false turns off");
  // Patterns all and bisect start with one group of every node: a population
  // gate has no peers to compare it with there, so it would clear them all.
  const bool peers_only = std::all_of(c.gates.begin(), c.gates.end(), [](const Gate& g) { return g.population; });
  if (peers_only && (c.pattern == GroupPattern::all || c.pattern == GroupPattern::bisect))
    fail(file, gates, key_path(where, "gates"),
         fmt::format(
             "pattern {} measures one group of every node first, which population gates cannot judge (they compare "
             "3 or more groups of the same size): add a min, max or baseline gate, or use pattern pairwise, ring or "
             "per-node",
             name(c.pattern)));
  return c;
}

}  // namespace

AcceptSpec parse_spec(const std::string& text, const std::string& file) {
  const YAML::Node root = yamlf::parse_text(text, file);
  yamlf::check_keys(
      file, root, "",
      {"name", "description", "timeout_s", "step_timeout_s", "checks", "switches", "link_rate", "nics_per_node"});
  AcceptSpec spec;
  spec.file = file;
  spec.name = yamlf::text(file, root, "", "name");
  spec.description = yamlf::text(file, root, "", "description");
  const double t = yamlf::number(file, root, "", "timeout_s", 1, 86400, false);
  if (!std::isnan(t)) spec.timeout_s = t;
  const double st = yamlf::number(file, root, "", "step_timeout_s", 1, 86400, false);
  if (!std::isnan(st)) spec.step_timeout_s = st;
  if (root["link_rate"]) {  // each node's NIC line rate: the limit of share gates across nodes (docs/expect.md)
    spec.link_rate = yamlf::text(file, root, "", "link_rate", true);
    const auto r = link_rate_gbps(spec.link_rate);
    if (!r) fail(file, root["link_rate"], "link_rate", "not a rate (e.g. 200Mbit, 25Gbit, 400G)");
    spec.link_rate_gbps = *r;
  }
  const double nics = yamlf::number(file, root, "", "nics_per_node", 1, 1024, false, true);
  if (!std::isnan(nics)) spec.nics_per_node = static_cast<int>(nics);
  if (const YAML::Node sw = root["switches"]) {
    // switches: {leaf1: [host-a, host-b], leaf2: [...]}: which switch (leaf,
    // rack) each host hangs off; bisect splits along them and names a switch
    // whose hosts all fail.
    if (!sw.IsMap()) fail(file, sw, "switches", "expected a mapping of switch name to a list of host names");
    std::set<std::string> names;
    for (const auto& kv : sw) {
      if (!kv.first.IsScalar() || kv.first.Scalar().empty()) fail(file, kv.first, "switches", "expected a switch name");
      const std::string name = kv.first.Scalar();
      const std::string key = key_path("switches", name);
      if (!names.insert(name).second) fail(file, kv.first, key, "this switch is listed twice (list its hosts once)");
      if (!kv.second.IsSequence() || kv.second.size() == 0) fail(file, kv.second, key, "expected a list of host names");
      for (std::size_t i = 0; i < kv.second.size(); ++i) {
        const YAML::Node h = kv.second[i];
        if (!h.IsScalar() || h.Scalar().empty()) fail(file, h, fmt::format("{}[{}]", key, i), "expected a host name");
        if (spec.switch_of.count(h.Scalar()))
          fail(file, h, fmt::format("{}[{}]", key, i),
               fmt::format("host '{}' is already under switch {}", h.Scalar(), spec.switch_of[h.Scalar()]));
        spec.switch_of[h.Scalar()] = name;
      }
    }
  }
  const YAML::Node checks = root["checks"];
  if (!checks) fail(file, root, "checks", "missing");
  if (!checks.IsSequence() || checks.size() == 0 || checks.size() > 256)
    fail(file, checks, "checks", "expected a list of 1 to 256 checks");
  const std::filesystem::path folder = std::filesystem::path(file).parent_path();
  std::optional<PathRequest> nccl_path, mpi_path;
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const std::string where = fmt::format("checks[{}]", i);
    Check c = parse_check(file, checks[i], where, folder);
    for (const Check& other : spec.checks)
      if (other.name == c.name)
        fail(file, checks[i]["name"], key_path(where, "name"), fmt::format("'{}' is used twice", c.name));
    // NCCL and Open MPI read their path settings once per process.
    std::optional<PathRequest>& first = c.backend == BackendKind::nccl ? nccl_path : mpi_path;
    if (!first) first = c.path;
    else if (*first != c.path)
      fail(file, checks[i]["path"] ? checks[i]["path"] : checks[i], key_path(where, "path"),
           fmt::format("'{}' differs from an earlier {} check's '{}': {} reads its path settings once per process, so "
                       "one spec takes one {} path (split the spec)",
                       setting_name(c.path), setting_name(c.backend), setting_name(*first),
                       c.backend == BackendKind::nccl ? "NCCL" : "Open MPI", setting_name(c.backend)));
    if (c.timeout_s == 0) c.timeout_s = spec.timeout_s;
    if (c.step_timeout_s == 0) c.step_timeout_s = spec.step_timeout_s;
    if (c.step_timeout_s == 0) c.step_timeout_s = (c.repeats + 1) * c.timeout_s + 60;
    c.link_rate = spec.link_rate, c.link_rate_gbps = spec.link_rate_gbps, c.nics_per_node = spec.nics_per_node;
    spec.checks.push_back(std::move(c));
  }
  return spec;
}

AcceptSpec load_spec(const std::string& path) { return parse_spec(yamlf::read_text(path), path); }
#else
AcceptSpec parse_spec(const std::string&, const std::string& file) {
  throw UsageError(fmt::format("{}: acceptance specs need yaml-cpp; this ccbench was built without it", file));
}
AcceptSpec load_spec(const std::string& path) { return parse_spec("", path); }
#endif

}  // namespace ccb
