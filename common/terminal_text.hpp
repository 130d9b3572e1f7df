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

// The text with every byte that is not part of well-formed UTF-8 (RFC 3629:
// no overlong forms, no surrogates, nothing above U+10FFFF) replaced by
// U+FFFD: what a consumer that validates UTF-8 (Prometheus, JSON) accepts.
std::string utf8_repaired(std::string_view s);

}  // namespace ccb
