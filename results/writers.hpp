// Writers render records; they measure nothing. Each is opened before the
// first point (an unwritable path fails before anything runs) and flushes
// every point as it is written.
#pragma once
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "results/record.hpp"

namespace ccb {

class Writer {
 public:
  virtual ~Writer() = default;
  virtual void begin(const RunInfo& run) = 0;
  virtual void point(const PointRecord& p) = 0;
  virtual void end(const EndInfo& e) = 0;
};

// nccl-tests' stdout table; `stats` adds per-iteration columns.
std::unique_ptr<Writer> make_table_writer(std::FILE* out, bool stats);
// JSON Lines: one run record, one record per point, one end record.
std::unique_ptr<Writer> make_jsonl_writer(const std::string& path);
// CSV: a header, then one row per point and placement.
std::unique_ptr<Writer> make_csv_writer(const std::string& path);
// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
std::string csv_field(const std::string& v);

// Throws UsageError naming `flag` when `path` cannot be written; touches
// nothing (an existing file keeps its content, a new one is not left behind).
void check_output_writable(const std::string& flag, const std::string& path);

// Opens `path` for writing; throws UsageError naming `flag` when it cannot.
std::FILE* open_output(const std::string& flag, const std::string& path);

// Writes a whole file through a temporary one renamed into place, so a
// failure leaves no partial file; throws UsageError naming `flag`.
void write_file_atomically(const std::string& flag, const std::string& path, const std::function<void(std::FILE*)>& write);
void write_file_atomically(const std::string& flag, const std::string& path, const std::string& text);

// The table's time format: %7.2f below 100 us, %7.1f below 10 ms, else %7.0f.
std::string format_time_us(double us);

}  // namespace ccb
