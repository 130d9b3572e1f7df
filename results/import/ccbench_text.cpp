// ccbench's own text outputs: the CSV (--csv) and a saved terminal table
// (`ccbench ... | tee all_reduce.txt`). Both are read as what they are, with
// every field their header states (backend, memory, path), not as
// nccl-tests text; in a folder, one next to a JSON Lines file of the same
// name is skipped as its duplicate (load.cpp).
#include <fmt/format.h>

#include <map>
#include <set>
#include <vector>

#include "results/import/importer.hpp"
#include "results/import/text_input.hpp"

namespace ccb {
namespace {

// One CSV record (RFC 4180 quoting, as results/writers.cpp writes it).
std::vector<std::string> csv_fields(std::string_view line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') out.back() += '"', ++i;
      else if (c == '"') quoted = false;
      else out.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

// "key value" pairs of a header line: "#  ranks 4 nodes 1 iters 20 ..." -> {ranks: 4, ...}.
std::map<std::string, std::string> pairs(std::string_view h) {
  std::string_view tok[32];
  const std::size_t n = split_tokens(h, tok);
  std::map<std::string, std::string> out;
  for (std::size_t i = 0; i + 1 < std::min<std::size_t>(n, 32); i += 2)
    out[std::string(tok[i])] = std::string(tok[i + 1]);
  return out;
}

}  // namespace

void import_ccbench_csv(std::string_view text, ImportContext& ctx) {
  LineReader lines(text);
  std::string_view l;
  std::map<std::string, std::size_t> col;
  std::set<std::string> backends;
  while (lines.next(l)) {
    const std::uint32_t number = lines.number();
    if (ctx.skip_long_line(l, number) || trim(l).empty()) continue;
    const std::vector<std::string> f = csv_fields(l);
    if (col.empty()) {
      for (std::size_t i = 0; i < f.size(); ++i) col[f[i]] = i;
      for (const char* need : {"collective", "dtype", "ranks", "placement", "bytes", "time_us"})
        if (!col.count(need)) return ctx.unread(number, fmt::format("ccbench CSV header without the column {}", need));
      continue;
    }
    const auto at = [&](const char* name) -> std::string {
      const auto it = col.find(name);
      return it != col.end() && it->second < f.size() ? f[it->second] : std::string();
    };
    ImportedPoint p;
    p.collective = at("collective");
    p.dtype = at("dtype");
    p.op = at("op").empty() ? "-" : at("op");
    p.memory = at("memory_kind").empty() ? "host" : at("memory_kind");
    p.path = at("path_requested").empty() ? "auto" : at("path_requested");
    const auto ranks = parse_uint(at("ranks")), nodes = parse_uint(at("nodes")), bytes = parse_uint(at("bytes"));
    const auto time = parse_double(at("time_us"));
    const std::string placement = at("placement");
    if (p.collective.empty() || !ranks || *ranks < 1 || *ranks > 10000000 || !bytes || !time || !(*time > 0) ||
        (placement != "out_of_place" && placement != "in_place")) {
      ctx.unread(number, "ccbench CSV row without a valid collective, ranks, placement, bytes or time_us");
      continue;
    }
    p.ranks = static_cast<int>(*ranks);
    p.nodes = nodes && *nodes <= 10000000 ? static_cast<int>(*nodes) : 0;
    if (const auto g = parse_uint(at("groups")); g && *g >= 1 && *g <= 10000000) p.groups = static_cast<int>(*g);
    p.bytes = *bytes;
    p.in_place = placement == "in_place" ? 1 : 0;
    p.time_us = *time;
    if (const auto v = parse_double(at("algbw_gbps"))) p.algbw_gbps = *v;
    if (const auto v = parse_double(at("busbw_gbps")); v && p.ranks > 1) p.busbw_gbps = *v;
    if (const auto v = parse_double(at("p50_us"))) p.p50_us = *v;
    if (const auto v = parse_double(at("p90_us"))) p.p90_us = *v;
    if (const auto v = parse_double(at("rank_mean_avg_us")); v && *v > 0) p.rank_mean_avg_us = *v;
    if (const auto v = parse_uint(at("wrong"))) p.wrong = *v;
    p.line = number;
    if (!at("backend").empty()) backends.insert(at("backend"));
    ctx.add(std::move(p));
  }
  ctx.set.note_env("tool", "ccbench (CSV)");
  for (const std::string& b : backends) ctx.set.note_env("config.backend", b);
}

void import_ccbench_table(std::string_view text, ImportContext& ctx) {
  // The header: "# ccbench V (rev): COLLECTIVE backend B [(why)] memory M",
  // "#  ranks N nodes M ...", "#  path requested P observed O".
  LineReader lines(text);
  std::string_view l;
  std::string version, collective, backend, memory = "host", path = "auto", observed, calls;
  int nodes = 0, ranks = 0, groups = 1;
  while (lines.next(l)) {
    const std::string_view h = trim(l);
    if (!h.starts_with("#")) continue;
    const std::string_view body = trim(h.substr(1));
    if (body.starts_with("ccbench ") && body.find("): ") != std::string_view::npos) {
      std::string_view tok[32];
      const std::size_t n = split_tokens(body, tok);
      version = n > 1 ? std::string(tok[1]) : "";
      const std::size_t colon = body.find("): ");
      std::string_view rest = body.substr(colon + 3);
      std::string_view rt[32];
      const std::size_t m = split_tokens(rest, rt);
      if (m > 0) collective = std::string(rt[0]);
      for (std::size_t i = 1; i + 1 < std::min<std::size_t>(m, 32); ++i) {
        if (rt[i] == "backend") backend = std::string(rt[i + 1]);
        if (rt[i] == "memory") memory = std::string(rt[i + 1]);
        if (rt[i] == "calls") calls = std::string(rt[i + 1]);  // --mpi-calls nonblocking
      }
    } else if (body.starts_with("ranks ")) {
      const auto kv = pairs(body);
      if (const auto it = kv.find("nodes"); it != kv.end())
        if (const auto v = parse_uint(it->second); v && *v <= 10000000) nodes = static_cast<int>(*v);
      if (const auto it = kv.find("groups"); it != kv.end())  // --split: the rows are one group's
        if (const auto v = parse_uint(it->second); v && *v >= 1 && *v <= 10000000) groups = static_cast<int>(*v);
      if (const auto it = kv.find("ranks"); it != kv.end())
        if (const auto v = parse_uint(it->second); v && *v >= 1 && *v <= 10000000) ranks = static_cast<int>(*v);
    } else if (body.starts_with("path requested ")) {
      const auto kv = pairs(body.substr(5));
      if (kv.count("requested")) path = kv.at("requested");
      if (kv.count("observed")) observed = kv.at("observed");
    }
    if (!collective.empty() && !backend.empty() && nodes > 0 && !observed.empty()) break;
  }
  if (collective.empty())
    return ctx.unread(1, "ccbench table without its '# ccbench ...: COLLECTIVE backend ...' line");
  // The rows have nccl-tests' layout: read them so, then give them the fields the header states.
  ImportContext rows{ctx.set, ctx.file, ctx.name, ctx.options, ctx.points_before};
  rows.options.collective = collective;
  import_nccl_tests_rows(text, rows);
  for (std::size_t i = ctx.points_before; i < ctx.set.points.size(); ++i) {
    ImportedPoint& p = ctx.set.points[i];
    p.memory = memory;
    p.path = path;
    if (backend == "mpi") p.mpi_calls = calls == "nonblocking" ? "nonblocking" : "blocking";
    if (nodes > 0) p.nodes = nodes;
    if (groups > 1) p.groups = groups, p.ranks = ranks;  // the rank lines list every group's ranks
  }
  ctx.set.note_env("tool", "ccbench " + version + " (table text)");
  if (!backend.empty()) ctx.set.note_env("config.backend", backend);
  ctx.set.note_env("config.memory", memory);
  ctx.set.note_env("path.requested", path);
  if (!observed.empty()) ctx.set.note_env("path.observed", observed);
}

}  // namespace ccb
