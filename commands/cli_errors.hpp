// CLI11's parse errors in ccbench's one-line style: the flag first, then
// what is wrong and what is allowed ("--qd 0: out of range (allowed: 1 to
// 4096)", "-Q: unknown option"), whatever the command.
#pragma once
#include <fmt/format.h>

#include "common/errors.hpp"
#include "common/terminal_text.hpp"

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <string>
#include <utility>

namespace ccb {

// A number of seconds >= 0 ("-T/--timeout 'x': not a number of seconds >= 0").
inline double parse_seconds(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || v < 0)
    throw UsageError(fmt::format("{} '{}': not a number of seconds >= 0", flag, text));
  return v;
}

inline std::string usage_line(const CLI::ParseError& e) {
  const std::string m = e.what();
  std::smatch g;
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    const std::string extras = m.substr(m.find(": ") == std::string::npos ? 0 : m.find(": ") + 2);
    return fmt::format("{}: unknown option or extra argument", extras);
  }
  static const std::regex range(R"(^(-[-\w]+): Value (.*) not in range (.+) to (.+)$)");
  if (std::regex_match(m, g, range))
    return fmt::format("{} '{}': not a whole number in range (allowed: {} to {})", g[1].str(), g[2].str(), g[3].str(),
                       g[4].str());
  static const std::regex member(R"(^(-[-\w]+): (.*) not in \{(.*)\}$)");
  if (std::regex_match(m, g, member)) {
    std::string allowed = g[3].str();
    for (std::size_t at = 0; (at = allowed.find(',', at)) != std::string::npos; at += 2) allowed.replace(at, 1, ", ");
    return fmt::format("{} '{}': unknown (allowed: {})", g[1].str(), g[2].str(), allowed);
  }
  static const std::regex missing(R"(^(-[-\w]+): \d+ required .* missing$)");
  if (std::regex_match(m, g, missing)) return fmt::format("{}: a value is missing", g[1].str());
  return m;
}

// Parses the command line into `app`; a parse error becomes one UsageError
// line: "<what>: <usage_line> (see ccbench <command> --help)" (no "<what>: "
// when `what` is empty; "ccbench --help" when `command` is).
inline void parse_or_usage_error(CLI::App& app, int argc, const char* const* argv, const std::string& what,
                                 const std::string& command) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    throw UsageError(fmt::format("{}{} (see ccbench {}--help)", what.empty() ? "" : what + ": ", usage_line(e),
                                 command.empty() ? "" : command + " "));
  }
}

// "LABEL=VALUE" (--run, --cost, --curves): UsageError "FLAG 'V': expected LABEL=VALUE".
inline std::pair<std::string, std::string> split_assignment(const std::string& flag, const std::string& v) {
  const std::size_t eq = v.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
    throw UsageError(fmt::format("{} '{}': expected LABEL=VALUE", flag, terminal_safe(v)));
  return {v.substr(0, eq), v.substr(eq + 1)};
}

}  // namespace ccb
