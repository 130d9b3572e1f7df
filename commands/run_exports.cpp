#include "commands/run_exports.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <optional>

#include "commands/history_command.hpp"
#include "analysis/accept/accept_report.hpp"
#include "analysis/history/history_db.hpp"
#include "analysis/history/history_run.hpp"
#include "analysis/history/prometheus_text.hpp"
#include "common/redact.hpp"
#include "common/errors.hpp"
#include "results/json_records.hpp"
#include "results/output_file.hpp"
#include "common/terminal_text.hpp"

namespace ccb {
namespace {

class ExportWriter final : public Writer {
 public:
  explicit ExportWriter(RunExports e) : e_(std::move(e)) {}
  std::string error() const override { return error_; }
  bool exports_at_end() const override { return true; }
  void begin(const RunInfo& r) override {
    started_at_ = r.started_at;
    add(run_to_json(r));
  }
  void point(const PointRecord& p) override { add(point_to_json(p)); }
  void end(const EndInfo& end) override {
    add(end_to_json(end));
    if (end.status != "completed" && end.status != "wrong_data" && end.status != "below_min_bw") {
      fmt::print(stderr, "ccbench: --history/--prom: the run ended {}: not added or exported\n",
                 terminal_safe(end.status));
      return;
    }
    const std::string source = fmt::format("run started {}", started_at_);
    // Each export is attempted and reported on its own (error(): every failure, "; " between).
    const auto attempt = [&](auto&& what) {
      try {
        what();
      } catch (const UsageError& x) {
        error_ += (error_.empty() ? "" : "; ") + std::string(x.what());
      }
    };
    Format format = Format::unknown;
    std::optional<ResultSet> set;
    attempt([&] { set = imported_set(text_, source, &format); });  // once, for both
    if (!set) return;
#if CCBENCH_HAVE_SQLITE
    if (!e_.history_db.empty())
      attempt([&] {
        std::string why;
        const auto run = history_run_of(*set, format, text_, HistoryRunSource{source, "", "", e_.label, ""}, &why);
        if (!run)
          throw UsageError(fmt::format("--history {}: the run holds {}", url_without_credentials(e_.history_db), why));
        add_to_history(e_.history_db, *run);
      });
#endif
    if (!e_.prom_path.empty())
      attempt([&] {
        write_file_atomically("--prom", e_.prom_path, prometheus_text({PromRun{&*set, started_at_, ""}}));
      });
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
#if CCBENCH_HAVE_SQLITE
    check_history_location("--history", e.history_db, false);
    check_distinct_paths({{"--history", e.history_db}, {"--prom", e.prom_path}}, {});
    std::error_code ec;
    if (is_postgres_url(e.history_db) || std::filesystem::exists(e.history_db, ec)) {
      const HistoryDb opened(e.history_db, HistoryDb::Access::write);  // refuses a foreign one before the run
    } else {  // created when the run ends: a run killed before then leaves no empty database behind
      check_output_writable("--history", e.history_db);
    }
#else
    throw UsageError(fmt::format("--history: {}", kBuiltWithoutSqlite));
#endif
  }
}

std::unique_ptr<Writer> make_export_writer(const RunExports& e) { return std::make_unique<ExportWriter>(e); }

std::string accept_prometheus_text(const AcceptOutcome& o) {
  std::string pass, margin;
  for (const CheckVerdict& c : o.checks) {
    const std::string check = prom_label_value(c.check ? c.check->name : "");
    for (const NodeVerdict& n : c.nodes) {
      const std::string labels = fmt::format("check=\"{}\",host=\"{}\"", check, prom_label_value(n.host));
      const bool ok = n.status == NodeStatus::pass || n.status == NodeStatus::cleared;
      pass += fmt::format("ccbench_accept_node_pass{{{}}} {}\n", labels, ok ? 1 : 0);
      if (std::isfinite(n.margin)) margin += fmt::format("ccbench_accept_node_margin{{{}}} {:.6g}\n", labels, n.margin);
    }
  }
  const std::string spec = prom_label_value(o.spec ? o.spec->name : "");
  std::string out =
      "# HELP ccbench_accept_node_pass 1 when the node passed the check (or a re-test cleared it), 0 otherwise\n"
      "# TYPE ccbench_accept_node_pass gauge\n" +
      pass;
  if (!margin.empty())
    out +=
        "# HELP ccbench_accept_node_margin The defective node's margin to the gate (negative: short of it)\n"
        "# TYPE ccbench_accept_node_margin gauge\n" +
        margin;
  if (o.finished)
    out += fmt::format(
        "# HELP ccbench_accept_accepted 1 when the acceptance passed, 0 when rejected or in error\n"
        "# TYPE ccbench_accept_accepted gauge\nccbench_accept_accepted{{spec=\"{}\"}} {}\n",
        spec, o.accepted() ? 1 : 0);
  if (const double t = iso_utc_seconds(o.started_at); std::isfinite(t))
    out += fmt::format(
        "# HELP ccbench_run_timestamp_seconds When the run started, seconds since the epoch\n"
        "# TYPE ccbench_run_timestamp_seconds gauge\nccbench_run_timestamp_seconds{{spec=\"{}\"}} {:.3f}\n",
        spec, t);
  return out;
}

void export_accept(const RunExports& e, const AcceptOutcome& outcome, [[maybe_unused]] const std::string& out_dir) {
#if CCBENCH_HAVE_SQLITE
  if (!e.history_db.empty()) {
    // The raw runs and the verdict (written just before) in one opening.
    const std::filesystem::path out(out_dir);
    std::vector<std::string> paths;
    std::error_code ec;
    if (std::filesystem::is_directory(out / "raw", ec)) paths.push_back((out / "raw").string());
    const bool verdict = std::filesystem::is_regular_file(out / "verdict.json", ec);
    if (verdict) paths.push_back((out / "verdict.json").string());
    if (!paths.empty()) {
      const HistoryAddResult r = add_runs_to_history({e.history_db, paths, e.label, "", 30, true, ""});
      const std::size_t raw = r.added - r.verdicts;
      fmt::print(stderr, "ccbench: --history {}: {} raw run{} added, {} already there, {} skipped\n",
                 terminal_safe(url_without_credentials(e.history_db)), raw, raw == 1 ? "" : "s", r.present, r.skipped);
      if (verdict)
        fmt::print(stderr, "ccbench: --history {}: the verdict {}\n",
                   terminal_safe(url_without_credentials(e.history_db)), r.verdicts ? "added" : "already there");
    }
  }
#endif
  if (!e.prom_path.empty()) write_file_atomically("--prom", e.prom_path, accept_prometheus_text(outcome));
}

}  // namespace ccb
