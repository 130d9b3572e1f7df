// The replay record (ccbench replay -J; results/SCHEMA.md "replay"): its
// writer and its reader side by side. One JSON object per line: a replay
// record (the workload, the parallelism, the hosts), one step record per
// timed step (the slowest rank's times), an end record.
#pragma once
#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/workload/training_step.hpp"

namespace ccb {

struct ReplayStep {
  double step_s = 0, compute_s = 0, exposed_s = 0;
  std::array<double, kDims> by_dim{};
};

struct ReplayRun {
  std::string label, file, workload, parallelism;  // parallelism: "tp 2, pp 2, dp 2, ep 1, zero 0"
  int ranks = 0, ranks_per_node = 0, nodes = 0;
  std::string status;              // the end record's ("completed"; "" when the run has none)
  std::string workload_file;       // the workload file the replay ran
  std::string started_at;          // the replay record's (ISO 8601 UTC; "" in a record without one)
  std::set<std::string> hosts;     // the hosts its ranks ran on
  std::vector<std::string> noise;  // the replay record's: ranks outnumbering their CPUs (results/noise.hpp)
  std::vector<ReplayStep> steps;
};

// Whether a file's (a regular file only) or a text's first record is a replay record.
bool is_replay_file(const std::string& path);
bool is_replay_text(std::string_view text);
// The replay in `path` (or in `text`, read from `path`); UsageError
// "FILE:LINE: what is wrong" when it is not one or holds no step.
ReplayRun read_replay(const std::string& label, const std::string& path);
ReplayRun replay_of_text(const std::string& label, std::string_view text, const std::string& path);

// The writer's records. `started_at` and `ended_at`: ISO 8601 UTC.
nlohmann::json replay_header_json(const TrainingWorkload& w, const StepProgram& prog, const std::string& file,
                                  int nodes, const std::vector<std::string>& hosts,
                                  const std::vector<std::string>& noise, const std::string& started_at);
nlohmann::json replay_step_json(const ReplayStep& s, int step, int slowest_rank);
// The end record: status "completed", "failed: ..." or "interrupted: SIGTERM";
// the medians over the `steps` timed steps written (null when none).
struct ReplayEnd {
  std::string status = "completed";
  int exit_code = 0;
  std::uint64_t wrong = 0;
  std::size_t steps = 0;
  double median_step_s = 0, median_exposed_s = 0;
};
nlohmann::json replay_end_json(const ReplayEnd& e, const std::string& ended_at);

}  // namespace ccb
