// nccl-tests' stdout: header lines starting with '#', then one row per size:
//   size count type [redop] [root] { time algbw busbw #wrong|error [i_min i_max i_p99 i_cv%] } x2 [timestamp]
// The column header line decides the layout; every one nccl-tests has printed
// is read (docs/compare.md lists them): before 2.13 each test printed its own
// leading columns (all_gather, sendrecv, hypercube: size count type;
// all_reduce, reduce_scatter, alltoall: + redop; broadcast, gather, scatter:
// + root; reduce: + redop root) and an 'error' column (the largest deviation);
// from 2.13 all print size count type redop root and '#wrong'; per-iteration
// columns and a timestamp came later. Without a header the token count (and
// whether the fourth token is a number: a root) tells the layout. Several runs
// may be concatenated; mpirun noise and NCCL INFO lines between rows are
// skipped; a row or line where the test reported a failure ("Test CUDA
// failure ...") is listed as where the run failed.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "collectives/collective.hpp"
#include "results/import/importer.hpp"
#include "results/import/text_input.hpp"

namespace ccb {
namespace {

struct Layout {
  bool known = false;
  std::size_t lead = 5;   // size count type [redop] [root]
  int op_at = 3;          // the redop column; -1: not printed (an op-less test before 2.13)
  std::size_t group = 4;  // time algbw busbw wrong [i_min i_max i_p99 i_cv%]
  bool error_column = false;
};

// The failure nccl-tests printed (CUDACHECK, NCCLCHECK, TESTCHECK) when the
// line carries one, from its "Test ... failure" on: a row cut by one reads
// "32768  8192  float  sum  0 ... 0gpu-node1: Test CUDA failure common.cu:892
// 'an illegal memory access was encountered'". "" when the line has none.
std::string_view failure_in(std::string_view l) {
  for (std::string_view mark : {"Test CUDA failure", "Test NCCL failure", "Test failure"})
    if (const std::size_t at = l.find(mark); at != std::string_view::npos) return trim(l.substr(at));
  return {};
}

// nccl's version code: 2.9+ is major*10000 + minor*100 + patch.
std::string nccl_version_from_code(std::string_view code) {
  const auto v = parse_uint(code);
  if (!v || *v == 0) return std::string(code);
  if (*v >= 20900) return fmt::format("{}.{}.{}", *v / 10000, *v / 100 % 100, *v % 100);
  return fmt::format("{}.{}.{}", *v / 1000, *v / 100 % 10, *v % 100);
}

class TextImporter {
 public:
  explicit TextImporter(ImportContext& ctx)
      : ctx_(ctx),
        default_collective_(!ctx.options.collective.empty() ? ctx.options.collective
                                                            : collective_in_filename(ctx.name)) {
    collective_ = default_collective_;
  }

  void line(std::string_view raw, std::uint32_t number) {
    std::string_view l = trim(strip_mpirun_tag(raw));
    if (l.empty()) return;
    if (l.front() == '#') return header(l.substr(1), number);
    const std::size_t ncclv = l.find("NCCL version ");
    if (ncclv != std::string_view::npos) {
      std::string_view rest = l.substr(ncclv + 13);
      ctx_.set.note_env("versions.nccl", std::string(rest.substr(0, rest.find_first_of(" +"))));
      return;
    }
    if (l.front() < '0' || l.front() > '9') {  // launcher or library noise, or a failure
      if (const std::string_view f = failure_in(l); !f.empty()) failed(f, number);
      return;
    }
    row(l, number);
  }

 private:
  void new_segment_if_needed() {
    if (!rows_in_segment_) return;
    rows_in_segment_ = false;
    ranks_ = 0;
    host_ranks_ = 0;
    hosts_.clear();
    host_of_rank_.clear();
    summaries_.clear();
    layout_ = Layout{};
    collective_ = default_collective_;
    complained_ = false;
    failure_listed_ = false;
  }

  // Every rank prints its failure: the first of a run is listed.
  void failed(std::string_view failure, std::uint32_t number) {
    if (failure_listed_) return;
    failure_listed_ = true;
    ctx_.unread(number, fmt::format("the run failed here: nccl-tests printed {}", quote_value(failure, 120)));
  }

