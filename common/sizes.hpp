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
// 1024 -> "1K", 1536 -> "1536", 67108864 -> "64M".
std::string format_size(std::size_t bytes);

}  // namespace ccb
