#include "commands/cli_errors.hpp"
#include "commands/option_table.hpp"
#include "commands/io_command.hpp"
#include "harness/run_outputs.hpp"
#include "commands/run_exports.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <memory>
#include <sstream>

#include "common/checked_math.hpp"
#include "common/errors.hpp"
#include "common/sizes.hpp"
#include "harness/every_rank_passes.hpp"
#include "harness/watchdog.hpp"
#include "harness/faults.hpp"
#include "harness/run_info.hpp"
#include "harness/sweep_sizes.hpp"
#include "harness/stop_signals.hpp"
#include "io/engine.hpp"
#include "io/io_memory.hpp"
#include "io/io_run.hpp"
#include "io/workspace.hpp"
#include "results/output_file.hpp"
#include "common/terminal_text.hpp"
#include "results/writers.hpp"

namespace ccb {
namespace {

constexpr const char* kIoHelp = R"(usage: ccbench io DIR [options]

Measures how fast data moves between the storage under DIR and memory (and on
to a GPU): one process, or one per rank under mpirun/srun (ranks start each
point together after a barrier). ccbench works in its own new subfolder of
DIR and removes it at the end, after an error and on SIGINT/SIGTERM (--keep
leaves it); it never opens a file it did not create.

OPTIONS
Columns: block = request size in bytes (dataset: the file size); moved =
bytes all ranks moved; time = mean time per request from submission to
completion over all ranks and threads (dataset: open, read and close of one
file; checkpoint: time to persist, the slowest rank's writes and fsync of its
new shard (created just before the clock starts), in
seconds); p99 = the 99th percentile of the same; elapsed = the slowest
rank's pass, from the common start to its last completion (writes: including
the final fsync); GB/s = moved / elapsed (1e9 B/s, IOR's aggregate); IOPS =
requests / elapsed (dataset: files/s); cached = share of the data still in
the page cache when a buffered read pass began (its pages are dropped with
posix_fadvise DONTNEED first; above 5% the row carries a warning); #wrong =
blocks that did not verify (each 512-byte sector is stamped with its file
and offset; the body is ccbench's data pattern).

Before anything is written: DIR must exist, be a folder and be writable, and
its file system must have room for the plan (the whole job's on a shared file
system such as NFS or Lustre, this node's ranks' on a local one).
Exit codes: 0 done, 1 an I/O error (the message names file and offset), 2 bad
input, 3 data did not verify, 5 an output could not be written, 130/143 stopped
by SIGINT/SIGTERM. docs/io.md: definitions and the comparison with fio.
)";

std::string patterns_help() {
  std::string out;
  for (const IoPatternRow& r : io_patterns())
    out += fmt::format("                         {:<11} {}\n", r.name, r.what);
  out.pop_back();
  return out;
}

}  // namespace

std::vector<IoPattern> parse_io_patterns(const std::string& text) {
  std::vector<IoPattern> out;
  if (text == "all") {
    for (const IoPatternRow& r : io_patterns()) out.push_back(r.id);
    return out;
  }
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const auto it =
        std::find_if(io_patterns().begin(), io_patterns().end(), [&](const IoPatternRow& r) { return r.name == item; });
    if (it == io_patterns().end()) {
      std::string names;
      for (const IoPatternRow& r : io_patterns()) names += (names.empty() ? "" : " ") + std::string(r.name);
      throw UsageError(fmt::format("-p/--pattern '{}': not a pattern (one of: {}; or all)", item, names));
    }
    if (std::find(out.begin(), out.end(), it->id) == out.end()) out.push_back(it->id);
  }
  return out;
}

IoEngineKind parse_io_engine(const std::string& text) {
  if (text == "psync") return IoEngineKind::psync;
  if (text == "io_uring") return IoEngineKind::io_uring;
  throw UsageError(fmt::format("--engine '{}': unknown (allowed: io_uring, psync)", text));
}

