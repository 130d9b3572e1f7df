// ccbench io: storage -> host -> GPU benchmarks (docs/io.md).
#pragma once
#include <optional>
#include <string>

#include "harness/comm.hpp"
#include "io/io_plan.hpp"

namespace ccb {

struct IoArgs {
  IoOptions options;
  std::string json_path, csv_path;
  bool table = true;
  std::vector<std::string> argv;
};

const char* io_help();
// nullopt: --help was asked. Throws UsageError (one line).
std::optional<IoArgs> parse_io(int argc, const char* const* argv);
// Collective over comm; returns the exit code.
int run_io(const IoArgs& args, const Comm& comm);

}  // namespace ccb
