// Byte sizes as users type and read them (the base floor: the CLI, the
// acceptance specs and the reports use these).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ccb {

// "8", "64K", "1M", "2G", "1T", "1MiB" (K = 1024). nullopt when not a size,
// and for "8MB": KB, MB, GB, TB are refused, never taken silently as binary.
std::optional<std::size_t> parse_size(std::string_view text);
// Why `text` is not a size, for a message: "'8MB': sizes are binary ...".
std::string size_error(std::string_view text);
// The one way sizes are printed: 1024 -> "1 KiB", 67108864 -> "64 MiB",
// 1536 -> "1.5 KiB" (3 significant digits when not a whole unit), 8 -> "8 B";
// NaN -> "-".
std::string format_size(double bytes);
inline std::string format_size(std::size_t bytes) { return format_size(static_cast<double>(bytes)); }
// A size as it is typed on a command line: 32M, 1K, 100 (binary suffixes;
// parse_size reads it back).
std::string size_as_typed(std::size_t bytes);

}  // namespace ccb
