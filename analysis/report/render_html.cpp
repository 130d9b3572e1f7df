// One self-contained HTML file: inline CSS, inline SVG charts, no scripts, no
// external resources. Every string goes through html_escape.
#include <fmt/format.h>

#include "results/import/text_input.hpp"
#include "analysis/report/render.hpp"

namespace ccb {
namespace {

constexpr const char* kStyle = R"css(
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem;color:#222;max-width:1600px}
h1{font-size:1.5rem}h2{font-size:1.25rem;border-bottom:1px solid #ccc;padding-bottom:.2rem;margin-top:2rem}
h3{font-size:1rem;margin-bottom:.3rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.85rem}
th,td{border:1px solid #ddd;padding:.2rem .5rem;text-align:right;vertical-align:top}
td.l:first-child{white-space:nowrap}
th{background:#f3f3f3}.l{text-align:left}
.better{color:#17692a;font-weight:600}.worse{color:#b3261e;font-weight:600}.muted{color:#999}
.warn{background:#fff4ce}.note{color:#555;font-size:.85rem}
.charts{display:flex;flex-wrap:wrap;gap:1rem}.chart{width:31%;min-width:420px;margin:0}.chart svg{width:100%;height:auto}
.unavailable{background:#fde7e9;padding:.5rem}
.h0{background:#d73027;color:#fff}.h1{background:#e34a33;color:#fff}.h2{background:#f46d43}.h3{background:#fc8d59}
.h4{background:#fdae61}.h5{background:#fee08b}.h6{background:#d9ef8b}.h7{background:#a6d96a}.h8{background:#66bd63}
.h9{background:#3faa59}.h10{background:#1a9850;color:#fff}
)css";

std::string cell_class(Tone t, bool left, int heat = -1) {
  std::string c = left ? "l" : "";
  if (heat >= 0 && heat <= 10) c += fmt::format(" h{}", heat);
  switch (t) {
    case Tone::better: c += " better"; break;
    case Tone::worse: c += " worse"; break;
    case Tone::muted: c += " muted"; break;
    case Tone::warn: c += " warn"; break;
    case Tone::plain: break;
  }
  return c.empty() ? "" : " class=\"" + std::string(trim(c)) + "\"";
}

void table_html(const Table& t, std::string& out) {
  if (!t.title.empty()) out += "<h3>" + html_escape(t.title) + "</h3>\n";
  out += "<table>\n<tr>";
  for (std::size_t i = 0; i < t.header.size(); ++i)
    out += fmt::format("<th{}>{}</th>", t.left(i) ? " class=\"l\"" : "", html_escape(t.header[i]));
  out += "</tr>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (std::size_t i = 0; i < row.size(); ++i)
      out += fmt::format("<td{}>{}</td>", cell_class(row[i].tone, t.left(i), row[i].heat), html_escape(row[i].text));
    out += "</tr>\n";
  }
  out += "</table>\n";
  if (!t.note.empty()) out += "<p class=\"note\">" + html_escape(t.note) + "</p>\n";
}

void charts_html(const Report& r, const ChartImages& images, std::string& out) {
  if (!images.unavailable.empty()) {
    out += "<p class=\"unavailable\">Charts are unavailable: " + html_escape(images.unavailable) +
           ". Everything else in this report is complete.</p>\n";
    return;
  }
  static const char* kinds[] = {"busbw vs size", "time vs size", "busbw ratio to the baseline vs size"};
  for (std::size_t g = 0; g < r.charts.size(); ++g) {
    out += "<h3>" + html_escape(r.charts[g].title) + "</h3>\n";
    if (g * 3 >= images.svg.size()) {
      out += "<p class=\"note\">Not drawn: more chart groups than the report draws.</p>\n";
      continue;
    }
    // Only the charts that have something to draw (a ratio needs a second set).
    std::string figures;
    for (std::size_t k = 0; k < 3; ++k)
      if (const std::string& svg = images.svg[g * 3 + k]; !svg.empty())
        figures += fmt::format("<figure class=\"chart\"><figcaption>{}</figcaption>\n{}</figure>\n", kinds[k], svg);
    out += figures.empty() ? std::string("<p class=\"note\">Nothing to draw: no size with a positive value.</p>\n")
                           : "<div class=\"charts\">\n" + figures + "</div>\n";
  }
}

}  // namespace

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') ? '?' : c;
    }
  }
  return out;
}

std::string render_html(const Report& r, const ChartImages& charts) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src "
      "data:\">\n";
  out += "<title>" + html_escape(r.title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  out += "<h1>" + html_escape(r.title) + "</h1>\n";
  for (const Section& s : r.sections) {
    out += "<h2>" + html_escape(s.heading) + "</h2>\n";
    for (const auto& p : s.paragraphs) out += "<p>" + html_escape(p) + "</p>\n";
    if (s.chart >= 0) charts_html(r, charts, out);
    for (const Table& t : s.tables) table_html(t, out);
  }
  out +=
      "<p class=\"note\">Made by ccbench. Sizes in binary units (KiB = 1024 B); bandwidths in decimal GB/s "
      "(1e9 B/s); times in microseconds.</p>\n</body>\n</html>\n";
  return out;
}

}  // namespace ccb
