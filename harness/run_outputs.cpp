#include "harness/run_outputs.hpp"

#include <fmt/format.h>

#include <chrono>

#include "common/errors.hpp"
#include "harness/run_info.hpp"
#include "results/json_records.hpp"
#include "common/terminal_text.hpp"

namespace ccb {

RunOutputs::RunOutputs(int rank, std::vector<std::unique_ptr<Writer>> writers, Writer* extra)
    : rank_(rank), owned_(std::move(writers)) {
  for (auto& w : owned_) outputs_.push_back(w.get());
  if (extra && rank == 0) outputs_.push_back(extra);
}

void RunOutputs::begin(const RunInfo& run) {
  std::lock_guard<std::timed_mutex> lock(mu_);
  begun_ = true;
  if (rank_ == 0) records_ = run_to_json(run).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + '\n';
  for (Writer* w : outputs_) w->begin(run);
}

void RunOutputs::set_startup_run(RunInfo run) {
  std::lock_guard<std::timed_mutex> lock(mu_);
  startup_run_ = std::make_unique<RunInfo>(std::move(run));
}

void RunOutputs::point(const PointRecord& rec) {
  std::lock_guard<std::timed_mutex> lock(mu_);
  ++end_.points;
  if (rank_ == 0) {  // without --samples' samples: what the expectations read is the point's figures
    nlohmann::json j = point_to_json(rec);
    j.erase("samples_us");
    records_ += j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + '\n';
  }
  for (Writer* w : outputs_) w->point(rec);
}

void RunOutputs::measured(double busbw_gbps) {
  std::lock_guard<std::timed_mutex> lock(mu_);
  busbw_sum_ += busbw_gbps;
  ++busbw_count_;
}

std::string RunOutputs::error() const {
  for (Writer* w : outputs_)
    if (std::string e = w->error(); !e.empty()) return e;
  return "";
}

RunOutputs::Boundary RunOutputs::at_boundary(const Comm& comm, int my_signal) const {
  std::vector<double> v{static_cast<double>(my_signal), rank_ == 0 && !error().empty() ? 1.0 : 0.0};
  comm.max_inplace(v);
  return {static_cast<int>(v[0]), v[1] > 0};
}

int RunOutputs::fail() {
  const std::string error = this->error();
  std::lock_guard<std::timed_mutex> lock(mu_);
  end_.status = fmt::format("failed: output {}", error);
  end_.exit_code = kExitOutput;
  fmt::print(stderr,
             "ccbench: cannot write {}; stopped after {} points (the other outputs end here; the file keeps "
             "its whole records)\n",
             terminal_safe(error), end_.points);
  finish(end_);
  return kExitOutput;
}

void RunOutputs::finish(EndInfo e) {
  if (ended_) return;
  ended_ = true;
  if (!begun_ && startup_run_) {  // ended during the start-up: the configuration as the run record
    begun_ = true;
    for (Writer* w : outputs_) w->begin(*startup_run_);
  }
  e.avg_busbw_gbps = average_busbw();
  e.measurements = busbw_count_;
  e.ended_at = utc_now_iso8601();
  // Exports first: the records the other writers end with say how they went.
  for (Writer* w : outputs_)
    if (w->exports_at_end()) {
      w->end(e);
      if (std::string why = w->error(); !why.empty()) e.export_errors.push_back(std::move(why));
    }
  if (!e.export_errors.empty() && (e.exit_code == kExitOk || e.exit_code == kExitWrongData)) e.exit_code = kExitOutput;
  for (Writer* w : outputs_)
    if (!w->exports_at_end()) w->end(e);
}

void RunOutputs::last_words(const std::string& status, int code) {
  std::unique_lock<std::timed_mutex> lock(mu_, std::chrono::seconds(1));
  if (!lock.owns_lock()) return;  // the measuring thread is stuck while writing: leave the files as they are
  EndInfo e = end_;
  e.status = status;
  e.exit_code = code;
  finish(e);
}

}  // namespace ccb
