// nccl-tests 2.19.6's header and footer lines (src/util.cu
// writeDeviceReport, writeResultFooter), defined once for the table on stdout
// and the -J FILE.json document, so that a scraper keyed on nccl-tests' lines
// reads ccbench's: "# nccl-tests version ...", "# Collective test starting:",
// "# nThread ... unalign: N", the blocking and per-iteration lines, "# Using
// devices", one "#  Rank R Group G Pid P on HOST device D [BUS] NAME" line per
// rank, and after the rows "# Out of bounds values", "# Avg bus bandwidth",
// "# Collective test concluded:". What ccbench adds comes after these blocks
// (docs/running.md "The table").
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "results/record.hpp"

namespace ccb {

// NCCL_VERSION_CODE of "2.21.5" (22105); 0 when not a version.
int nccl_version_code(const std::string& version);

// The nccl-tests version whose layout ccbench writes.
inline constexpr const char* kNcclTestsLayoutVersion = "2.19.6";

// One rank's "#  Rank" line and its JSON config.devices entry. Host memory
// (the mpi backend) is device -1, bus "host", name "host memory".
struct DeviceLine {
  int rank = 0, group = 0;
  long pid = 0;
  std::string host;
  int device = -1;
  std::string device_hex;   // "0000:18:00" (PCI domain:bus:device), "host", or "" when not known
  std::string device_info;  // the GPU model, or "host memory"
};
std::vector<DeviceLine> device_lines(const RunInfo& r);

// "all_reduce_perf": the program nccl-tests names in its starting and concluded lines.
std::string nccl_tests_program(const std::string& collective);

// From "# nccl-tests version" through the rank lines and a closing "#".
std::string nccl_tests_header(const RunInfo& r);
// nccl-tests' column header (writeResultHeader; -I 1: with i_min, i_max,
// i_p99, i_cv% after each placement; -C 1: cputime for time; -S 1: a
// timestamp column), with `extra` (three lines: --stats columns) after each
// line's last column; each line ends where nccl-tests' ends, with a space.
std::string nccl_tests_column_header(const RunInfo& r, const std::array<std::string, 3>& extra);
// -S 1: the local time now, "%21s" of "%Y-%m-%d %H:%M:%S", as nccl-tests ends a row.
std::string nccl_tests_timestamp();
// -I 1: a row's i_min, i_max, i_p99 (us) and i_cv% of one placement, each
// "  %7s"; N/A when not measured.
std::string nccl_tests_in_loop_cells(const std::optional<Measurement::InLoop>& in_loop);

// "# Out of bounds values" through "# Collective test concluded: NAME", "#"
// and nccl-tests' error line ("# error: ..." or an empty line).
std::string nccl_tests_footer(const EndInfo& e, const std::string& collective);
// The run's failure for nccl-tests' "errors" (a failed run's status), "" when none.
std::string nccl_tests_error(const EndInfo& e);

}  // namespace ccb
