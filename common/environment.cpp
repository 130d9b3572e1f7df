#include "common/environment.hpp"

#include <fmt/format.h>

#include <cstdlib>

namespace ccb {

const char* env_value(EnvVar v) {
  for (const EnvVarInfo& e : kEnvVars)
    if (e.var == v) return std::getenv(e.name);
  return nullptr;
}

std::string environment_help() {
  constexpr std::size_t kIndent = 27, kWidth = 80;
  std::string s = "Environment variables (ccbench's own; a run records them, secrets redacted):\n";
  for (const EnvVarInfo& e : kEnvVars) {
    const std::string text = fmt::format("{} (default: {})", e.meaning, e.default_value);
    std::string line = fmt::format("  {:<{}}", e.name, kIndent - 2);
    for (std::size_t at = 0; at < text.size();) {  // words wrapped at kWidth
      std::size_t end = text.find(' ', at);
      if (end == std::string::npos) end = text.size();
      const std::string_view word(text.data() + at, end - at);
      if (line.size() > kIndent && line.size() + 1 + word.size() > kWidth) {
        s += line + "\n";
        line.assign(kIndent, ' ');
      } else if (line.size() > kIndent) {
        line += ' ';
      } else {
        line.resize(kIndent, ' ');
      }
      line += word;
      at = end + 1;
    }
    s += line + "\n";
  }
  return s;
}

}  // namespace ccb
