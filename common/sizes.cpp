#include "common/sizes.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <limits>
#include <utility>

namespace ccb {

std::optional<std::size_t> parse_size(std::string_view text) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return std::nullopt;
  std::size_t value = 0;
  std::size_t i = 0;
  constexpr auto kMax = std::numeric_limits<std::size_t>::max();
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    const std::size_t digit = static_cast<std::size_t>(text[i] - '0');
    if (value > (kMax - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  std::string_view suffix = text.substr(i);
  // KiB, MiB, ... are binary; KB, MB, ... (decimal to many readers) are refused (size_error).
  if (suffix.size() == 3 && (suffix[1] == 'i' || suffix[1] == 'I') && (suffix[2] == 'B' || suffix[2] == 'b'))
    suffix = suffix.substr(0, 1);
  int shift = 0;
  if (suffix.empty()) shift = 0;
  else if (suffix.size() == 1) {
    switch (std::toupper(static_cast<unsigned char>(suffix[0]))) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      case 'T': shift = 40; break;
      case 'B': shift = 0; break;
      default: return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  if (shift && value > (kMax >> shift)) return std::nullopt;
  return value << shift;
}

std::string size_error(std::string_view text) {
  const std::string t(text);
  if (t.size() >= 3 && std::isdigit(static_cast<unsigned char>(t[0])) && (t.back() == 'B' || t.back() == 'b') &&
      std::string_view("KkMmGgTt").find(t[t.size() - 2]) != std::string_view::npos) {
    const std::string number = t.substr(0, t.size() - 2),
                      unit(1, static_cast<char>(std::toupper(static_cast<unsigned char>(t[t.size() - 2]))));
    return fmt::format("'{}': sizes are binary (K = 1024): write {}{} or {}{}iB; decimal KB, MB, GB are not taken", t,
                       number, unit, number, unit);
  }
  return fmt::format("'{}': not a size (bytes with an optional binary suffix: 8, 64K, 1M or 1MiB, 2G)", t);
}

std::string format_size(double bytes) {
  if (std::isnan(bytes)) return "-";
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  double v = bytes;
  while (v >= 1024 && u < 5) v /= 1024, ++u;
  // Whole, or 1000-1023.x of a unit (3 significant digits would print 1.02e+03): no decimals.
  if (v == std::floor(v) || v >= 999.5) return fmt::format("{:.0f} {}", v, kUnits[u]);
  return fmt::format("{:.3g} {}", v, kUnits[u]);
}

std::string size_as_typed(std::size_t bytes) {
  for (const auto& [shift, suffix] : {std::pair{30, "G"}, std::pair{20, "M"}, std::pair{10, "K"}})
    if (bytes >= (std::size_t{1} << shift) && bytes % (std::size_t{1} << shift) == 0)
      return fmt::format("{}{}", bytes >> shift, suffix);
  return std::to_string(bytes);
}

}  // namespace ccb
