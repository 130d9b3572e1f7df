// The sweep's command-line options, declared once: each row gives the flag
// spellings, its value's name, its help paragraph (defaults formatted in from
// a default Config, so that --help cannot drift from them) and where the
// parser puts what was typed. commands/cli.cpp parses with the rows;
// options_help() renders them as `ccbench --help` lists them.
#pragma once
#include <string>
#include <vector>

#include "harness/config.hpp"

namespace ccb {

// Every option as typed ("" = not given), before any is interpreted.
struct RawArgs {
  bool help = false, version = false, fixed_buffers = false, buffer_shift = false, json_given = false;
  std::string collective, minb, maxb, stepb, factor, iters, warmup, check, op, dtype, root, block, avg, timeout, timing,
      warmup_order, window, path, backend, memory, ngpus, graph, reg, bind, plan, precision, time_per_size, max_time,
      max_iters, sync, progress, split, mpi_calls, bitwise, traffic, link_rate, nics;
  // nccl-tests' flags ccbench has no own use for (nccl_tests_flags).
  std::string nthreads, agg_iters, run_cycles, parallel_init, stream_null, cputime, timestamps, per_iter, per_iter_skip,
      device_impl, device_ctas, memory_report, cta_policy, unalign;
};

struct OptionRow {
  const char* section;          // the --help section it is listed under; nullptr: described elsewhere
  const char* flags;            // CLI11's spelling: "-b,--minbytes", "--csv"
  const char* value;            // the value's name in --help ("SIZE"); nullptr: a flag without a value
  std::string help;             // one paragraph, wrapped when rendered
  std::string* text = nullptr;  // where a value goes
  bool* flag = nullptr;         // where a flag goes
  bool value_optional = false;  // the value may be left out (-J: topo's --json [FILE])
};

// "a b c" from the names of a table's rows.
template <class Rows>
std::string joined(const Rows& rows) {
  std::string s;
  for (const auto& r : rows) s += (s.empty() ? "" : " ") + std::string(r.name);
  return s;
}
// The names of the collectives, dtypes and ops, space-separated.
std::string joined_collectives();
std::string joined_dtypes();
std::string joined_ops();

// The rows, bound to `raw` and `cfg` (the parser's), in --help order.
std::vector<OptionRow> option_rows(RawArgs& raw, Config& cfg);

// The option sections of `ccbench --help`, from the rows. `between` is
// printed after the named section (text the rows do not cover).
std::string options_help(const char* after_section, const std::string& between);

}  // namespace ccb
