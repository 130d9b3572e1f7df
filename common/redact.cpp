#include "common/redact.hpp"

namespace ccb {

namespace {

constexpr std::string_view kHidden = "<redacted>";

bool ends_value(char c) { return c == '&' || c == ' ' || c == '\t' || c == '\n' || c == '\'' || c == '"'; }

}  // namespace

std::string redact_credentials(std::string_view text) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    // scheme://user:password@ : the password up to the '@' that ends the authority
    if (const std::size_t scheme = text.find("://", at); scheme != std::string_view::npos) {
      const std::size_t authority = scheme + 3;
      std::size_t end = authority;
      while (end < text.size() && text[end] != '/' && text[end] != '?' && text[end] != '#' && !ends_value(text[end]))
        ++end;
      const std::size_t atsign = text.rfind('@', end == authority ? authority : end - 1);
      const std::size_t colon = text.find(':', authority);
      if (atsign != std::string_view::npos && atsign >= authority && atsign < end && colon < atsign) {
        out += text.substr(at, colon + 1 - at);
        out += kHidden;
        at = atsign;
        continue;
      }
      out += text.substr(at, authority - at);
      at = authority;
      continue;
    }
    out += text.substr(at);
    break;
  }
  // password=VALUE (a URL's query, a libpq keyword string)
  std::string done;
  for (std::size_t i = 0; i < out.size();) {
    const std::size_t p = out.find("password=", i);
    if (p == std::string::npos) {
      done += out.substr(i);
      break;
    }
    const std::size_t value = p + 9;
    std::size_t end = value;
    while (end < out.size() && !ends_value(out[end])) ++end;
    done += out.substr(i, value - i);
    done += end > value ? std::string(kHidden) : "";
    i = end;
  }
  return done;
}

}  // namespace ccb
