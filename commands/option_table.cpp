#include "commands/option_table.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace ccb {
namespace {

constexpr std::size_t kHelpColumn = 23, kWidth = 96;

// "-n, --steps N" from "-n,--steps" and "N".
std::string flag_text(const CommandOption& r) {
  std::string s;
  for (std::size_t at = 0; at <= r.flags.size();) {
    const std::size_t comma = std::min(r.flags.find(',', at), r.flags.size());
    s += (s.empty() ? "" : ", ") + r.flags.substr(at, comma - at);
    at = comma + 1;
  }
  return r.value.empty() ? s : s + " " + r.value;
}

}  // namespace

CLI::Validator finite_range(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || !std::isfinite(v) || v < lo || v > hi)
          return fmt::format("Value {} not a number in [{} - {}]", text, lo, hi);
        return "";
      },
      fmt::format("FLOAT in [{} - {}]", lo, hi));
}

CommandOption flag(std::string flags, std::string help, bool& target) {
  std::string spelling = flags;
  return {std::move(flags), "", std::move(help),
          [spelling, &target](CLI::App& app) { return app.add_flag(spelling, target); }};
}

void declare_options(CLI::App& app, const std::vector<CommandOption>& rows) {
  for (const CommandOption& r : rows) r.declare(app);
}

std::string option_list(const std::vector<CommandOption>& rows) {
  std::string out;
  for (const CommandOption& r : rows) {
    if (r.help.empty()) continue;  // declared, not listed: what another ccbench process passes
    std::string line = "  " + flag_text(r);
    if (line.size() + 2 > kHelpColumn) {  // the help starts under its column, on the next line
      out += line + "\n";
      line.clear();
    }
    line.resize(kHelpColumn, ' ');
    bool first = true;
    const std::string_view help = std::string_view(r.help).substr(0, r.help.find('\n'));
    for (std::size_t at = 0; at < help.size();) {
      std::size_t end = help.find(' ', at);
      if (end == std::string::npos) end = help.size();
      const std::string_view word = help.substr(at, end - at);
      if (!first && line.size() + 1 + word.size() > kWidth) {
        out += line + "\n";
        line.assign(kHelpColumn, ' ');
        first = true;
      }
      line += first ? "" : " ";
      line += word;
      first = false;
      at = end + 1;
    }
    out += line + "\n";
    if (help.size() < r.help.size()) {  // lines after the first newline: kept as they are (a table)
      out += r.help.substr(help.size() + 1);
      if (out.back() != '\n') out += '\n';
    }
  }
  return out;
}

}  // namespace ccb
