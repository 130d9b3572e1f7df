// Format detection, the shared importer context, and loading a --run path.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <filesystem>
#include <system_error>

#include "collectives/collective.hpp"
#include "common/errors.hpp"
#include "results/import/importer.hpp"
#include "results/import/text_input.hpp"

namespace ccb {

std::string_view format_name(Format f) {
  switch (f) {
    case Format::ccbench_jsonl: return "ccbench JSON Lines";
    case Format::ccbench_csv: return "ccbench CSV";
    case Format::ccbench_table: return "ccbench table text";
    case Format::nccl_tests_text: return "nccl-tests text";
    case Format::nccl_tests_json: return "nccl-tests JSON";
    case Format::osu: return "OSU micro-benchmarks";
    case Format::imb: return "IMB-MPI1";
    case Format::nccl_inspector_json: return "NCCL Inspector JSON";
    case Format::nccl_inspector_prom: return "NCCL Inspector Prometheus";
    case Format::unknown: break;
  }
  return "unknown";
}

Format detect_format(std::string_view text) {
  const std::string_view head = text.substr(0, kFormatHead);
  const std::size_t first = head.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && head[first] == '{') {
    const auto has = [&](std::string_view key) { return head.find(key) != std::string_view::npos; };
    if (has("\"schema_version\"")) return Format::ccbench_jsonl;
    if (has("\"coll_perf\"") && has("\"header\"")) return Format::nccl_inspector_json;
    if (has("\"nccl_version\"") || has("\"results\"")) return Format::nccl_tests_json;
    if (has("\"type\"")) return Format::ccbench_jsonl;
    return Format::nccl_tests_json;
  }
  if (head.substr(first == std::string_view::npos ? 0 : first).starts_with("collective,backend,path_requested,"))
    return Format::ccbench_csv;
  // A saved ccbench table: nccl-tests' layout, its version line with "ccbench=V"
  // (tables written before it: a first line "# ccbench V (rev): COLLECTIVE backend ...").
  if (const std::size_t at = head.find("# nccl-tests version "); at != std::string_view::npos) {
    const std::string_view line = head.substr(at, head.find('\n', at) - at);
    if (line.find(" ccbench=") != std::string_view::npos) return Format::ccbench_table;
  }
  if (const std::size_t at = head.find("# ccbench "); at != std::string_view::npos) {
    const std::string_view line = head.substr(at, head.find('\n', at) - at);
    if (line.find("): ") != std::string_view::npos && line.find(" backend ") != std::string_view::npos)
      return Format::ccbench_table;
  }
  if (head.find("# OSU ") != std::string_view::npos) return Format::osu;
  if (head.find("nccl_bus_bandwidth_gbs{") != std::string_view::npos ||
      head.find("nccl_collective_exec_time_microseconds{") != std::string_view::npos)
    return Format::nccl_inspector_prom;
  if (head.find("Intel(R) MPI Benchmarks") != std::string_view::npos ||
      head.find("# Benchmarking ") != std::string_view::npos)
    return Format::imb;
  if (head.find("# nThread ") != std::string_view::npos || head.find("out-of-place") != std::string_view::npos ||
      head.find("# Collective test starting") != std::string_view::npos || head.find("busbw") != std::string_view::npos)
    return Format::nccl_tests_text;
  return Format::unknown;
}

void ImportContext::unread(std::uint32_t line, std::string_view what) {
  set.unread.push_back(fmt::format("{}:{}: {}", name, line, what));
}

bool ImportContext::skip_long_line(std::string_view line, std::uint32_t number) {
  if (line.size() <= kMaxLine) return false;
  unread(number, fmt::format("line of {} bytes: longer than {} bytes, skipped", line.size(), kMaxLine));
  return true;
}

void ImportContext::add(ImportedPoint p) {
  p.file = file;
  if (std::isnan(p.algbw_gbps) && p.time_us > 0) p.algbw_gbps = static_cast<double>(p.bytes) / (p.time_us * 1e3);
  if (std::isnan(p.busbw_gbps) && !std::isnan(p.algbw_gbps) && p.ranks > 1) {
    if (const Collective* c = find_collective(p.collective.str()))
      p.busbw_gbps = p.algbw_gbps * bus_factor(*c, p.ranks);
  }
  set.points.push_back(std::move(p));
}

std::string collective_from_program(std::string_view program) {
  const std::size_t slash = program.find_last_of('/');
  if (slash != std::string_view::npos) program.remove_prefix(slash + 1);
  if (program.size() > 5 && program.substr(program.size() - 5) == "_perf") program.remove_suffix(5);
  if (program.size() > 9 && program.substr(program.size() - 9) == "_perf_mpi") program.remove_suffix(9);
  return find_collective(program) ? std::string(program) : std::string();
}

std::string collective_in_filename(std::string_view path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash != std::string_view::npos) path.remove_prefix(slash + 1);
  std::vector<std::string> words;
  std::string w;
  for (char c : path) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!w.empty()) {
      words.push_back(w), w.clear();
    }
  }
  if (!w.empty()) words.push_back(w);
  static const std::pair<const char*, const char*> kNames[] = {
      {"allreduce", "all_reduce"}, {"allgather", "all_gather"}, {"reducescatter", "reduce_scatter"},
      {"alltoall", "alltoall"},    {"alltoallv", "alltoallv"},  {"a2a", "alltoall"},
      {"broadcast", "broadcast"},  {"bcast", "broadcast"},      {"reduce", "reduce"},
      {"gather", "gather"},        {"scatter", "scatter"},      {"sendrecv", "sendrecv"},
      {"ar", "all_reduce"},        {"ag", "all_gather"},        {"rs", "reduce_scatter"}};
  const auto lookup = [](const std::string& word) -> const char* {
    for (const auto& [key, name] : kNames)
      if (word == key) return name;
    return nullptr;
  };
  std::set<std::string> found;
  for (std::size_t i = 0; i < words.size(); ++i) {
    // A word with the next ("all" + "reduce") before the word alone, which it consumes.
    const char* two = i + 1 < words.size() ? lookup(words[i] + words[i + 1]) : nullptr;
    if (two) {
      found.insert(two);
      ++i;
      continue;
    }
    // "allreduce_perf": a known name followed by _perf / _perf_mpi is the word itself.
    if (const char* one = lookup(words[i])) found.insert(one);
  }
  return found.size() == 1 ? *found.begin() : std::string();
}

