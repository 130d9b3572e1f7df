// ccbench io: storage -> host -> GPU benchmarks (docs/io.md).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "harness/comm.hpp"
#include "io/io_options.hpp"

namespace ccb {

struct IoArgs {
  IoOptions options;
  std::string json_path, csv_path;
  std::string history_db, prom_path;  // --history, --prom (docs/history.md)
  double timeout_s = 0;               // -T: no request completed for this long ends the run (0: never)
  bool table = true;
  std::vector<std::string> argv;
};

std::string io_help();
// nullopt: --help was asked. Throws UsageError (one line).
std::optional<IoArgs> parse_io(int argc, const char* const* argv);
// "seq_read,dataset" or "all"; "io_uring" or "psync". UsageError otherwise.
std::vector<IoPattern> parse_io_patterns(const std::string& text);
IoEngineKind parse_io_engine(const std::string& text);
// Collective over comm; returns the exit code. `extra` (rank 0) gets the
// records too (ccbench accept's io checks).
class Writer;
int run_io(const IoArgs& args, const Comm& comm, Writer* extra = nullptr);

}  // namespace ccb
