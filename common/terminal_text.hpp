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

// Columns a UTF-8 text takes (its code points).
std::size_t display_width(std::string_view s);
// Words (split at spaces) wrapped at `width` columns, each line ending in a
// newline, the lines after the first starting with `indent`.
std::string wrap_words(std::string_view text, std::size_t width, std::string_view indent = "");

}  // namespace ccb
