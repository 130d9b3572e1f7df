// nccl-tests -J: one JSON object with config.devices (rank, hostname, device
// info), args (argv[0] names the collective; ccbench's -J FILE.json: argv[1]), nccl_version and results[] with
// out_of_place / in_place {time|cpu_time, alg_bw, bus_bw, nwrong} and, with
// per-iteration timing, *_per_iter.times_us (kept as samples). Its env list is
// not read: it holds the whole environment, secrets included.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "results/import/importer.hpp"
#include "results/import/text_input.hpp"

namespace ccb {
namespace {

using nlohmann::json;

std::optional<double> number(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::string text_of(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::uint32_t line_of_byte(std::string_view text, std::size_t byte) {
  byte = std::min(byte, text.size());
  return static_cast<std::uint32_t>(1 +
                                    std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(byte), '\n'));
}

// What the document says of the whole run: the collective (args[0]), the
// ranks and hosts (config.devices); NCCL's version and the GPU noted.
struct RunFacts {
  std::string collective;
  int ranks = 0, nodes = 0;
  // "device"; "host" when every device is -1 (ccbench -J FILE.json of a
  // host-memory run: nccl-tests' document has no field for it).
  std::string memory = "device";
};
RunFacts run_facts(const json& doc, ImportContext& ctx) {
  ctx.set.note_env("tool", "nccl-tests");
  if (const auto v = number(doc, "nccl_version"); v && *v > 0 && *v < 1e9) {  // NCCL's code: 22703 for 2.27.3
    const auto code = static_cast<long>(*v);
    ctx.set.note_env("versions.nccl", code >= 20900
                                          ? fmt::format("{}.{}.{}", code / 10000, code / 100 % 100, code % 100)
                                          : std::to_string(code));
  }
  RunFacts f;
  if (const auto args = doc.find("args");
      args != doc.end() && args->is_array() && !args->empty() && (*args)[0].is_string()) {
    const std::string program = (*args)[0].get<std::string>();
    f.collective = collective_from_program(program);
    // ccbench -J FILE.json: "ccbench all_reduce ..." names it in args[1].
    const std::string_view base = std::string_view(program).substr(program.find_last_of('/') + 1);
    if (f.collective.empty() && base == "ccbench" && args->size() > 1 && (*args)[1].is_string())
      f.collective = collective_from_program((*args)[1].get<std::string>());
  }
  std::set<std::string> hosts;
  const auto config = doc.find("config");
  if (config != doc.end() && config->is_object()) {
    if (const auto devs = config->find("devices"); devs != config->end() && devs->is_array()) {
      f.ranks = static_cast<int>(devs->size());
      bool any_device = devs->empty();
      for (const json& d : *devs) {
        if (!d.is_object()) continue;
        if (const std::string h = text_of(d, "hostname"); !h.empty()) hosts.insert(h), ctx.set.hosts.insert(h);
        ctx.set.note_env("hardware.gpu", text_of(d, "device_info"));
        const auto device = number(d, "device");
        any_device = any_device || !device || *device >= 0;
      }
      if (!any_device) f.memory = "host";
    }
    if (const auto g = number(*config, "graph")) ctx.set.note_env("config.cuda_graph", fmt::format("{}", *g));
  }
  f.nodes = static_cast<int>(hosts.size());
  return f;
}

// results[index]: its out-of-place and in-place points.
void read_result(const json& r, std::size_t index, const RunFacts& f, ImportContext& ctx) {
  const auto size = number(r, "size");
  if (!size || *size < 0 || *size > 1.8e19) {
    ctx.unread(1, fmt::format("results[{}]: size missing or not a byte count", index));
    return;
  }
  for (int in_place = 0; in_place < 2; ++in_place) {
    const auto pl = r.find(in_place ? "in_place" : "out_of_place");
    if (pl == r.end() || !pl->is_object()) continue;
    ImportedPoint p;
    p.collective = f.collective;
    p.dtype = text_of(r, "type");
    const std::string op = text_of(r, "redop");
    p.op = op.empty() || op == "none" ? "-" : op;
    p.path = "auto";
    p.memory = f.memory;
    p.ranks = f.ranks;
    p.nodes = f.nodes;
    p.in_place = in_place;
    p.bytes = static_cast<std::uint64_t>(*size);
    auto time = number(*pl, "time");
    if (!time) time = number(*pl, "cpu_time");
    if (!time || !(*time > 0)) {
      ctx.unread(1, fmt::format("results[{}].{}: time missing or not positive (\"nan\"?)", index,
                                in_place ? "in_place" : "out_of_place"));
      continue;
    }
    p.time_us = *time;
    if (const auto a = number(*pl, "alg_bw"); a && *a >= 0) p.algbw_gbps = *a;
    if (const auto b = number(*pl, "bus_bw"); b && *b >= 0) p.busbw_gbps = *b;
    if (const auto w = number(*pl, "nwrong")) p.wrong = count_from_double(*w);
    const auto iters = r.find(in_place ? "in_place_per_iter" : "out_of_place_per_iter");
    if (iters != r.end() && iters->is_object())
      if (const auto t = iters->find("times_us"); t != iters->end() && t->is_array())
        for (const json& v : *t)
          if (v.is_number() && v.get<double>() > 0) p.samples_us.push_back(v.get<double>());
    p.line = 1;
    ctx.add(std::move(p));
  }
}

}  // namespace

void import_nccl_tests_json(std::string_view text, ImportContext& ctx) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    ctx.unread(line_of_byte(text, e.byte), "not valid JSON here (truncated file?); nothing read from this file");
    return;
  } catch (const json::exception&) {  // e.g. a number beyond double's range
    ctx.unread(1, "not valid JSON (a number out of range?); nothing read from this file");
    return;
  }
  if (!doc.is_object()) return ctx.unread(1, "nccl-tests JSON: top level is not an object");
  const RunFacts f = run_facts(doc, ctx);
  if (f.collective.empty()) {
    ctx.unread(1, "cannot tell which collective this nccl-tests JSON measured: args[0] does not name one");
    return;
  }
  const auto results = doc.find("results");
  if (results == doc.end() || !results->is_array()) return ctx.unread(1, "nccl-tests JSON without a results list");
  std::size_t index = 0;
  for (const json& r : *results)
    if (const std::size_t i = index++; r.is_object()) read_result(r, i, f, ctx);
}

}  // namespace ccb
