// Report writers. Text from input files is made safe for each target:
// control characters never reach a terminal, Markdown cells are escaped, and
// HTML escapes every string (see html_escape).
#pragma once
#include <cstdio>
#include <map>
#include <string>

#include "analysis/compare/comparison.hpp"
#include "analysis/report/report.hpp"
#include "common/terminal_text.hpp"

namespace ccb {

std::string render_terminal(const Report& r, bool color);
// --color WHEN: always, never, or auto (stdout is a terminal and NO_COLOR is unset).
bool use_color(std::string_view when);
std::string render_markdown(const Report& r);
// `charts`: SVG per chart group (index into r.charts), or a reason they are missing.
struct ChartImages {
  std::vector<std::string> svg;  // one per chart group and kind: [group * 3 + kind], kind 0 busbw, 1 time, 2 ratio
  std::string unavailable;       // non-empty: why there are no charts
};
std::string render_html(const Report& r, const ChartImages& charts);

// Every aligned point of every pair, raw numbers (CSV: RFC 4180 quoting).
void write_csv(const Comparison& c, std::FILE* out);
std::string render_json(const Comparison& c, const Report& r);

std::string html_escape(std::string_view s);

}  // namespace ccb