  void header(std::string_view h, std::uint32_t number) {
    (void)number;
    h = trim(h);
    std::string_view tok[32];
    const std::size_t n = split_tokens(h, tok);
    if (n == 0) return;
    if (h.starts_with("nccl-tests version")) {
      new_segment_if_needed();
      // ccbench writes this line in nccl-tests' layout with "ccbench=V": not nccl-tests' version.
      for (std::size_t i = 3; i < std::min<std::size_t>(n, 32); ++i)
        if (tok[i].starts_with("ccbench=")) return;
      ctx_.set.note_env("versions.nccl_tests", std::string(n > 2 ? tok[2] : ""));
      for (std::size_t i = 3; i < std::min<std::size_t>(n, 32); ++i)
        if (tok[i].starts_with("nccl-library="))
          ctx_.set.note_env("versions.nccl", nccl_version_from_code(tok[i].substr(13)));
    } else if (h.starts_with("Collective test starting:")) {
      new_segment_if_needed();
      const std::string c = n > 3 ? collective_from_program(tok[3]) : "";
      if (!c.empty()) collective_ = c;
    } else if (h.starts_with("nThread ")) {
      new_segment_if_needed();
    } else if (tok[0] == "Rank" && n <= 32) {
      rank_line(tok, n);
    } else if (tok[0] == "NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY:") {
      summaries_.emplace_back();  // alltoallv_perf's per-rank summary: one per timed placement
    } else if (tok[0].starts_with("rank=") && !summaries_.empty() && n <= 32) {
      summary_line(tok, n);
    } else if (tok[0] == "size" && n > 4 && n <= 32 && tok[1] == "count") {
      column_line(tok, n);
    }
  }

  // "#   rank=R send_bytes=S recv_bytes=V alg_bw=A bus_bw=B": the busiest so
  // far of the placement's summary (the larger of S and V; the lower rank on a tie).
  void summary_line(const std::string_view* tok, std::size_t n) {
    std::optional<std::uint64_t> rank, sent, received;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t eq = tok[i].find('=');
      if (eq == std::string_view::npos) continue;
      const std::string_view key = tok[i].substr(0, eq), value = tok[i].substr(eq + 1);
      if (key == "rank") rank = parse_uint(value);
      if (key == "send_bytes") sent = parse_uint(value);
      if (key == "recv_bytes") received = parse_uint(value);
    }
    if (!rank || !sent || !received || *rank >= 1u << 24) return;
    Busiest& b = summaries_.back();
    const std::uint64_t moved = std::max(*sent, *received);
    if (b.rank < 0 || moved > b.bytes) b.rank = static_cast<int>(*rank), b.bytes = moved;
  }

  void rank_line(const std::string_view* tok, std::size_t n) {
    if (n > 2) {
      const auto r = parse_uint(tok[1]);
      for (std::size_t i = 1; r && *r < 1u << 24 && i + 1 < n; ++i)
        if (tok[i] == "on") host_of_rank_[static_cast<int>(*r)] = std::string(tok[i + 1]);
    }
    ++ranks_;
    for (std::size_t i = 1; i + 1 < n; ++i) {
      if (tok[i] == "on") {
        hosts_.insert(std::string(tok[i + 1]));
        ctx_.set.hosts.insert(std::string(tok[i + 1]));
      }
      if (tok[i] == "device" && i + 1 < n && tok[i + 1] == "-1") {  // ccbench's mpi backend: host memory
        ++host_ranks_;
        break;
      }
      if (tok[i] == "device" && i + 3 < n) {
        std::string model;
        for (std::size_t j = i + 3; j < n; ++j) model += (model.empty() ? "" : " ") + std::string(tok[j]);
        ctx_.set.note_env("hardware.gpu", model);
        break;
      }
    }
  }

