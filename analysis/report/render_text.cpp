// Terminal (aligned columns, colour on a TTY) and Markdown renderings.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "common/launcher.hpp"
#include "common/terminal_text.hpp"
#include "analysis/report/render.hpp"

namespace ccb {
namespace {

const char* ansi(Tone t) {
  switch (t) {
    case Tone::better: return "\033[32m";
    case Tone::worse: return "\033[31m";
    case Tone::muted: return "\033[2m";
    case Tone::warn: return "\033[33m";
    case Tone::plain: break;
  }
  return "";
}

std::string markdown_cell(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '|': out += "\\|"; break;
      case '\\': out += "\\\\"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '`': out += "\\`"; break;
      case '*': out += "\\*"; break;
      case '_': out += "\\_"; break;
      case '[': out += "\\["; break;
      case ']': out += "\\]"; break;
      case '\n':
      case '\r':
      case '\t': out += ' '; break;
      default: out += static_cast<unsigned char>(c) < 0x20 ? '?' : c;
    }
  }
  return out;
}

}  // namespace

bool use_color(std::string_view when) {
  // Under mpirun or srun a rank's stdout may be a pseudo-terminal although the
  // job's output goes to a file: no colour there unless asked for.
  return when == "always" ||
         (when == "auto" && !launcher_rank_variable() && isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR"));
}

namespace {

constexpr std::size_t kParagraphWidth = 100, kTableWidth = 160, kMinColumn = 12;

// Words wrapped at kParagraphWidth columns.
std::string wrapped(const std::string& text) { return wrap_words(text, kParagraphWidth); }

// The first `width` columns of a cell, "..." marking what was cut.
std::string elided(const std::string& text, std::size_t width) {
  if (display_width(text) <= width) return text;
  std::string out;
  std::size_t n = 0;
  for (std::size_t i = 0; i < text.size() && n + 3 < width; ++i) {
    out += text[i];
    if (i + 1 == text.size() || (static_cast<unsigned char>(text[i + 1]) & 0xC0) != 0x80) ++n;
  }
  return out + "...";
}

// Cut so that the part from byte `from` on shows (where cells that would
// read alike differ): a third of the width from the start, "...", the text
// from `from` ("alltoall f...in-place, path auto, d...").
std::string elided_at(const std::string& text, std::size_t width, std::size_t from) {
  while (from > 0 && from < text.size() && (static_cast<unsigned char>(text[from]) & 0xC0) == 0x80) --from;
  const std::string head = elided(text, std::max<std::size_t>(width / 3, 4));
  const std::size_t used = display_width(head);
  return used + 4 > width ? elided(text, width) : head + elided(text.substr(from), width - used);
}

// The cells of each row as a column of `width` shows them: cut at the end;
// cells whose cut texts would read alike though they differ (in-place and
// out-of-place series with one long name) cut around where they differ.
std::vector<std::vector<std::string>> cut_cells(const Table& t, const std::vector<std::size_t>& width) {
  std::vector<std::vector<std::string>> out(t.rows.size());
  for (std::size_t r = 0; r < t.rows.size(); ++r)
    for (std::size_t i = 0; i < t.rows[r].size() && i < width.size(); ++i)
      out[r].push_back(elided(terminal_safe(t.rows[r][i].text), width[i]));
  for (std::size_t i = 0; i < width.size(); ++i) {
    std::map<std::string, std::vector<std::size_t>> alike;  // cut text -> rows
    for (std::size_t r = 0; r < out.size(); ++r)
      if (i < out[r].size()) alike[out[r][i]].push_back(r);
    for (const auto& [cut, rows] : alike) {
      if (rows.size() < 2) continue;
      const std::string first = terminal_safe(t.rows[rows.front()][i].text);
      std::size_t common = first.size();
      bool differ = false;
      for (std::size_t r : rows) {
        const std::string text = terminal_safe(t.rows[r][i].text);
        std::size_t k = 0;
        while (k < common && k < text.size() && text[k] == first[k]) ++k;
        differ = differ || text != first;
        common = std::min(common, k);
      }
      if (!differ) continue;
      for (std::size_t r : rows) out[r][i] = elided_at(terminal_safe(t.rows[r][i].text), width[i], common);
    }
  }
  return out;
}

}  // namespace

std::string render_terminal(const Report& r, bool color) {
  std::string out = terminal_safe(r.title) + "\n";
  for (const Section& s : r.sections) {
    out += fmt::format("\n== {} ==\n", terminal_safe(s.heading));
    for (const std::string& p : s.paragraphs) out += wrapped(terminal_safe(p));
    if (s.chart >= 0) out += "(charts: in the HTML report, --html FILE)\n";
    for (const Table& t : s.tables) {
      if (!t.title.empty()) out += fmt::format("\n-- {} --\n", terminal_safe(t.title));
      std::vector<std::size_t> w(t.header.size(), 0);
      for (std::size_t i = 0; i < t.header.size(); ++i) w[i] = display_width(terminal_safe(t.header[i]));
      std::vector<std::size_t> data(t.header.size(), 0);  // the widest cell below the header
      for (const auto& row : t.rows)
        for (std::size_t i = 0; i < row.size() && i < w.size(); ++i)
          data[i] = std::max(data[i], display_width(terminal_safe(row[i].text)));
      for (std::size_t i = 0; i < w.size(); ++i) w[i] = std::max(w[i], data[i]);
      // At most kTableWidth columns: number columns keep their numbers (their
      // headers are cut), text columns are cut from the widest down.
      const auto total = [&] {
        std::size_t sum = w.empty() ? 0 : 2 * (w.size() - 1);
        for (std::size_t x : w) sum += x;
        return sum;
      };
      for (std::size_t i = 0; i < w.size() && total() > kTableWidth && !t.keep_header; ++i)
        if (!t.left(i)) w[i] = std::max({data[i], kMinColumn / 2, std::min<std::size_t>(w[i], 8)});
      while (total() > kTableWidth) {
        std::size_t widest = w.size();
        for (std::size_t i = 0; i < w.size(); ++i)
          if (t.left(i) && w[i] > kMinColumn && (widest == w.size() || w[i] > w[widest])) widest = i;
        if (widest == w.size()) break;
        --w[widest];
      }
      const auto line = [&](const std::vector<Cell>& cells, const std::vector<std::string>* cut) {
        std::string l;
        for (std::size_t i = 0; i < cells.size() && i < w.size(); ++i) {
          const std::string text = cut ? (*cut)[i] : elided(terminal_safe(cells[i].text), w[i]);
          const std::string pad(w[i] - display_width(text), ' ');
          const bool tint = color && cells[i].tone != Tone::plain;
          const std::string shown = tint ? std::string(ansi(cells[i].tone)) + text + "\033[0m" : text;
          l += (i ? "  " : "") + (t.left(i) ? shown + pad : pad + shown);
        }
        while (!l.empty() && l.back() == ' ') l.pop_back();
        return l + "\n";
      };
      if (total() > kTableWidth) {
        // Too wide for a terminal even cut: one block per row, "header: value".
        std::size_t hw = 0;
        for (const auto& h : t.header) hw = std::max(hw, display_width(terminal_safe(h)));
        for (const auto& row : t.rows) {
          for (std::size_t i = 0; i < row.size() && i < t.header.size(); ++i) {
            const std::string text = elided(terminal_safe(row[i].text),
                                            kTableWidth > hw + 4 + kMinColumn ? kTableWidth - hw - 4 : kMinColumn);
            const bool tint = color && row[i].tone != Tone::plain;
            const std::string head = terminal_safe(t.header[i]);
            out += fmt::format("{}{}{}: {}\n", i ? "  " : "- ", head, std::string(hw - display_width(head), ' '),
                               tint ? std::string(ansi(row[i].tone)) + text + "\033[0m" : text);
          }
        }
        if (!t.note.empty()) out += wrapped(terminal_safe(t.note));
        continue;
      }
      std::vector<Cell> head;
      for (const auto& h : t.header) head.push_back({h});
      out += line(head, nullptr);
      const std::vector<std::vector<std::string>> cut = cut_cells(t, w);
      for (std::size_t r = 0; r < t.rows.size(); ++r) out += line(t.rows[r], &cut[r]);
      if (!t.note.empty()) out += wrapped(terminal_safe(t.note));
    }
  }
  return out;
}

std::string render_markdown(const Report& r) {
  std::string out = "# " + markdown_cell(r.title) + "\n";
  for (const Section& s : r.sections) {
    out += "\n## " + markdown_cell(s.heading) + "\n\n";
    for (const std::string& p : s.paragraphs) out += markdown_cell(p) + "\n\n";
    if (s.chart >= 0) out += "Charts are in the HTML report (`--html FILE`).\n\n";
    for (const Table& t : s.tables) {
      if (!t.title.empty()) out += "### " + markdown_cell(t.title) + "\n\n";
      out += "|";
      for (const auto& h : t.header) out += " " + markdown_cell(h) + " |";
      out += "\n|";
      for (std::size_t i = 0; i < t.header.size(); ++i) out += t.left(i) ? "---|" : "---:|";
      out += "\n";
      for (const auto& row : t.rows) {
        out += "|";
        for (const auto& cell : row) {
          const std::string text = markdown_cell(cell.text);
          out += " " + (cell.tone == Tone::better || cell.tone == Tone::worse ? "**" + text + "**" : text) + " |";
        }
        out += "\n";
      }
      if (!t.note.empty()) out += "\n" + markdown_cell(t.note) + "\n";
      out += "\n";
    }
  }
  return out;
}

}  // namespace ccb
