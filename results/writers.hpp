// Writers render records; they measure nothing. Each is opened before the
// first point (an unwritable path fails before anything runs) and writes
// every point as one checked write.
#pragma once
#include <fmt/format.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "results/output_file.hpp"
#include "results/record.hpp"

namespace ccb {

class Writer {
 public:
  virtual ~Writer() = default;
  virtual void begin(const RunInfo& run) = 0;
  virtual void point(const PointRecord& p) = 0;
  virtual void end(const EndInfo& e) = 0;
  // The first write error ("out.jsonl: No space left on device"); "" while
  // every record went out. A writer that failed writes nothing more.
  virtual std::string error() const { return ""; }
  // A writer that exports the finished run elsewhere (the history database,
  // Prometheus text) from its end(): ended before the others, so that their
  // end record says whether the exports succeeded (EndInfo::export_errors).
  virtual bool exports_at_end() const { return false; }
};

// Text a table writer builds up and writes out in one piece per record; the
// first write error is kept and ends the output.
class TextSink {
 public:
  explicit TextSink(std::FILE* out) : out_(out) {}
  template <class... Args>
  void emit(fmt::format_string<Args...> f, Args&&... args) {
    fmt::format_to(std::back_inserter(buf_), f, std::forward<Args>(args)...);
  }
  void flush();
  const std::string& write_error() const { return error_; }

 private:
  std::string buf_, error_;
  std::FILE* out_;
};

// nccl-tests' stdout table; `stats` adds per-iteration columns.
std::unique_ptr<Writer> make_table_writer(std::FILE* out, bool stats);
// JSON Lines: one run record, one record per point, one end record.
// `append`: after the file's records (a second run into one file: ccbench moe).
std::unique_ptr<Writer> make_jsonl_writer(const std::string& path, bool append = false);
// CSV: a header, then one row per point and placement.
std::unique_ptr<Writer> make_csv_writer(const std::string& path);
// ccbench io's table and CSV (one row per point; docs/io.md explains the columns).
std::unique_ptr<Writer> make_io_table_writer(std::FILE* out);
std::unique_ptr<Writer> make_io_csv_writer(const std::string& path);
// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
std::string csv_field(const std::string& v);

// A number in a column of `width` as nccl-tests' getFloatStr prints it
// (src/util.cu): %.2f, else %.1f, else %.0f, whichever fits, else %.1e
// (width 6: %.0e); except a value above 0 that %.2f would print as 0.00 (a
// slow link's small sizes, a sub-10-ns time): two significant figures within
// the width (0.0042, 6.9e-4), which nccl-tests' parsers read as numbers too.
std::string nccl_tests_number(double v, int width);
// The table's time (us, width 7) and GB/s (width 6) columns.
std::string format_time_us(double us);
std::string format_gbps_column(double gbps);

}  // namespace ccb