  void column_line(const std::string_view* tok, std::size_t n) {
    Layout l;
    std::size_t first_time = 0;
    while (first_time < n && tok[first_time] != "time" && tok[first_time] != "cputime") ++first_time;
    if (first_time < 3 || first_time > 5 || first_time == n || tok[2] != "type") return;
    l.lead = first_time;
    l.op_at = -1;
    for (std::size_t i = 3; i < first_time; ++i) {
      if (tok[i] == "redop") l.op_at = static_cast<int>(i);
      else if (tok[i] != "root") return;
    }
    std::size_t next = first_time + 1;
    while (next < n && tok[next] != "time" && tok[next] != "cputime") ++next;
    l.group = next < n ? next - first_time : std::min<std::size_t>(n - first_time, 8);
    if (l.group != 4 && l.group != 8) return;
    l.error_column = tok[first_time + 3] == "error";
    l.known = true;
    layout_ = l;
    if (tok[first_time] == "cputime") ctx_.set.note_env("timing.nccl_tests", "cputime (host clock)");
  }

  // Whether a row of n tokens is this layout's: one or two groups, and at most a timestamp after them.
  static bool fits(const Layout& l, std::size_t n) {
    return n == l.lead + l.group || n == l.lead + 2 * l.group || n == l.lead + 2 * l.group + 1;
  }

  // No column header seen: the token count tells the layout. Before 2.13
  // (an 'error' column) a test printed 3 leading columns (11 or 7 fields),
  // 4 (12 or 8: redop, or root when the fourth is a number) or 5 (13 or 9).
  static Layout guess(const std::string_view* tok, std::size_t n) {
    Layout l;
    if (n >= 20) l.group = 8;
    if (n == 11 || n == 7) l.lead = 3, l.op_at = -1;
    if (n == 20 || n == 12 || n == 8) l.lead = 4;
    if (l.lead == 4 && n > 3 && parse_uint(tok[3])) l.op_at = -1;
    l.error_column = n == 12 || n == 8 || n == 11 || n == 7;
    return l;
  }

