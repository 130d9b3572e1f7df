// Rank 0's outputs of ccbench replay: the table on stdout, the -J file, and
// the end record, written once by whichever comes first: the run's end, a
// stop signal, an output that fails, or the watchdog's last words (its
// thread: every write is under one lock). The other ranks hold none.
#pragma once
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/workload/replay_record.hpp"
#include "results/output_file.hpp"

namespace ccb {

// One timed step as rank 0 prints it: the times of the rank whose step took longest.
struct StepRow {
  double step_s = 0, compute_s = 0;
  std::array<double, kDims> exposed_s{};
  int slowest = 0;
  double exposed() const;
};

// The medians over the steps of each column, and of the exposed total.
std::pair<StepRow, double> medians_of(const std::vector<StepRow>& rows);

class ReplayOutputs {
 public:
  // json_path "": no -J file. Throws UsageError when it cannot be opened
  // (locked by another run: exit 2).
  explicit ReplayOutputs(const std::string& json_path);
  void print(const std::string& text);  // to stdout
  void record(const nlohmann::json& j);
  // A timed step: its row printed, its record written, kept for the medians.
  void step(const StepRow& row);
  const std::vector<StepRow>& rows() const { return rows_; }
  // The first output that could not be written ("stdout: Broken pipe",
  // "-J/--json PATH: No space left on device"); "" while all are fine.
  std::string error() const;
  // Writes the end record once (later calls do nothing).
  void end(const std::string& status, int exit_code);
  // The watchdog's: the end record, unless the measuring thread holds the
  // lock for more than a second (then the file stays as it is: whole records).
  void last_words(const std::string& status, int exit_code);
  // The verified step's wrong elements, for the end record.
  void set_wrong(std::uint64_t wrong);

 private:
  void end_locked(const std::string& status, int exit_code);
  mutable std::timed_mutex mu_;
  std::optional<OutputFile> file_;
  std::string stdout_error_;
  std::vector<StepRow> rows_;
  std::uint64_t wrong_ = 0;
  bool ended_ = false;
};

}  // namespace ccb
