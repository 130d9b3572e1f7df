// What the traffic models share (collectives/traffic.cpp, moe_routing.cpp):
// strict number parsing of their fields and files, and draws from a fixed
// generator, so a model and seed give the same counts with any standard
// library.
#pragma once
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "common/errors.hpp"

namespace ccb::traffic_draws {

inline std::optional<double> number(std::string_view s) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

inline std::optional<std::uint64_t> whole(std::string_view s) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// [0, 1) from the generator's top 53 bits.
inline double uniform01(std::mt19937_64& g) { return static_cast<double>(g() >> 11) * 0x1.0p-53; }

// Standard normals by Box-Muller (std::normal_distribution's algorithm
// differs between standard libraries).
inline double standard_normal(std::mt19937_64& g) {
  const double u1 = (static_cast<double>(g() >> 11) + 0.5) * 0x1.0p-53;  // (0, 1)
  const double u2 = uniform01(g);
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
}

// A file of whitespace-separated numbers in rows of equal length (nccl-tests'
// matrix file, a MoE routing file), row by row; lines starting with '#' are
// comments where `comments`. `what` names the file in messages ("traffic
// matrix m.txt"), `value_words` what an entry must be ("a byte count (a
// number >= 0)"). UsageError (one line) on a bad entry, ragged rows, more
// than 65536 rows or none.
struct NumberTable {
  std::size_t rows = 0, cols = 0;
  std::vector<double> values;
};
inline NumberTable read_number_table(const std::string& text, const std::string& what, const char* value_words,
                                     double max, bool comments) {
  NumberTable t;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (comments && line.starts_with('#')) continue;
    std::istringstream tokens(line);
    std::string token;
    std::size_t col = 0;
    while (tokens >> token) {
      const auto v = number(token);
      if (!v || *v < 0 || *v > max)
        throw UsageError(fmt::format("{}: row {}, column {}: '{}' is not {}", what, t.rows + 1, col + 1,
                                     token.substr(0, 40), value_words));
      t.values.push_back(*v);
      ++col;
    }
    if (col == 0) continue;
    if (t.rows == 0) t.cols = col;
    else if (col != t.cols)
      throw UsageError(fmt::format("{}: row {} has {} numbers, row 1 has {}", what, t.rows + 1, col, t.cols));
    if (++t.rows > 1 << 16) throw UsageError(fmt::format("{}: more than 65536 rows", what));
  }
  if (t.rows == 0) throw UsageError(fmt::format("{}: no numbers", what));
  return t;
}

}  // namespace ccb::traffic_draws