namespace {

std::size_t size_arg(const char* flag, const std::string& text) {
  const auto v = parse_size(text);
  if (!v) throw UsageError(fmt::format("{} {}", flag, size_error(text)));
  return *v;
}

std::string mode_of(const IoOptions& o) {
  return fmt::format("{} {} qd{} x{} {}", o.direct ? "direct" : "buffered", name(o.engine), o.queue_depth, o.threads,
                     o.shared_file ? "shared-file" : "file-per-rank");
}

// One rank's result as text for gathering.
std::string encode(const IoRankResult& r) {
  return fmt::format("{} {} {} {} {} {}|{}", r.bytes, r.ops, r.elapsed_s,
                     r.wrong_blocks ? static_cast<long long>(*r.wrong_blocks) : -1LL, r.resident_before,
                     r.cut_short ? 1 : 0, r.latency.encode());
}

IoRankResult decode(const std::string& text) {
  IoRankResult r;
  std::istringstream in(text.substr(0, text.find('|')));
  long long wrong = -1;
  int cut = 0;
  in >> r.bytes >> r.ops >> r.elapsed_s >> wrong >> r.resident_before >> cut;
  if (wrong >= 0) r.wrong_blocks = static_cast<std::uint64_t>(wrong);
  r.cut_short = cut != 0;
  r.latency = LatencyHistogram::decode(text.substr(text.find('|') + 1));
  return r;
}

PointRecord make_record(const IoOptions& o, IoPattern p, std::size_t block, const std::vector<std::string>& ranks,
                        int nodes) {
  PointRecord rec;
  IoPointInfo io;
  io.pattern = std::string(row(p).name);
  io.mode = mode_of(o);
  LatencyHistogram latency;
  std::optional<std::uint64_t> wrong;
  double resident_sum = 0;
  int resident_n = 0;
  for (const std::string& text : ranks) {
    const IoRankResult r = decode(text);
    io.bytes_moved += r.bytes;
    io.ops += r.ops;
    io.elapsed_s = std::max(io.elapsed_s, r.elapsed_s);
    io.rank_gbps.push_back(r.elapsed_s > 0 ? static_cast<double>(r.bytes) / r.elapsed_s / 1e9 : 0);
    io.cut_short = io.cut_short || r.cut_short;
    latency.merge(r.latency);
    if (r.wrong_blocks) wrong = wrong.value_or(0) + *r.wrong_blocks;
    if (r.resident_before >= 0) resident_sum += r.resident_before, ++resident_n;
  }
  io.resident_before = resident_n ? resident_sum / resident_n : -1;
  io.gbps = io.elapsed_s > 0 ? static_cast<double>(io.bytes_moved) / io.elapsed_s / 1e9 : 0;
  io.iops = io.elapsed_s > 0 ? static_cast<double>(io.ops) / io.elapsed_s : 0;
  rec.collective = "io_" + io.pattern;
  rec.ranks = static_cast<int>(ranks.size());
  rec.nodes = nodes;
  rec.requested_bytes = rec.bytes = block;
  rec.count = io.ops;
  rec.iterations = 1;
  Measurement& pl = rec.out_of_place;
  pl.measured = true;
  const Summary s = latency.summary();
  if (p == IoPattern::checkpoint) {
    pl.time_us = io.elapsed_s * 1e6;
    pl.time_source = "time to persist: the slowest rank from the common start to its fsync";
  } else {
    pl.time_us = s.mean;
    pl.time_source = p == IoPattern::dataset ? "mean per file (open, read, close) over all ranks and threads"
                                             : "mean per request (submission to completion) over all ranks and threads";
    pl.per_iteration_us = s;
    pl.per_iteration_count = static_cast<long>(s.n);
  }
  pl.algbw_gbps = pl.busbw_gbps = io.gbps;
  pl.wrong = wrong;
  std::vector<std::string> notes;
  if (io.cut_short)
    notes.push_back(fmt::format("pass cut short (--time-per-size or a signal): {} of {} bytes", io.bytes_moved,
                                p == IoPattern::dataset ? sat_mul(sat_mul(o.dataset_files, block), ranks.size())
                                                        : sat_mul(o.file_bytes / block * block, ranks.size())));
  if (io.resident_before > 0.05)
    notes.push_back(
        fmt::format("WARNING: {:.0f}% of the data was in the page cache when the pass began: the rate may "
                    "be the cache's, not the storage's",
                    io.resident_before * 100));
  for (const std::string& n : notes) pl.note += (pl.note.empty() ? "" : "; ") + n;
  rec.io = std::move(io);
  return rec;
}

// -T's watchdog while io runs: every request a thread is about to issue
// (IoRank polls its stop function before each) restarts its idle clock.
std::atomic<Watchdog*> io_watchdog{nullptr};

bool stop_requested() {
  if (Watchdog* w = io_watchdog.load(std::memory_order_relaxed)) w->touch();
  return stop_signal() != 0;
}

}  // namespace

