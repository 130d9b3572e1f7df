// What the traffic models share (collectives/traffic.cpp, moe_routing.cpp):
// strict number parsing of their fields and draws from a fixed generator, so
// a model and seed give the same counts with any standard library.
#pragma once
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string_view>

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

}  // namespace ccb::traffic_draws
