// A comparison turned into text-ready sections and tables, rendered by the
// terminal, Markdown and HTML writers (CSV and JSON read the comparison
// itself: every point, raw numbers).
#pragma once
#include "common/sizes.hpp"
#include <optional>
#include <string>
#include <vector>

#include "analysis/compare/comparison.hpp"
#include "analysis/report/number_text.hpp"
#include "analysis/compare/cost.hpp"
#include "analysis/decide/decision.hpp"
#include "analysis/decide/replay_comparison.hpp"

namespace ccb {

enum class Tone { plain, better, worse, muted, warn };

struct Cell {
  std::string text;
  Tone tone = Tone::plain;
  int heat = -1;  // 0 (worst) .. 10 (best): a heatmap cell's background in HTML; -1 none
};

struct Table {
  std::string title;
  std::vector<std::string> header;
  std::vector<std::vector<Cell>> rows;
  std::string note;              // under the table
  std::size_t left_columns = 1;  // leading text columns (left-aligned); the rest are numbers
  bool last_left = false;        // the last column is text too (a reason, a note)
  bool keep_header = false;      // terminal: never cut the headers of number columns
  bool left(std::size_t column) const { return column < left_columns || (last_left && column + 1 == header.size()); }
};

struct Section {
  std::string heading;
  std::vector<std::string> paragraphs;
  std::vector<Table> tables;
  int chart = -1;  // index into Report::charts: the charts of this section
};

// One chart group: a series of the baseline under the chart key, with every
// set's points of that series.
struct ChartGroup {
  std::string title;
  struct Curve {
    std::string label;
    std::vector<double> bytes, busbw_gbps, time_us, ratio;  // ratio: busbw / baseline's at the same size
    std::vector<double> time_lo, time_hi;                   // predicted curves: the 90% interval of time_us
    bool published = false, predicted = false;
  };
  std::vector<Curve> curves;
};

struct CostInputs {
  std::vector<std::optional<CostProfile>> profiles;  // per set
  std::optional<Workload> workload;
  std::optional<Decision> decision;  // with a workload: the decision at scale (analysis/decide/decision.hpp)
  std::vector<std::string> notes;    // about the inputs (sets that could not be projected, ...)
};

struct Report {
  std::string title;
  std::vector<Section> sections;
  std::vector<ChartGroup> charts;
};

struct ReportLimits {
  std::size_t point_rows_per_series = 200;  // per-size rows shown per series (CSV/JSON have all)
  std::size_t point_rows_per_pair = 2000;   // and per compared set
  std::size_t unread_lines_per_set = 50;
};

Report build_report(const Comparison& c, const CostInputs& cost, const ReportLimits& limits);
// Each measured set's series against its path's limit and its hardware's
// published figure (analysis/report/expectation_section.cpp); no table when
// nothing can be held against anything.
Section expectation_section(const Comparison& c);

// The decision at scale: one sentence per question (first section of the
// report), and its tables (analysis/report/decision_section.cpp).
Section summary_section(const Decision& d);
Section decision_section(const Decision& d, const Workload& w);
// The same for a training step (Decision::training; analysis/report/step_decision_section.cpp).
Section step_decision_section(const Decision& d);

// Replayed training steps side by side (analysis/report/replay_report.cpp).
Report replay_report(const ReplayComparison& c);

}  // namespace ccb