namespace {

// What io's options hold as typed, before they are read into IoOptions.
struct IoRaw {
  std::string patterns = "seq_read", min_b = "1M", max_b, step_i, engine = have_io_uring() ? "io_uring" : "psync",
              memory = "pageable", file_size = size_as_typed(IoOptions{}.file_bytes);
  long factor = 2;
  bool help = false, quiet = false;
};

// The options, declared once (commands/option_table.hpp).
std::vector<CommandOption> io_options(IoArgs& a, IoRaw& r) {
  IoOptions& o = a.options;
  const CLI::Validator seconds(
      [](std::string& v) {
        char* end = nullptr;
        const double d = std::strtod(v.c_str(), &end);
        const bool ok = !v.empty() && end == v.c_str() + v.size() && std::isfinite(d) && d >= 0 && d <= 86400;
        return ok ? std::string() : std::string("expected seconds from 0 to 86400");
      },
      "SECONDS");
  return {
      option("-p,--pattern", "LIST",
             fmt::format("comma separated, or all (default {}):\n", r.patterns) + patterns_help(), r.patterns),
      option("-b,--minbytes", "S",
             fmt::format("smallest block (request) size; dataset: file size (default {})", r.min_b), r.min_b),
      option("-e,--maxbytes", "S", "largest block size (default: -b)", r.max_b),
      option("-f,--stepfactor", "F", fmt::format("multiply the block size by F (default {})", r.factor), r.factor),
      option("-i,--stepbytes", "S", "add S to the block size instead of multiplying", r.step_i),
      option("--file-size", "S",
             fmt::format("bytes per rank: its file, or its region of the shared file; the checkpoint shard "
                         "(default {})",
                         r.file_size),
             r.file_size),
      option_in("--threads", "N", fmt::format("threads per rank, each with its own requests (default {})", o.threads),
                o.threads, 1, 1024),
      option_in("--qd", "N", fmt::format("requests in flight per thread (default {}; io_uring only)", o.queue_depth),
                o.queue_depth, 1, 4096),
      checked(option("--engine", "E", fmt::format("io_uring or psync (default {})", r.engine), r.engine),
              CLI::IsMember({"io_uring", "psync"})),
      flag("--direct", "O_DIRECT: no page cache", o.direct),
      flag("--shared-file", "one file for all ranks, each its own region (default: one file per rank)", o.shared_file),
      checked(option("--memory", "M",
                     fmt::format("pageable, pinned (cudaHostAlloc) or device: reads go on to the rank's GPU "
                                 "(double-buffered copies that overlap the reads; read patterns only; default {})",
                                 r.memory),
                     r.memory),
              CLI::IsMember({"pageable", "pinned", "device"})),
      option("--read-percent", "P", fmt::format("mixed: share of reads (default {})", o.read_percent), o.read_percent),
      option_in("--files", "N", fmt::format("dataset: files per rank (default {})", o.dataset_files), o.dataset_files,
                std::size_t{1}, std::size_t{10000000}),
      option_in("-c,--check", "N",
                fmt::format("verification passes (default {}; 0: not checked): reads are verified before the timed "
                            "pass, writes read back after it (page cache dropped first)",
                            o.check_passes),
                o.check_passes, 0, 100),
      checked(option("--time-per-size", "S",
                     fmt::format("stop a pass after S seconds (default {}: the whole region)", o.time_per_size),
                     o.time_per_size),
              seconds),
      flag("--keep", "leave the files", o.keep),
      checked(option("-T,--timeout", "S",
                     "end the run when no request completes and no step ends for S seconds on a rank (a stopped "
                     "rank, a stalled mount): the end record is written and every rank exits 4 within S + 3 s; "
                     "the files are left in place (default 0: no watchdog)",
                     a.timeout_s),
              seconds),
      option("-J,--json", "FILE", "JSON Lines (results/SCHEMA.md: the `io` objects)", a.json_path),
      option("--csv", "FILE", "CSV, one row per point", a.csv_path),
      option("--history", "DB", "add the run to this history database when it ends (docs/history.md)", a.history_db),
      option("--prom", "FILE", "the run's figures as Prometheus text when it ends (docs/history.md)", a.prom_path),
      flag("-q,--quiet", "no table", r.quiet),
      flag("-h,--help", "this text", r.help),
  };
}

}  // namespace

