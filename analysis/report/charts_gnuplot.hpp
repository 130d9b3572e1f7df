// Charts with gnuplot's svg terminal: per chart group, busbw vs size (log x),
// time vs size (log-log) and busbw ratio to the baseline vs size (log x).
// gnuplot runs once, without a shell, on a script and data files that
// ccbench writes into a private temporary folder; no text from an input file
// reaches the script except legend labels reduced to [A-Za-z0-9 ._:+=/()-].
#pragma once
#include <string>
#include <vector>

#include "analysis/report/render.hpp"
#include "analysis/report/report.hpp"

namespace ccb {

inline constexpr std::size_t kMaxChartGroups = 64;
inline constexpr std::size_t kMaxChartPoints = 2000;  // per curve; longer curves are thinned evenly

// `gnuplot`: the program to run (found on PATH). Never throws: a failure is
// reported in ChartImages::unavailable.
ChartImages render_charts(const std::vector<ChartGroup>& groups, const std::string& gnuplot = "gnuplot");

// A legend label safe inside a single-quoted gnuplot string.
std::string gnuplot_label(std::string_view s);

}  // namespace ccb
