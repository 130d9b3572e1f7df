#include "commands/replay_outputs.hpp"

#include <fmt/format.h>

#include <chrono>

#include "analysis/workload/prediction_file.hpp"
#include "harness/run_info.hpp"
#include "results/stats.hpp"

namespace ccb {

double StepRow::exposed() const {
  double sum = 0;
  for (double e : exposed_s) sum += e;
  return sum;
}

std::pair<StepRow, double> medians_of(const std::vector<StepRow>& rows) {
  const auto median = [&](auto get) {
    std::vector<double> v;
    for (const StepRow& r : rows) v.push_back(get(r));
    return median_of(v);
  };
  StepRow med;
  med.step_s = median([](const StepRow& r) { return r.step_s; });
  med.compute_s = median([](const StepRow& r) { return r.compute_s; });
  for (std::size_t d = 0; d < kDims; ++d) med.exposed_s[d] = median([d](const StepRow& r) { return r.exposed_s[d]; });
  return {med, median([](const StepRow& r) { return r.exposed(); })};
}

ReplayOutputs::ReplayOutputs(const std::string& json_path) {
  if (!json_path.empty()) file_.emplace("-J/--json", json_path);
}

void ReplayOutputs::print(const std::string& text) {
  std::lock_guard<std::timed_mutex> lock(mu_);
  if (stdout_error_.empty()) write_stdout(text, &stdout_error_);
}

void ReplayOutputs::record(const nlohmann::json& j) {
  std::lock_guard<std::timed_mutex> lock(mu_);
  if (file_) file_->write(j.dump() + "\n");
}

void ReplayOutputs::step(const StepRow& r) {
  std::string dims;
  for (double e : r.exposed_s) dims += fmt::format(" {:>9}", format_ms(e));
  const int n = static_cast<int>(rows_.size()) + 1;
  print(fmt::format("  {:>5} {:>10} {:>10} {:>10}{} {:>8}\n", n, format_ms(r.step_s), format_ms(r.compute_s),
                    format_ms(r.exposed()), dims, r.slowest));
  record(replay_step_json({r.step_s, r.compute_s, r.exposed(), r.exposed_s}, n, r.slowest));
  std::lock_guard<std::timed_mutex> lock(mu_);
  rows_.push_back(r);
}

std::string ReplayOutputs::error() const {
  std::lock_guard<std::timed_mutex> lock(mu_);
  if (file_ && !file_->error().empty()) return "-J/--json " + file_->error();
  return stdout_error_;
}

void ReplayOutputs::set_wrong(std::uint64_t wrong) {
  std::lock_guard<std::timed_mutex> lock(mu_);
  wrong_ = wrong;
}

void ReplayOutputs::end(const std::string& status, int exit_code) {
  std::lock_guard<std::timed_mutex> lock(mu_);
  end_locked(status, exit_code);
}

void ReplayOutputs::last_words(const std::string& status, int exit_code) {
  std::unique_lock<std::timed_mutex> lock(mu_, std::chrono::seconds(1));
  if (lock.owns_lock()) end_locked(status, exit_code);
}

void ReplayOutputs::end_locked(const std::string& status, int exit_code) {
  if (ended_) return;
  ended_ = true;
  if (!file_) return;
  ReplayEnd e{.status = status, .exit_code = exit_code, .wrong = wrong_, .steps = rows_.size()};
  if (!rows_.empty()) {
    const auto [med, med_exposed] = medians_of(rows_);
    e.median_step_s = med.step_s, e.median_exposed_s = med_exposed;
  }
  file_->write(replay_end_json(e, utc_now_iso8601()).dump() + "\n");
}

}  // namespace ccb