std::string io_help() {
  IoArgs defaults;
  IoRaw raw;
  std::string s = kIoHelp;
  s.replace(s.find("OPTIONS"), 7, option_list(io_options(defaults, raw)));
  return s;
}

std::optional<IoArgs> parse_io(int argc, const char* const* argv) {
  IoArgs a;
  IoOptions& o = a.options;
  for (int i = 0; i < argc; ++i) a.argv.emplace_back(argv[i]);
  IoRaw raw;
  CLI::App app{"ccbench io"};
  app.set_help_flag();
  app.allow_extras(false);
  app.add_option("dir", o.dir);
  declare_options(app, io_options(a, raw));
  parse_or_usage_error(app, argc, argv, "io", "io");
  if (raw.help) return std::nullopt;
  if (o.dir.empty()) throw UsageError("io: give the folder to measure (ccbench io DIR; see ccbench io --help)");
  o.patterns = parse_io_patterns(raw.patterns);
  o.engine = parse_io_engine(raw.engine);
  o.memory = raw.memory == "pinned" ? IoMemory::pinned : raw.memory == "device" ? IoMemory::device : IoMemory::pageable;
  o.file_bytes = size_arg("--file-size", raw.file_size);
  const std::size_t lo = size_arg("-b/--minbytes", raw.min_b),
                    hi = raw.max_b.empty() ? lo : size_arg("-e/--maxbytes", raw.max_b);
  o.blocks = sweep_sizes(lo, hi, raw.step_i.empty() ? 0 : size_arg("-i/--stepbytes", raw.step_i),
                         raw.step_i.empty() ? raw.factor : 1);
  a.table = !raw.quiet;
  validate(o);
  return a;
}

