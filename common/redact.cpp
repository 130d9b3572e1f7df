#include "common/redact.hpp"

#include "common/terminal_text.hpp"

#include <cctype>

namespace ccb {

namespace {

constexpr std::string_view kHidden = "<redacted>";

bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool ends_token(char c) { return space(c) || c == '\'' || c == '"'; }

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

// A URI query key as libpq reads it: percent-decoded ("pass%77ord" is password).
std::string decoded(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

bool secret_key(std::string_view key) { return key == "password" || key == "sslpassword"; }

// One token with a scheme ("postgresql://", also the mistyped
// "postgresql:/"): the user information's password up to the token's last
// '@' (libpq reads "u:s3cret?x@/db" and "u:s3cret#x@" that way; "u:s3cret/x@h"
// puts it in the port), then every query parameter whose decoded key is a
// password.
std::string redact_uri(std::string_view token, bool omit) {
  const std::size_t colon = token.find(':');
  std::size_t authority = colon + 1;
  while (authority < token.size() && token[authority] == '/') ++authority;
  std::string out(token.substr(0, authority));
  std::string_view rest = token.substr(authority);
  if (const std::size_t at = rest.rfind('@'); at != std::string_view::npos) {
    const std::size_t pw = rest.substr(0, at).find(':');
    if (pw != std::string_view::npos) {
      out += rest.substr(0, omit ? pw : pw + 1);
      if (!omit) out += kHidden;
      rest = rest.substr(at);
    }
  }
  const std::size_t q = rest.find('?');
  out += rest.substr(0, q);
  if (q == std::string_view::npos) return out;
  std::string_view query = rest.substr(q + 1);
  std::string params;  // kept ones, '&' between
  while (true) {
    const std::size_t amp = query.find('&');
    const std::string_view param = query.substr(0, amp);
    const std::size_t eq = param.find('=');
    const bool secret = eq != std::string_view::npos && secret_key(decoded(param.substr(0, eq)));
    if (!(secret && omit)) {
      if (!params.empty() || (!omit && query.data() != rest.data() + q + 1)) params += '&';
      params += secret ? std::string(param.substr(0, eq + 1)) + std::string(kHidden) : std::string(param);
    }
    if (amp == std::string_view::npos) break;
    query = query.substr(amp + 1);
  }
  return params.empty() && omit ? out : out + "?" + params;
}

// Whether `token` starts with a URI scheme (letters, digits, + - .) and ':/'.
bool has_scheme(std::string_view token) {
  const std::size_t colon = token.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 >= token.size() || token[colon + 1] != '/')
    return false;
  for (std::size_t i = 0; i < colon; ++i)
    if (!std::isalnum(static_cast<unsigned char>(token[i])) && token[i] != '+' && token[i] != '-' && token[i] != '.')
      return false;
  return true;
}

}  // namespace

std::string redact_credentials(std::string_view text) {
  // URIs, token by token (a token ends at white space or a quote).
  std::string uris;
  for (std::size_t i = 0; i < text.size();) {
    if (ends_token(text[i])) {
      uris += text[i++];
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && !ends_token(text[end])) ++end;
    std::string_view token = text.substr(i, end - i);
    // a token may carry a prefix before its scheme ("--history=postgresql://...", "url:postgres://")
    const std::size_t scheme =
        token.find("://") != std::string_view::npos ? token.rfind(':', token.find("://")) : token.find(":/");
    std::size_t start = scheme;
    while (start != std::string_view::npos && start > 0 &&
           (std::isalnum(static_cast<unsigned char>(token[start - 1])) || token[start - 1] == '+' ||
            token[start - 1] == '-' || token[start - 1] == '.'))
      --start;
    if (scheme != std::string_view::npos && has_scheme(token.substr(start))) {
      uris += token.substr(0, start);
      uris += redact_uri(token.substr(start), false);
    } else {
      uris += token;
    }
    i = end;
  }
  // libpq's keyword form: password = VALUE or 'quoted \' value' (spaces
  // around '=' allowed), also a URI's password= left unencoded in a message.
  std::string out;
  for (std::size_t i = 0; i < uris.size();) {
    std::size_t key = std::string::npos;
    for (std::string_view k : {"sslpassword", "password"}) {
      const std::size_t p = uris.find(k, i);
      if (p != std::string::npos && (key == std::string::npos || p < key)) key = p;
    }
    if (key == std::string::npos) {
      out += uris.substr(i);
      break;
    }
    const std::size_t name_end = uris.compare(key, 11, "sslpassword") == 0 ? key + 11 : key + 8;
    std::size_t eq = name_end;
    while (eq < uris.size() && space(uris[eq])) ++eq;
    if (eq >= uris.size() || uris[eq] != '=') {
      out += uris.substr(i, name_end - i);
      i = name_end;
      continue;
    }
    std::size_t value = eq + 1;
    while (value < uris.size() && space(uris[value])) ++value;
    std::size_t end = value;
    if (end < uris.size() && uris[end] == '\'') {  // quoted: up to the unescaped closing quote
      ++end;
      while (end < uris.size() && uris[end] != '\'') end += uris[end] == '\\' ? 2 : 1;
      end = std::min(end + 1, uris.size());
    } else {
      while (end < uris.size() && !space(uris[end]) && uris[end] != '&' && uris[end] != '"') ++end;
    }
    out += uris.substr(i, value - i);
    if (end > value && uris.compare(value, kHidden.size(), kHidden) != 0) out += kHidden;
    else out += uris.substr(value, end - value);
    i = end;
  }
  return out;
}

std::string url_without_credentials(std::string_view url) {
  if (!has_scheme(url)) return std::string(url);
  const std::string kept = redact_uri(url, true);
  return kept.find("password") == std::string::npos ? kept : redact_credentials(kept);
}

std::string printable_error(std::string_view what) { return terminal_safe(redact_credentials(what)); }

}  // namespace ccb
