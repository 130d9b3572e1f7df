// -J FILE.json: nccl-tests' own JSON document (version 3, as nccl-tests 2.19
// writes it: version, start_time, args, env, nccl_version, config with its
// devices, results[] with size, count, type, redop, root, out_of_place and
// in_place {time, alg_bw, bus_bw, nwrong}, actual_iterations,
// experiment_name; out_of_bounds, average_bus_bandwidth, errors, end_time), so that
// scripts written for nccl-tests' JSON read ccbench's. Differences, each on
// purpose (docs/running.md "-J and the suffix rule"): env holds the
// filtered, redacted environment ccbench records, not the whole one; a
// bus_bw that is not defined (one rank) is "nan" as nccl-tests writes NaN.
// The document is rewritten whole after every point (through a temporary
// file renamed into place), so a run cut short leaves a valid document with
// the points measured so far and no end_time.
#pragma once
#include <memory>
#include <string>
#include <string_view>

#include "results/nccl_tests_layout.hpp"
#include "results/writers.hpp"

namespace ccb {

inline constexpr int kNcclTestsJsonVersion = 3;  // nccl-tests 2.19's JSON_FILE_VERSION

// The suffix rule of -J: a path ending in ".json" (any case) gets
// nccl-tests' document; any other (".jsonl", none) ccbench's JSON Lines record.
bool is_nccl_tests_json_path(std::string_view path);

std::unique_ptr<Writer> make_nccl_tests_json_writer(const std::string& path);

}  // namespace ccb