namespace {

// Everything that can be refused, checked on every rank before the first
// byte is written (throws UsageError): room and inodes for the plan, a GPU
// for --memory pinned/device, the engine.
void check_io_plan(const IoOptions& o, const Comm& comm, FreeSpace& space, Faults& faults) {
  check_target_dir(o.dir);
  space = free_space(o.dir);
  const int ranks = space.shared ? comm.size() : comm.local_size();
  const std::uint64_t needed = bytes_needed(o, ranks);
  if (space.available < needed)
    throw UsageError(
        fmt::format("io {}: the plan needs {} bytes free ({} {} rank{}), {} are available on this {} "
                    "file system: use a smaller --file-size or --files",
                    o.dir, needed == kSaturated ? std::string("more than 2^64") : std::to_string(needed),
                    space.shared ? "the whole job's" : "this node's", ranks, ranks == 1 ? "" : "s", space.available,
                    space.fs_type));
  const std::uint64_t inodes = inodes_needed(o, ranks);
  if (space.inodes_available < inodes)
    throw UsageError(
        fmt::format("io {}: the plan creates {} files and folders, {} inodes are free on this {} file "
                    "system: use fewer --files",
                    o.dir, inodes, space.inodes_available, space.fs_type));
  if (o.memory != IoMemory::pageable)
    if (const std::string why = io_gpu_unavailable(); !why.empty())
      throw UsageError(fmt::format("--memory {}: needs a GPU: {}", name(o.memory), why));
  try {
    make_engine(o.engine, o.queue_depth);
  } catch (const std::runtime_error& e) {
    throw UsageError(fmt::format("--engine {}: {}", name(o.engine), e.what()));
  }
  faults = faults_from_environment();
}

// Rank 0's writers, every output checked before any is created.
std::vector<std::unique_ptr<Writer>> open_io_writers(const IoArgs& args) {
  std::vector<std::unique_ptr<Writer>> writers;
  check_distinct_paths({{"-J/--json", args.json_path},
                        {"--csv", args.csv_path},
                        {"--history", args.history_db},
                        {"--prom", args.prom_path}},
                       {});
  if (!args.json_path.empty()) check_output_writable("-J/--json", args.json_path);
  if (!args.csv_path.empty()) check_output_writable("--csv", args.csv_path);
  const RunExports exports{args.history_db, args.prom_path, ""};
  check_run_exports(exports);
  if (exports.any()) writers.push_back(make_export_writer(exports));
  if (args.table) writers.push_back(make_io_table_writer(stdout));
  if (!args.json_path.empty()) writers.push_back(make_jsonl_writer(args.json_path));
  if (!args.csv_path.empty()) writers.push_back(make_io_csv_writer(args.csv_path));
  return writers;
}

// The run record of an io run.
RunInfo describe_io_run(const IoArgs& args, const Comm& comm, const FreeSpace& space, const Workspace& ws) {
  const IoOptions& o = args.options;
  RunInfo run;
  run.argv = args.argv;
  run.collective = "io";
  run.backend = std::string(name(o.engine));
  run.memory_kind = std::string(name(o.memory));
  run.path_requested = mode_of(o);
  run.path_observed = "not observed";
  run.timing_modes = "per_request";
  run.clock = "host steady clock around each request and each rank's pass";
  run.check_iterations = o.check_passes;
  run.min_bytes = o.blocks.front();
  run.max_bytes = o.blocks.back();
  const RankPlacement me = this_process(comm, {comm.rank(), comm.size(), {}});
  collect_run_info(comm, me, comm.size(), "", run);
  run.started_at = utc_now_iso8601();
  IoRunInfo info;
  info.target_dir = o.dir;
  info.workspace = ws.path();
  info.fs_type = space.fs_type;
  info.engine = run.backend;
  info.memory = run.memory_kind;
  info.layout = o.shared_file ? "shared file" : "file per rank";
  info.gds = io_gds_status();
  for (IoPattern p : o.patterns) info.patterns.emplace_back(row(p).name);
  info.direct = o.direct;
  info.kept = o.keep;
  info.threads = o.threads;
  info.queue_depth = o.queue_depth;
  info.read_percent = o.read_percent;
  info.check_passes = o.check_passes;
  info.file_bytes = o.file_bytes;
  info.dataset_files = o.dataset_files;
  info.time_per_size = o.time_per_size;
  run.io = info;
  return run;
}

// A step of every rank (create, prepare, time, finish, remove): one that
// fails on any rank ends the run on every rank, the error printed once; a
// signal during it is an interruption, not a failure. False: stop.
class IoPhases {
 public:
  IoPhases(const Comm& comm, EndInfo& end) : comm_(comm), end_(end) {}
  template <class Step>
  bool operator()(Step&& step) {
    std::string error;
    try {
      step();
    } catch (const IoSetupStopped&) {
      error = kStopped;
    } catch (const std::exception& e) {
      error = e.what();
    }
    const int rank = comm_.rank();
    if (!error.empty() && rank != 0 && error != kStopped) error = fmt::format("on rank {}: {}", rank, error);
    error = comm_.agree_error(error);
    if (error.empty()) return true;
    std::vector<double> sig{static_cast<double>(stop_signal())};
    comm_.max_inplace(sig);
    if (error == kStopped) {
      const int s = std::max(1, static_cast<int>(sig[0]));
      end_.status = fmt::format("interrupted: {} during setup (files removed)", signal_name(s));
      end_.exit_code = kExitSignal + s;
    } else if (sig[0] > 0) {  // an error while a stop signal is pending is the signal's doing (a request it cut)
      end_.status = fmt::format("interrupted: {} ({})", signal_name(static_cast<int>(sig[0])), error);
      end_.exit_code = kExitSignal + static_cast<int>(sig[0]);
    } else {
      if (rank == 0) fmt::print(stderr, "ccbench: io failed: {}\n", terminal_safe(error));
      end_.status = "failed: " + error;
      end_.exit_code = kExitInternal;
      return false;
    }
    if (rank == 0) fmt::print(stderr, "ccbench: io {}\n", terminal_safe(end_.status));
    return false;
  }

 private:
  static constexpr std::string_view kStopped = "\x01stopped";  // a signal in setup: no rank reports a failure
  const Comm& comm_;
  EndInfo& end_;
};

}  // namespace

