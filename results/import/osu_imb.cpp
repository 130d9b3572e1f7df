// OSU micro-benchmarks and IMB-MPI1 output: a header naming the test, a
// column line, then "size value..." rows. Both report sizes per process for
// all-gather, all-to-all, gather and scatter; they are converted to
// nccl-tests' whole-buffer size (x ranks). OSU does not print the rank
// count: --ranks LABEL=N gives it (point-to-point tests are 2 ranks).
#include <fmt/format.h>

#include "collectives/collective.hpp"
#include "results/import/importer.hpp"
#include "results/import/text_input.hpp"

namespace ccb {
namespace {

bool per_process_size(std::string_view collective) {
  return collective == "all_gather" || collective == "alltoall" || collective == "gather" || collective == "scatter";
}

std::string dtype_from_mpi(std::string_view mpi) {
  struct Map {
    std::string_view mpi, dtype;
  };
  static constexpr Map table[] = {{"MPI_CHAR", "int8"},           {"MPI_SIGNED_CHAR", "int8"}, {"MPI_BYTE", "uint8"},
                                  {"MPI_UNSIGNED_CHAR", "uint8"}, {"MPI_INT", "int32"},        {"MPI_FLOAT", "float"},
                                  {"MPI_DOUBLE", "double"},       {"MPI_LONG", "int64"}};
  for (const Map& m : table)
    if (mpi == m.mpi) return std::string(m.dtype);
  return "";
}

// Which ccbench collective an OSU header names ("" when none we compare).
std::string osu_collective(std::string_view h) {
  if (contains_icase(h, "Multiple") || contains_icase(h, "Barrier") || contains_icase(h, "Allgatherv") ||
      contains_icase(h, "Alltoallv") || contains_icase(h, "Non-blocking") || contains_icase(h, "One Sided"))
    return "";
  if (contains_icase(h, "Allreduce")) return "all_reduce";
  if (contains_icase(h, "Reduce_scatter") || contains_icase(h, "Reduce-Scatter")) return "reduce_scatter";
  if (contains_icase(h, "Allgather")) return "all_gather";
  if (contains_icase(h, "All-to-All") || contains_icase(h, "Alltoall")) return "alltoall";
  if (contains_icase(h, "Broadcast") || contains_icase(h, "Bcast")) return "broadcast";
  if (contains_icase(h, "Reduce")) return "reduce";
  if (contains_icase(h, "Gather")) return "gather";
  if (contains_icase(h, "Scatter")) return "scatter";
  if (contains_icase(h, "Bi-Directional Bandwidth")) return "bi_bw";
  if (contains_icase(h, "Bandwidth")) return "uni_bw";
  if (contains_icase(h, "Latency Test")) return "pingpong";
  return "";
}

bool point_to_point(std::string_view name) {
  const Collective* c = find_collective(name);
  return c && c->point_to_point;
}

// Splits an OSU column line on runs of two or more spaces.
std::vector<std::string> osu_columns(std::string_view h) {
  std::vector<std::string> cols;
  std::size_t i = 0;
  while (i < h.size()) {
    while (i < h.size() && h[i] == ' ') ++i;
    std::size_t j = i;
    while (j < h.size() && !(h[j] == ' ' && (j + 1 == h.size() || h[j + 1] == ' '))) ++j;
    if (j > i) cols.emplace_back(h.substr(i, j - i));
    i = j;
  }
  return cols;
}

struct PeerTable {
  std::string collective, test;  // collective "" = not compared
  int time_col = -1, bw_col = -1;
  // A bandwidth figure counts this many messages of the row's size per
  // message time: 2 where both directions are summed (OSU osu_bibw, IMB
  // Biband), and IMB's Uniband/Biband sum over the num_procs/2 pairs too.
  double directions = 1;
  bool summed_over_pairs = false;
  std::string dtype, op;
  std::string memory = "host";
  int ranks = 0;
  bool complained = false;
};

// One row "size v1 v2 ..." of either tool's table.
void table_row(std::string_view l, std::uint32_t number, PeerTable& t, ImportContext& ctx, const char* tool) {
  std::string_view tok[24];
  const std::size_t n = split_tokens(l, tok);
  const auto size = parse_uint(tok[0]);
  if (!size) return;
  if (t.collective.empty()) {
    if (!t.complained && !t.test.empty())
      ctx.unread(number,
                 fmt::format("{} test {}: not one ccbench compares; its rows are skipped", tool, quote_value(t.test)));
    t.complained = true;
    return;
  }
  const int col = t.time_col >= 0 ? t.time_col : t.bw_col;
  if (col < 0) {
    if (!t.complained) ctx.unread(number, fmt::format("{} row before a column line naming latency or bandwidth", tool));
    t.complained = true;
    return;
  }
  if (n > 24 || static_cast<std::size_t>(col) >= n) {
    ctx.unread(number, fmt::format("{} row has {} fields, expected at least {} (truncated line?)", tool, n, col + 1));
    return;
  }
  const auto value = parse_double(tok[col]);
  if (!value || *value < 0 || (t.time_col >= 0 && *value == 0 && *size > 0)) {
    ctx.unread(number, fmt::format("{} value {} is not a positive number", tool, quote_value(tok[col])));
    return;
  }
  const int ranks = t.ranks > 0 ? t.ranks : ctx.options.ranks;
  if (per_process_size(t.collective) && ranks <= 0) {
    if (!t.complained)
      ctx.unread(number, fmt::format("{} {}: sizes are per process and the file does not say how many ranks ran; "
                                     "give --ranks LABEL=N; rows skipped",
                                     tool, t.collective));
    t.complained = true;
    return;
  }
  ImportedPoint p;
  p.collective = t.collective;
  p.dtype = t.dtype;
  p.op = t.op;
  p.path = "auto";
  p.memory = t.memory;
  p.ranks = ranks;
  p.in_place = 0;
  p.bytes = per_process_size(t.collective) ? *size * static_cast<std::uint64_t>(ranks) : *size;
  if (t.time_col >= 0) {
    p.time_us = *value;
  } else {                   // MB/s (1e6 bytes/s): the time of one message (each way, each pair) at that rate
    if (*size == 0) return;  // IMB's 0-byte row of a bandwidth test: no bandwidth, no time
    if (*value <= 0) return ctx.unread(number, fmt::format("{} bandwidth 0: no time to compare", tool));
    const double messages = t.directions * (t.summed_over_pairs ? std::max(1, ranks / 2) : 1);
    p.time_us = messages * static_cast<double>(*size) / *value;
  }
  if (*size == 0) p.time_us = std::max(p.time_us, 1e-9);
  p.line = number;
  ctx.add(std::move(p));
}

}  // namespace

void import_osu(std::string_view text, ImportContext& ctx) {
  LineReader lines(text);
  std::string_view raw;
  PeerTable t;
  while (lines.next(raw)) {
    if (ctx.skip_long_line(raw, lines.number())) continue;
    const std::string_view l = trim(strip_mpirun_tag(raw));
    if (l.empty()) continue;
    if (l.front() != '#') {
      table_row(l, lines.number(), t, ctx, "OSU");
      continue;
    }
    const std::string_view h = trim(l.substr(1));
    if (h.starts_with("OSU ")) {
      t = PeerTable{};
      t.test = std::string(h);
      t.collective = osu_collective(h);
      if (point_to_point(t.collective)) t.ranks = 2;
      if (t.collective == "bi_bw") t.directions = 2;  // osu_bibw: size * window * 2 / time
      const bool reduces = t.collective == "all_reduce" || t.collective == "reduce" || t.collective == "reduce_scatter";
      t.op = reduces ? "sum" : "-";
      if (contains_icase(h, "CUDA") || contains_icase(h, "ROCm")) t.memory = "device";
      const std::size_t v = h.rfind(" v");
      if (v != std::string_view::npos) ctx.set.note_env("versions.osu", std::string(h.substr(v + 2)));
      ctx.set.note_env("tool", "OSU micro-benchmarks");
    } else if (h.starts_with("Datatype:")) {
      std::string_view d = trim(h.substr(9));
      if (!d.empty() && d.back() == '.') d.remove_suffix(1);
      t.dtype = dtype_from_mpi(d);
    } else if (contains_icase(h, "Buffer on DEVICE")) {
      t.memory = "device";
    } else if (h.starts_with("Size")) {
      const auto cols = osu_columns(h);
      for (std::size_t i = 0; i < cols.size(); ++i) {
        if (t.time_col < 0 && (cols[i] == "Avg Latency(us)" || cols[i] == "Latency (us)" || cols[i] == "Latency(us)"))
          t.time_col = static_cast<int>(i);
        if (t.bw_col < 0 && (cols[i] == "Bandwidth (MB/s)" || cols[i] == "MB/s")) t.bw_col = static_cast<int>(i);
      }
    }
  }
}

namespace {

// IMB's column line (#bytes #repetitions t_min[usec] ...): which columns hold the time and the bandwidth.
void imb_columns(std::string_view l, PeerTable& t) {
  std::string_view tok[16];
  const std::size_t n = std::min<std::size_t>(split_tokens(l, tok), 16);
  t.time_col = -1;
  t.bw_col = -1;
  for (std::size_t i = 0; i < n; ++i) {
    if (tok[i] == "t_avg[usec]" || (tok[i] == "t[usec]" && t.time_col < 0)) t.time_col = static_cast<int>(i);
    if (tok[i] == "Mbytes/sec" && t.bw_col < 0) t.bw_col = static_cast<int>(i);
  }
}

// The datatypes and op the file's header set, for the blocks after it.
struct HeaderTypes {
  const std::string &dtype, &reduce_dtype, &op;
};

// A "# Benchmarking NAME" block: its collective, and the header's datatype and op where it reduces.
PeerTable imb_block(const std::string& name, const HeaderTypes& r, std::uint32_t line, bool& multi_said,
                    ImportContext& ctx) {
  static const std::pair<std::string_view, std::string_view> names[] = {{"PingPong", "pingpong"},
                                                                        {"Sendrecv", "sendrecv"},
                                                                        {"Allreduce", "all_reduce"},
                                                                        {"Reduce", "reduce"},
                                                                        {"Reduce_scatter", "reduce_scatter"},
                                                                        {"Allgather", "all_gather"},
                                                                        {"Alltoall", "alltoall"},
                                                                        {"Bcast", "broadcast"},
                                                                        {"Gather", "gather"},
                                                                        {"Scatter", "scatter"},
                                                                        {"Uniband", "uni_bw"},
                                                                        {"Biband", "bi_bw"}};
  PeerTable t;
  t.test = name;
  for (const auto& [imb, ours] : names)
    if (name == imb) t.collective = std::string(ours);
  // Uniband, Biband: Mbytes/sec = directions x window x (num_procs/2) x size / time.
  t.summed_over_pairs = t.collective == "uni_bw" || t.collective == "bi_bw";
  if (t.collective == "bi_bw") t.directions = 2;
  if (name.starts_with("Multi-")) {  // several groups at once: said once per file
    if (!multi_said)
      ctx.unread(line,
                 "IMB Multi-* benchmarks (several groups at once) are not compared; "
                 "their rows are skipped (said once per file)");
    multi_said = true;
    t.complained = true;
  }
  const bool reduces = t.collective == "all_reduce" || t.collective == "reduce" || t.collective == "reduce_scatter";
  t.dtype = reduces ? r.reduce_dtype : r.dtype;
  t.op = reduces ? r.op : "-";
  ctx.set.note_env("tool", "IMB-MPI1");
  return t;
}

}  // namespace

void import_imb(std::string_view text, ImportContext& ctx) {
  LineReader lines(text);
  std::string_view raw;
  PeerTable t;
  std::string dtype = "uint8", reduce_dtype = "float", op = "sum";
  bool multi_said = false;
  while (lines.next(raw)) {
    if (ctx.skip_long_line(raw, lines.number())) continue;
    const std::string_view l = trim(strip_mpirun_tag(raw));
    if (l.empty()) continue;
    if (l.starts_with("#bytes")) {  // column line
      imb_columns(l, t);
      continue;
    }
    if (l.front() != '#') {
      table_row(l, lines.number(), t, ctx, "IMB");
      continue;
    }
    const std::string_view h = trim(l.substr(1));
    const auto value_after_colon = [&] { return std::string(trim(h.substr(h.find(':') + 1))); };
    if (h.starts_with("Benchmarking ")) {
      t = imb_block(std::string(trim(h.substr(13))), HeaderTypes{dtype, reduce_dtype, op}, lines.number(), multi_said,
                    ctx);
    } else if (h.starts_with("#processes = ")) {
      const std::string_view value = trim(h.substr(13));
      const auto n = parse_uint(value);
      if (n && *n > 0 && *n < (1u << 24)) {
        t.ranks = static_cast<int>(*n);
      } else {
        ctx.unread(lines.number(),
                   fmt::format("IMB #processes {} is not a process count; the block is skipped", quote_value(value)));
        t.collective.clear();
        t.complained = true;
      }
    } else if (h.starts_with("MPI_Datatype for reductions")) {
      reduce_dtype = dtype_from_mpi(value_after_colon());
    } else if (h.starts_with("MPI_Datatype")) {
      dtype = dtype_from_mpi(value_after_colon());
    } else if (h.starts_with("MPI_Op")) {
      const std::string v = value_after_colon();
      op = v == "MPI_SUM" ? "sum" : v == "MPI_MAX" ? "max" : v == "MPI_MIN" ? "min" : v == "MPI_PROD" ? "prod" : "";
    } else if (h.starts_with("Intel(R) MPI Benchmarks")) {
      ctx.set.note_env("versions.imb", std::string(trim(h.substr(23, h.find(',') - 23))));
    } else if (h.starts_with("MPI Version")) {
      ctx.set.note_env("versions.mpi_standard", value_after_colon());
    } else if (h.starts_with("Machine")) {
      ctx.set.note_env("hardware.machine", value_after_colon());
    }
  }
}

}  // namespace ccb
