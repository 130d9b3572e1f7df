#include "harness/run_exports.hpp"

#include <fmt/format.h>

#include "harness/history_command.hpp"
#include "results/history/history_db.hpp"
#include "results/history/history_run.hpp"
#include "results/history/prometheus_text.hpp"
#include "results/json_records.hpp"
#include "results/output_file.hpp"
#include "results/report/render.hpp"

namespace ccb {
namespace {

class ExportWriter final : public Writer {
 public:
  explicit ExportWriter(RunExports e) : e_(std::move(e)) {}
  std::string error() const override { return error_; }
  void begin(const RunInfo& r) override {
    started_at_ = r.started_at;
    add(run_to_json(r));
  }
  void point(const PointRecord& p) override { add(point_to_json(p)); }
  void end(const EndInfo& end) override {
    add(end_to_json(end));
    if (end.status != "completed" && end.status != "wrong_data") {
      fmt::print(stderr, "ccbench: --history/--prom: the run ended {}: not added or exported\n",
                 terminal_safe(end.status));
      return;
    }
    const std::string source = fmt::format("run started {}", started_at_);
    try {
      if (!e_.history_db.empty()) add_to_history(e_.history_db, text_, source, e_.label);
      if (!e_.prom_path.empty()) {
        const ResultSet set = imported_set(text_, source);
        write_file_atomically("--prom", e_.prom_path, prometheus_text({PromRun{&set, started_at_}}));
      }
    } catch (const UsageError& x) {
      error_ = x.what();
    }
  }

 private:
  void add(const nlohmann::json& j) {
    text_ += j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    text_ += '\n';
  }
  RunExports e_;
  std::string text_, started_at_, error_;
};

}  // namespace

void check_run_exports(const RunExports& e) {
  if (!e.prom_path.empty()) check_output_writable("--prom", e.prom_path);
  if (!e.history_db.empty()) {
    check_distinct_paths({{"--history", e.history_db}, {"--prom", e.prom_path}}, {});
    const HistoryDb opened(e.history_db, HistoryDb::Access::write);  // refuses a foreign one before the run
  }
}

std::unique_ptr<Writer> make_export_writer(const RunExports& e) { return std::make_unique<ExportWriter>(e); }

}  // namespace ccb
