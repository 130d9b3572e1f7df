// Text from files, arguments and other processes made safe to print on a
// terminal (docs/failures.md "Output safety").
#pragma once
#include <string>
#include <string_view>

namespace ccb {

// Printable text for a terminal: control bytes and malformed UTF-8 become '?'.
std::string terminal_safe(std::string_view s);
// The same for a multi-line text: each line made safe, the newlines kept.
std::string terminal_safe_lines(std::string_view s);

}  // namespace ccb
