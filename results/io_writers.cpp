// ccbench io's table (stdout) and CSV. JSON Lines share the sweep's writer
// (the run and point records carry an `io` object: results/SCHEMA.md).
#include <fmt/format.h>

#include "common/sizes.hpp"
#include "results/output_file.hpp"
#include "results/writers.hpp"

namespace ccb {
namespace {

std::string wrong_text(const Measurement& pl) { return pl.wrong ? std::to_string(*pl.wrong) : "N/A"; }

class IoTableWriter final : public Writer, private TextSink {
 public:
  explicit IoTableWriter(std::FILE* out) : TextSink(out) {}
  std::string error() const override { return write_error(); }

  void begin(const RunInfo& r) override {
    const IoRunInfo& io = *r.io;
    emit("# ccbench {} ({}): io on {} ({}), {} rank{} on {} node{}\n", r.ccbench_version, r.git_revision, io.target_dir,
         io.fs_type, r.ranks, r.ranks == 1 ? "" : "s", r.nodes, r.nodes == 1 ? "" : "s");
    emit("#  engine {} qd {} threads {} {} {}, {} memory, {} per rank\n", io.engine, io.queue_depth, io.threads,
         io.direct ? "O_DIRECT" : "buffered", io.layout, io.memory, format_size(io.file_bytes));
    emit("#  files in {} ({}); check passes {}; GPUDirect Storage: {}\n", io.workspace,
         io.kept ? "kept: --keep" : "removed at the end", io.check_passes, io.gds);
    if (!io.direct)
      emit(
          "#  buffered reads: each file's pages are dropped from the page cache first (posix_fadvise DONTNEED); "
          "'cached' says what stayed\n");
    emit(
        "#  block = request size (dataset: file size) in bytes; time: mean per request (checkpoint: time to persist "
        "the whole checkpoint, s)\n");
    emit(
        "#  GB/s = all ranks' bytes / the slowest rank's pass (1e9 B/s); IOPS (dataset: files/s); #wrong: blocks "
        "that did not verify\n#\n");
    emit("# {:>10}  {:>12}  {:>12}  {:>9}  {:>9}  {:>9}  {:>8}  {:>10}  {:>6}  {:>6}\n", "pattern", "block", "moved",
         "time", "p99", "elapsed", "GB/s", "IOPS", "cached", "#wrong");
    emit("# {:>10}  {:>12}  {:>12}  {:>9}  {:>9}  {:>9}  {:>8}  {:>10}  {:>6}  {:>6}\n", "", "(B)", "(B)", "(us)",
         "(us)", "(s)", "(GB/s)", "(1/s)", "(%)", "");
    flush();
  }

  void point(const PointRecord& p) override {
    const IoPointInfo& io = *p.io;
    const Measurement& pl = p.out_of_place;
    const std::string p99 = pl.per_iteration_us ? fmt::format("{:9.1f}", pl.per_iteration_us->p99) : "      N/A";
    const std::string time =
        io.pattern == "checkpoint" ? fmt::format("{:8.3f}s", pl.time_us / 1e6) : fmt::format("{:9.1f}", pl.time_us);
    emit("{:>12}  {:>12}  {:>12}  {}  {}  {:9.3f}  {:8.3f}  {:10.0f}  {:>6}  {:>6}\n", io.pattern, p.bytes,
         io.bytes_moved, time, io.pattern == "checkpoint" ? "      N/A" : p99, io.elapsed_s, io.gbps, io.iops,
         io.resident_before < 0 ? "N/A" : fmt::format("{:.1f}", io.resident_before * 100), wrong_text(pl));
    if (!pl.note.empty()) emit("#  {}\n", pl.note);
    flush();
  }

  void end(const EndInfo& e) override {
    emit("# Blocks that did not verify : {} {}\n#\n", e.wrong_total, e.wrong_total == 0 ? "OK" : "FAILED");
    flush();
  }
};

class IoCsvWriter final : public Writer {
 public:
  explicit IoCsvWriter(const std::string& path) : file_("--csv", path) {}
  std::string error() const override { return file_.error(); }
  void begin(const RunInfo& r) override {
    run_ = r;
    file_.write(
        "pattern,mode,fs_type,memory,ranks,nodes,block_bytes,bytes_moved,ops,elapsed_s,gbps,iops,"
        "time_us,time_source,p50_us,p90_us,p99_us,max_us,page_cache_resident_before,cut_short,wrong\n");
  }
  void point(const PointRecord& p) override {
    const IoPointInfo& io = *p.io;
    const Measurement& pl = p.out_of_place;
    const Summary* s = pl.per_iteration_us ? &*pl.per_iteration_us : nullptr;
    const auto num = [&](double Summary::*f) { return s ? fmt::format("{}", s->*f) : std::string(); };
    file_.write(fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(io.pattern),
                            csv_field(io.mode), csv_field(run_.io->fs_type), csv_field(run_.io->memory), p.ranks,
                            p.nodes, p.bytes, io.bytes_moved, io.ops, io.elapsed_s, io.gbps, io.iops, pl.time_us,
                            csv_field(pl.time_source), num(&Summary::p50), num(&Summary::p90), num(&Summary::p99),
                            num(&Summary::max), io.resident_before < 0 ? "" : fmt::format("{}", io.resident_before),
                            io.cut_short ? "true" : "false", pl.wrong ? std::to_string(*pl.wrong) : ""));
  }
  void end(const EndInfo&) override {}

 private:
  OutputFile file_;
  RunInfo run_;
};

}  // namespace

std::unique_ptr<Writer> make_io_table_writer(std::FILE* out) { return std::make_unique<IoTableWriter>(out); }
std::unique_ptr<Writer> make_io_csv_writer(const std::string& path) { return std::make_unique<IoCsvWriter>(path); }

}  // namespace ccb
