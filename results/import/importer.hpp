// The importers: one per format, each filling a ResultSet from one file's
// text. Lines that cannot be read are listed in ResultSet::unread as
// "file:line: what"; an importer never throws for bad content.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "results/import/result_set.hpp"

namespace ccb {

enum class Format {
  ccbench_jsonl,
  ccbench_csv,
  ccbench_table,
  nccl_tests_text,
  nccl_tests_json,
  osu,
  imb,
  nccl_inspector_json,
  nccl_inspector_prom,
  unknown
};
std::string_view format_name(Format f);

// Guesses the format from the start of the text.
Format detect_format(std::string_view text);

// What every importer is handed: where points and complaints go.
struct ImportContext {
  ResultSet& set;
  std::uint32_t file;  // index into set.files
  std::string name;    // the file's path, for messages
  ImportOptions options;
  std::size_t points_before = 0;

  void unread(std::uint32_t line, std::string_view what);
  // True (and listed) when a line is longer than kMaxLine: importers skip it.
  bool skip_long_line(std::string_view line, std::uint32_t number);
  // Completes algbw/busbw from bytes, time and ranks when the file did not
  // give them, and stores the point.
  void add(ImportedPoint p);
};

void import_ccbench_jsonl(std::string_view text, ImportContext& ctx);
void import_ccbench_csv(std::string_view text, ImportContext& ctx);
void import_ccbench_table(std::string_view text, ImportContext& ctx);
void import_nccl_tests_text(std::string_view text, ImportContext& ctx);
// The rows of nccl-tests' layout alone (also under a ccbench table's header).
void import_nccl_tests_rows(std::string_view text, ImportContext& ctx);
void import_nccl_tests_json(std::string_view text, ImportContext& ctx);
void import_osu(std::string_view text, ImportContext& ctx);
void import_imb(std::string_view text, ImportContext& ctx);
// NCCL Inspector's records of a production job (nccl_inspector.cpp): JSON
// Lines, or its Prometheus dump; grouped per collective, ranks, nodes and
// size bucket.
void import_nccl_inspector_json(std::string_view text, ImportContext& ctx);
void import_nccl_inspector_prom(std::string_view text, ImportContext& ctx);

// "all_reduce_perf", "/opt/nccl-tests/build/all_reduce_perf" -> "all_reduce";
// "" when the name is not a known collective.
std::string collective_from_program(std::string_view program);

// The collective a file name names, when it names exactly one: people call
// nccl-tests logs allreduce.log, all-reduce.txt, AllReduce_8n.out,
// all_reduce_perf.log or ar.txt. Words are split at non-alphanumerics and
// matched alone or joined with the next ("all" + "reduce"); a word inside a
// longer match does not count (allreduce is never reduce). "" otherwise.
std::string collective_in_filename(std::string_view path);

// The files of one input: the file itself, or every regular file under a
// folder (recursive, sorted, hidden files and folders skipped). Throws
// ImportError when the path is missing, unlistable or an empty folder.
std::vector<std::string> result_files(const std::string& path);
// A ccbench CSV or saved table beside the JSON Lines of the same run (a.csv
// or a.txt next to a.jsonl, both among `files`): why it is read once, as the
// JSON Lines ("ccbench table: the same run as a.jsonl"); "" otherwise. Reads
// the file's head only.
std::string twin_of_jsonl(const std::string& file, const std::set<std::string>& files);
// Loads one --run: a file, or every regular file under a folder (sorted,
// hidden files skipped). Throws ImportError when the path cannot be read at all.
ResultSet load_result_set(const std::string& label, const std::string& path, const ImportOptions& options);
// Each path as one run (label = path), for commands that need measured points
// from every input (baseline, model): UsageError "COMMAND: PATH: no measured
// points could be read (the first unread line)" or "COMMAND: <import error>".
std::vector<ResultSet> load_measured_runs(const std::vector<std::string>& paths, std::string_view command);
// Imports one file's text into `set` (exposed for tests and benchmarks).
Format import_text(std::string_view text, const std::string& name, ResultSet& set, const ImportOptions& options);

}  // namespace ccb
