// A run's figures as Prometheus' text exposition format (version 0.0.4, what
// node_exporter's textfile collector reads; docs/history.md lists the metrics
// and labels). Base units: bytes per second, seconds.
#pragma once
#include <string>
#include <vector>

#include "results/import/result_set.hpp"

namespace ccb {

// At most this many samples per metric in one file: more is refused (a
// textfile that size would swamp a Prometheus; split the run instead).
inline constexpr std::size_t kMaxPromSamples = 20000;

// One run's points and its ISO 8601 start ("" when unknown: no timestamp).
struct PromRun {
  const ResultSet* set = nullptr;
  std::string run_time;
  // A history series' place that names no host ("cluster:LABEL",
  // "file:PATH"): the label place="..." keeps two such places apart.
  std::string unnamed_place;
};

// The metrics of these runs in one file (a label set repeated across them:
// the later run's value). Throws UsageError beyond kMaxPromSamples.
std::string prometheus_text(const std::vector<PromRun>& runs);

// Label value escaping of the text format: backslash, quote, line feed.
std::string prom_label_value(const std::string& v);

// Seconds since the epoch of "YYYY-MM-DDTHH:MM:SS[.fff]Z" (two digits a
// field, each in its calendar range); NaN when not that.
double iso_utc_seconds(const std::string& iso);
// "YYYY-MM-DD" or the form above: what --since takes.
bool is_iso_day_or_time(const std::string& text);

}  // namespace ccb