int run_io(const IoArgs& args, const Comm& comm, Writer* extra) {
  const IoOptions& o = args.options;
  const int rank = comm.rank();
  FreeSpace space;
  Faults faults;
  if (const int code = exit_code_of_every_rank(comm, [&] { check_io_plan(o, comm, space, faults); })) return code;
  std::vector<std::unique_ptr<Writer>> writers;
  if (const int code = exit_code_of_every_rank(comm, [&] {
        if (rank == 0) writers = open_io_writers(args);
      }))
    return code;
  // The same outputs and end record as a sweep's (harness/run_outputs.hpp):
  // an output that cannot be written stops the run at the next point.
  RunOutputs outputs(rank, std::move(writers), extra);

  std::string stamp = utc_now_iso8601().substr(0, 19);
  stamp.erase(std::remove_if(stamp.begin(), stamp.end(), [](char c) { return c == '-' || c == ':'; }), stamp.end());
  const std::string folder = comm.all_strings(fmt::format("ccbench-io-{}-{}", stamp, getpid())).front();
  std::unique_ptr<Workspace> ws;
  if (const int code = exit_code_of_every_rank(comm, [&] { ws = std::make_unique<Workspace>(o.dir, folder, o.keep); }))
    return code;

  install_stop_signals();
  outputs.begin(describe_io_run(args, comm, space, *ws));
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  Watchdog watchdog(args.timeout_s, rank, host, {}, Watchdog::Watches::control_plane);
  watchdog.set_last_words([&outputs](const std::string& status, int code) { outputs.last_words(status, code); });
  struct Watched {  // the watchdog is io's while the passes run
    explicit Watched(Watchdog* w) { io_watchdog.store(w); }
    ~Watched() { io_watchdog.store(nullptr); }
  } watched(watchdog.enabled() ? &watchdog : nullptr);
  const auto step = [&](IoPattern p, std::size_t block, const char* what) {
    watchdog.set_activity(
        fmt::format("io {} {} B: {} in {} (no request completed meanwhile)", row(p).name, block, what, ws->path()));
  };

  IoRank io(o, *ws, rank, comm.local_rank(), faults.corrupts(rank), stop_requested);
  EndInfo end;
  end.status = "completed";
  IoPhases phase(comm, end);
  bool output_failed = false;
  for (IoPattern p : o.patterns) {
    for (std::size_t block : o.blocks) {
      IoRankResult mine;
      step(p, block, "creating the files");
      if (!phase([&] { io.create(p, block); })) break;
      step(p, block, "preparing the pass");
      if (!phase([&] { io.prepare(p, block); })) break;
      step(p, block, "waiting for every rank before the pass");
      comm.barrier();
      step(p, block, "the timed pass");
      if (!phase([&] { mine = io.timed(p, block); })) break;
      step(p, block, "verifying and ending the pass");
      if (!phase([&] { io.finish(p, block, mine); }) || !phase([&] { io.remove_shared(p); })) break;
      step(p, block, "gathering the ranks' results");
      const std::vector<std::string> all = comm.gather_strings(encode(mine));
      const int my_signal = stop_signal();
      if (rank == 0) {
        const PointRecord rec = make_record(o, p, block, all, comm.nodes());
        if (rec.out_of_place.wrong) end.wrong_total += *rec.out_of_place.wrong;
        outputs.point(rec);
      }
      const RunOutputs::Boundary stop = outputs.at_boundary(comm, my_signal);
      if ((output_failed = stop.output_failed)) break;
      if (stop.signal > 0) {
        end.status = fmt::format("interrupted: {}", signal_name(stop.signal));
        end.exit_code = kExitSignal + stop.signal;
        break;
      }
    }
    if (end.exit_code != 0 || output_failed) break;
  }
  watchdog.set_activity(fmt::format("io: removing the files in {}", ws->path()));
  ws->clean();
  if (output_failed) return rank == 0 ? outputs.fail() : kExitOutput;
  if (end.exit_code == 0 && comm.sum(end.wrong_total) > 0) {
    end.exit_code = kExitWrongData;
    end.status = "wrong_data";
  }
  {
    std::lock_guard<std::timed_mutex> lock(outputs.lock());
    end.points = outputs.end().points;
    outputs.finish(end);
  }
  if (rank == 0 && !outputs.error().empty()) {
    fmt::print(stderr, "ccbench: cannot write {} (at the end record)\n", terminal_safe(outputs.error()));
    return kExitOutput;
  }
  return end.exit_code;
}

}  // namespace ccb
