// Terminal (aligned columns, colour on a TTY) and Markdown renderings.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "results/report/render.hpp"

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

std::size_t display_width(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;  // count UTF-8 code points
  return n;
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
      case '\n': case '\r': case '\t': out += ' '; break;
      default: out += static_cast<unsigned char>(c) < 0x20 ? '?' : c;
    }
  }
  return out;
}

}  // namespace

std::string terminal_safe(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      out += (c < 0x20 || c == 0x7f) ? '?' : static_cast<char>(c);
      ++i;
      continue;
    }
    // Keep a well-formed UTF-8 sequence; any other byte becomes '?'.
    const std::size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
    bool ok = len > 0 && i + len <= s.size() && (len != 3 || c <= 0xEF);
    for (std::size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out += '?';
      ++i;
    }
  }
  return out;
}

bool use_color(std::string_view when) {
  return when == "always" || (when == "auto" && isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR"));
}

std::string render_terminal(const Report& r, bool color) {
  std::string out = terminal_safe(r.title) + "\n";
  for (const Section& s : r.sections) {
    out += fmt::format("\n== {} ==\n", terminal_safe(s.heading));
    for (const std::string& p : s.paragraphs) out += terminal_safe(p) + "\n";
    if (s.chart >= 0) out += "(charts: in the HTML report, --html FILE)\n";
    for (const Table& t : s.tables) {
      if (!t.title.empty()) out += fmt::format("\n-- {} --\n", terminal_safe(t.title));
      std::vector<std::size_t> w(t.header.size(), 0);
      for (std::size_t i = 0; i < t.header.size(); ++i) w[i] = display_width(terminal_safe(t.header[i]));
      for (const auto& row : t.rows)
        for (std::size_t i = 0; i < row.size() && i < w.size(); ++i) w[i] = std::max(w[i], display_width(terminal_safe(row[i].text)));
      const auto line = [&](const std::vector<Cell>& cells) {
        std::string l;
        for (std::size_t i = 0; i < cells.size() && i < w.size(); ++i) {
          const std::string text = terminal_safe(cells[i].text);
          const std::string pad(w[i] - display_width(text), ' ');
          const bool tint = color && cells[i].tone != Tone::plain;
          const std::string shown = tint ? std::string(ansi(cells[i].tone)) + text + "\033[0m" : text;
          l += (i ? "  " : "") + (t.left(i) ? shown + pad : pad + shown);
        }
        while (!l.empty() && l.back() == ' ') l.pop_back();
        return l + "\n";
      };
      std::vector<Cell> head;
      for (const auto& h : t.header) head.push_back({h});
      out += line(head);
      for (const auto& row : t.rows) out += line(row);
      if (!t.note.empty()) out += terminal_safe(t.note) + "\n";
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