  void row(std::string_view l, std::uint32_t number) {
    std::string_view tok[32];
    const std::size_t n = split_tokens(l, tok);
    const auto size = parse_uint(tok[0]);
    if (!size) {
      // A run of digits that does not fit is a broken row; "8x..." or a date is not a row at all.
      if (n <= 32 && tok[0].find_first_not_of("0123456789") == std::string_view::npos)
        ctx_.unread(number, fmt::format("size {} is not a byte count", quote_value(tok[0])));
      return;
    }
    rows_in_segment_ = true;
    if (const std::string_view f = failure_in(l); !f.empty()) return failed(f, number);
    Layout lay = layout_.known ? layout_ : guess(tok, n);
    // A header that names a redop column over rows that print none (some
    // versions print an empty op for alltoall): the rows' own token count
    // decides, not the header.
    if (layout_.known && lay.op_at >= 0 && !fits(lay, n)) {
      Layout without = lay;
      without.lead -= 1, without.op_at = -1;
      if (fits(without, n)) lay = without;
    }
    if (n > 32 || n < lay.lead + lay.group) {
      ctx_.unread(number, fmt::format("nccl-tests row has {} fields, expected {} or {} (truncated line?)",
                                      n > 32 ? std::string("too many") : std::to_string(n), lay.lead + lay.group,
                                      lay.lead + 2 * lay.group));
      return;
    }
    if (collective_.empty()) {
      if (!complained_)
        ctx_.unread(number,
                    "cannot tell which collective this nccl-tests table measured: no '# Collective test starting' line "
                    "and the file name names exactly one (e.g. all_reduce.log); its rows are skipped (compare "
                    "--collective LABEL=NAME says it)");
      complained_ = true;
      return;
    }
    for (int k : {2, lay.op_at})
      if (k >= 0 && tok[k].find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
                        std::string_view::npos)
        return ctx_.unread(number, fmt::format("{} {} is not {} name", k == 2 ? "type" : "redop", quote_value(tok[k]),
                                               k == 2 ? "a type" : "an op"));
    if (collective_symbol_ != collective_) {  // looked up when the table's collective changes, not per row
      collective_symbol_ = Symbol(collective_);
      const Collective* c = find_collective(collective_);
      collective_reduces_ = !c || c->reduces;
    }
    static const Symbol kAuto("auto"), kDevice("device"), kHost("host"), kNone("-");
    const Symbol dtype = symbol(tok[2], last_dtype_text_, last_dtype_);
    // An op-less collective's redop column ("none" from 2.13; before, alltoall printed the -o op) is no op.
    const bool no_op = lay.op_at < 0 || tok[lay.op_at] == "none" || !collective_reduces_;
    const Symbol op = no_op ? kNone : symbol(tok[lay.op_at], last_op_text_, last_op_);
    const auto count = parse_uint(tok[1]);
    if (!count) return ctx_.unread(number, fmt::format("count {} is not a whole number", quote_value(tok[1])));
    for (std::size_t g = 0; g < 2; ++g) {
      const std::size_t at = lay.lead + g * lay.group;
      if (at + lay.group > n) break;
      ImportedPoint p;
      p.collective = collective_symbol_;
      p.dtype = dtype;
      p.op = op;
      p.path = kAuto;
      p.memory = ranks_ > 0 && host_ranks_ == ranks_ ? kHost : kDevice;
      p.ranks = ranks_;
      p.nodes = static_cast<int>(hosts_.size());
      p.in_place = static_cast<int>(g);
      p.bytes = *size;
      const auto time = parse_double(tok[at]);
      const auto algbw = parse_double(tok[at + 1]);
      const auto busbw = parse_double(tok[at + 2]);
      if (!time || *time <= 0 || !algbw || !busbw || *algbw < 0 || *busbw < 0) {
        ctx_.unread(number, fmt::format("{}: time/algbw/busbw {} {} {} are not non-negative numbers",
                                        g ? "in-place" : "out-of-place", quote_value(tok[at]), quote_value(tok[at + 1]),
                                        quote_value(tok[at + 2])));
        continue;
      }
      p.time_us = *time;
      p.algbw_gbps = *algbw;
      p.busbw_gbps = *busbw;
      const auto w = parse_double(tok[at + 3]);
      if (w && lay.error_column) p.wrong = *w == 0 ? 0 : 1;
      else if (const auto count = w ? count_from_double(*w) : std::nullopt) p.wrong = count;
      else if (tok[at + 3] != "N/A")
        ctx_.unread(number, fmt::format("wrong-element count {} is not a number", quote_value(tok[at + 3])));
      if (g < summaries_.size() && summaries_[g].rank >= 0) {
        p.busiest_rank = summaries_[g].rank, p.busiest_bytes = summaries_[g].bytes;
        if (const auto h = host_of_rank_.find(p.busiest_rank); h != host_of_rank_.end()) p.busiest_host = h->second;
      }
      p.line = number;
      ctx_.add(std::move(p));
    }
    summaries_.clear();  // a row's summaries precede it
  }

  // The last dtype and op tokens and their symbols: rows repeat them.
  Symbol symbol(std::string_view token, std::string& last_text, Symbol& last) {
    if (token != last_text) last_text = std::string(token), last = Symbol(token);
    return last;
  }

  ImportContext& ctx_;
  std::string default_collective_, collective_;
  Symbol collective_symbol_;
  bool collective_reduces_ = true;  // of collective_symbol_ (an unknown name: its redop column is kept)
  std::string last_dtype_text_, last_op_text_;
  Symbol last_dtype_, last_op_;
  Layout layout_;
  int ranks_ = 0;
  int host_ranks_ = 0;  // rank lines of device -1 (host memory)
  std::set<std::string> hosts_;
  std::map<int, std::string> host_of_rank_;  // from the '#  Rank' lines
  struct Busiest {
    int rank = -1;
    std::uint64_t bytes = 0;
  };
  std::vector<Busiest> summaries_;  // alltoallv_perf's summaries since the last row (out-of-place, in-place)
  bool rows_in_segment_ = false, complained_ = false, failure_listed_ = false;
};

}  // namespace

void import_nccl_tests_rows(std::string_view text, ImportContext& ctx) {
  TextImporter importer(ctx);
  LineReader lines(text);
  std::string_view l;
  while (lines.next(l)) {
    if (ctx.skip_long_line(l, lines.number())) continue;
    importer.line(l, lines.number());
  }
}

void import_nccl_tests_text(std::string_view text, ImportContext& ctx) {
  import_nccl_tests_rows(text, ctx);
  ctx.set.note_env("tool", "nccl-tests");
}

}  // namespace ccb
