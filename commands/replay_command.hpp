// ccbench replay WORKLOAD: runs a training step's communication on MPI ranks
// (harness/replay_engine.hpp) and reports step time and exposed
// communication per parallel dimension (docs/workload.md).
#pragma once
#include <optional>
#include <string>

#include "harness/comm.hpp"

namespace ccb {

struct ReplayArgs {
  std::string workload, json_path, prediction_path;
  int steps = 10, warmup = 2;
  std::uint64_t max_buffer_bytes = std::uint64_t{4} << 30;
  std::optional<double> timeout_s;  // -T; unset: kReplayTimeoutSeconds + one step's compute
};
inline constexpr double kReplayTimeoutSeconds = 60;

std::string replay_help();
// nullopt: --help was asked. Throws UsageError (one line).
std::optional<ReplayArgs> parse_replay(int argc, const char* const* argv);
// Collective over the world; the exit code.
int run_replay(const ReplayArgs& args, const Comm& world);

}  // namespace ccb
