// A subcommand's options, declared once: each row gives the flag spellings,
// the value's name, the help paragraph (defaults formatted in from the
// command's default-constructed options, so --help cannot drift from them)
// and where the parser puts what was typed. The same rows declare the
// options to CLI11 (declare_options) and render the option list of --help
// (option_list). The sweep's own, wider table is cli_options.hpp.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ccb {

struct CommandOption {
  std::string flags;  // CLI11's spelling: "-n,--steps" (the first long one is the name in messages)
  std::string value;  // the value's name in --help ("N", "FILE"); "" for a flag
  std::string help;   // one paragraph, wrapped when rendered; lines after a newline are kept as they are
  std::function<CLI::Option*(CLI::App&)> declare;
};

// An option whose value goes to `target` (a string, a number, or a vector for a repeated option).
template <class T>
CommandOption option(std::string flags, std::string value, std::string help, T& target) {
  std::string spelling = flags;
  return {std::move(flags), std::move(value), std::move(help),
          [spelling, &target](CLI::App& app) { return app.add_option(spelling, target); }};
}
// The row with a CLI11 check on its value (a range, a set of words, a function).
inline CommandOption checked(CommandOption row, CLI::Validator check) {
  row.declare = [declare = std::move(row.declare), check](CLI::App& app) { return declare(app)->check(check); };
  return row;
}
// A real number in [lo, hi]: NaN and infinities refused (CLI::Range lets NaN
// through, every comparison with it being false).
CLI::Validator finite_range(double lo, double hi);
// An option refused outside [lo, hi].
template <class T>
CommandOption option_in(std::string flags, std::string value, std::string help, T& target, T lo, T hi) {
  if constexpr (std::is_floating_point_v<T>)
    return checked(option(std::move(flags), std::move(value), std::move(help), target),
                   finite_range(static_cast<double>(lo), static_cast<double>(hi)));
  else return checked(option(std::move(flags), std::move(value), std::move(help), target), CLI::Range(lo, hi));
}
// A flag without a value.
CommandOption flag(std::string flags, std::string help, bool& target);

// Declares every row to `app`.
void declare_options(CLI::App& app, const std::vector<CommandOption>& rows);

// The rows as --help lists them (a row without help is not listed: an
// option only another ccbench process passes): "  -n, --steps N        help...", the help
// wrapped at 96 columns under its own column.
std::string option_list(const std::vector<CommandOption>& rows);

}  // namespace ccb
