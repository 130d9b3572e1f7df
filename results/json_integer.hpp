// Whole numbers read from JSON files a user hands in (model, baseline).
// nlohmann's get<int>() converts a number that does not fit (1e300 into an
// int, 2.5 into a size) with a static_cast: undefined behaviour, and in
// practice a silent garbage value. json_integer reads a number only when it
// is whole and fits T, and otherwise throws nlohmann's own out_of_range, so
// a reader's `catch (const json::exception&)` names the file as malformed.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <type_traits>
#include <utility>
#include <vector>

namespace ccb {

template <class T>
T json_integer(const nlohmann::json& v) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (std::in_range<T>(u)) return static_cast<T>(u);
  } else if (v.is_number_integer()) {
    const auto i = v.get<std::int64_t>();
    if (std::in_range<T>(i)) return static_cast<T>(i);
  } else if (v.is_number_float()) {
    // A whole float (8.0) is read as the integer; [lo, hi) in doubles: the
    // largest T is not exactly representable, but T's max + 1 is a power of 2.
    const double d = v.get<double>();
    const double lo = static_cast<double>(std::numeric_limits<T>::min());
    const double hi = 2.0 * static_cast<double>(std::numeric_limits<T>::max() / 2 + 1);
    if (std::isfinite(d) && std::trunc(d) == d && d >= lo && d < hi) return static_cast<T>(d);
  }
  throw nlohmann::json::out_of_range::create(406,
                                             v.is_number()
                                                 ? v.dump() + " is not a whole number in range"
                                                 : "expected a whole number, got " + std::string(v.type_name()),
                                             &v);
}

template <class T>
std::vector<T> json_integers(const nlohmann::json& v) {
  if (!v.is_array())
    throw nlohmann::json::type_error::create(
        302, "expected an array of whole numbers, got " + std::string(v.type_name()), &v);
  std::vector<T> out;
  out.reserve(v.size());
  for (const nlohmann::json& x : v) out.push_back(json_integer<T>(x));
  return out;
}

}  // namespace ccb
