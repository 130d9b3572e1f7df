// history changes, trend, export and verdicts (commands/history_verbs.cpp):
// the verbs that read series and verdicts back out of the database.
#pragma once
#include <string>

#include "analysis/history/change_points.hpp"
#include "analysis/history/history_db.hpp"

namespace ccb {

// Prints each series' change points; kExitRejected (1) when one is a regression.
int history_changes(HistoryDb& db, const SeriesFilter& filter, const ChangePointOptions& options, bool json,
                    const std::string& since);

// One SVG chart per series over its runs, change points marked, as one HTML
// file at out_path (temporary + rename). UsageError past kMaxTrendSeries.
inline constexpr std::size_t kMaxTrendSeries = 500;
int history_trend_html(HistoryDb& db, const SeriesFilter& filter, const ChangePointOptions& options,
                       const std::string& since, const std::string& out_path);

// Each series' newest run as Prometheus text at out_path (temporary + rename).
int history_export_prom(HistoryDb& db, const SeriesFilter& filter, const std::string& out_path);

// The fleet's medians per GPU family, collective, ranks, nodes and size as
// a catalogue file at out_path (temporary + rename) for CCBENCH_REFERENCES;
// `system` names the fleet ("" a default). Exit 2 when no series yields a
// figure (none on a GPU the limits know, or fewer than kFleetMinRuns clean runs).
int history_references(HistoryDb& db, const SeriesFilter& filter, const std::string& system,
                       const std::string& out_path);

// Per host, how often its rank was named late (--stragglers points) run by
// run, and change points in that share (a repeat offender); kExitRejected
// (1) when a host's share rises at one.
int history_stragglers(HistoryDb& db, const SeriesFilter& filter, const ChangePointOptions& options);

// The kept acceptance verdicts, one row per node and check, oldest first
// (host "" every node; since "" all): a table, CSV or JSON on stdout.
int history_verdicts(HistoryDb& db, const std::string& host, const std::string& since, bool csv, bool json);

}  // namespace ccb