Format import_text(std::string_view text, const std::string& name, ResultSet& set, const ImportOptions& options) {
  const Format f = detect_format(text);
  ImportContext ctx{set, static_cast<std::uint32_t>(set.files.size()), name, options, set.points.size()};
  const std::size_t unread_before = set.unread.size();
  set.files.push_back(name);
  set.formats.emplace_back(format_name(f));
  switch (f) {
    case Format::ccbench_jsonl: import_ccbench_jsonl(text, ctx); break;
    case Format::ccbench_csv: import_ccbench_csv(text, ctx); break;
    case Format::ccbench_table: import_ccbench_table(text, ctx); break;
    case Format::nccl_tests_text: import_nccl_tests_text(text, ctx); break;
    case Format::nccl_tests_json: import_nccl_tests_json(text, ctx); break;
    case Format::osu: import_osu(text, ctx); break;
    case Format::imb: import_imb(text, ctx); break;
    case Format::nccl_inspector_json: import_nccl_inspector_json(text, ctx); break;
    case Format::nccl_inspector_prom: import_nccl_inspector_prom(text, ctx); break;
    case Format::unknown:
      ctx.unread(
          1,
          "not a result format ccbench reads (ccbench JSON Lines, CSV or table text, nccl-tests text or JSON, OSU, "
          "IMB-MPI1, NCCL Inspector)");
      break;
  }
  if (f != Format::unknown && set.points.size() == ctx.points_before && set.unread.size() == unread_before)
    ctx.unread(1, fmt::format("{}: no measured points in this file", format_name(f)));
  return f;
}

std::vector<std::string> result_files(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw ImportError(fmt::format("{}: no such file or folder", path));
  std::vector<std::string> files;
  if (!fs::is_directory(st)) return {path};
  fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) throw ImportError(fmt::format("{}: cannot list folder ({})", path, ec.message()));
  for (; it != end; it.increment(ec)) {
    if (ec) throw ImportError(fmt::format("{}: cannot list folder ({})", path, ec.message()));
    const std::string leaf = it->path().filename().string();
    if (!leaf.empty() && leaf[0] == '.') {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec)) files.push_back(it->path().string());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw ImportError(fmt::format("{}: folder holds no files", path));
  return files;
}

namespace {

// ccbench's CSV or saved table next to the JSON Lines of the same run (a.csv,
// a.txt beside a.jsonl): the same points, read once.
std::string twin_of(const std::string& file, Format f, const std::set<std::string>& files) {
  if (f != Format::ccbench_csv && f != Format::ccbench_table) return "";
  const std::string twin = std::filesystem::path(file).replace_extension(".jsonl").string();
  return twin != file && files.count(twin) ? fmt::format("{}: the same run as {}", format_name(f), twin) : "";
}

}  // namespace

std::string twin_of_jsonl(const std::string& file, const std::set<std::string>& files) {
  const std::string twin = std::filesystem::path(file).replace_extension(".jsonl").string();
  if (twin == file || !files.count(twin)) return "";  // no head read for most files
  return twin_of(file, detect_format(read_head(file, kFormatHead)), files);
}

ResultSet load_result_set(const std::string& label, const std::string& path, const ImportOptions& options) {
  namespace fs = std::filesystem;
  ResultSet set;
  set.label = label;
  const std::vector<std::string> files = result_files(path);
  const std::set<std::string> all(files.begin(), files.end());
  for (const std::string& file : files) {
    try {
      // A file whose start is no result format (a core dump, an archive) is
      // listed without mapping the rest: memory does not grow with its size.
      const std::string head = read_head(file, kFormatHead);
      const Format f = detect_format(head);
      if (const std::string twin = twin_of(file, f, all); !twin.empty()) {
        set.skipped.push_back(fmt::format("{} ({})", file, twin));
        continue;
      }
      if (f == Format::unknown) {
        import_text(head, file, set, options);
        continue;
      }
      const MappedFile mapped(file);
      import_text(mapped.text(), file, set, options);
    } catch (const ImportError& e) {
      if (files.size() == 1) throw;
      set.unread.push_back(e.what());
    }
  }
  return set;
}

std::vector<ResultSet> load_measured_runs(const std::vector<std::string>& paths, std::string_view command) {
  std::vector<ResultSet> runs;
  for (const std::string& path : paths) {
    try {
      runs.push_back(load_result_set(path, path, ImportOptions{}));
    } catch (const ImportError& e) {
      throw UsageError(fmt::format("{}: {}", command, e.what()));
    }
    if (runs.back().points.empty())
      throw UsageError(fmt::format("{}: {}: no measured points could be read{}", command, path,
                                   runs.back().unread.empty() ? "" : " (" + runs.back().unread.front() + ")"));
  }
  return runs;
}

}  // namespace ccb
