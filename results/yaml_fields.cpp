#include "results/yaml_fields.hpp"

#include <vector>

#include <fmt/format.h>
#include <sys/stat.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>

#include "common/errors.hpp"
#include "common/user_file.hpp"

namespace ccb::yamlf {

std::string read_text(const std::string& path, long max_bytes) {
  return read_user_file(path, "", static_cast<std::size_t>(max_bytes));
}

}  // namespace ccb::yamlf

#if CCBENCH_HAVE_YAML
namespace ccb::yamlf {

void fail(const std::string& file, const YAML::Node& n, const std::string& key, const std::string& what) {
  throw UsageError(fmt::format("{}:{}: {}: {}", file, n.Mark().is_null() ? 1 : n.Mark().line + 1, key, what));
}

std::string key_path(const std::string& where, const std::string& key) {
  return where.empty() ? key : where + "." + key;
}

YAML::Node parse_text(const std::string& text, const std::string& file) {
  try {
    YAML::Node root = YAML::Load(text);
    // A second document would be ignored silently: one file, one document. A
    // document marker is "---" at the start of a line; one before any content
    // opens the first document. (Found by text: yaml-cpp 0.7's LoadAll does not
    // return on some truncated flow input, found by fuzz_accept.)
    bool content = false;
    std::size_t line = 1;
    for (std::size_t at = 0; at < text.size(); ++line) {
      const std::size_t end = std::min(text.find('\n', at), text.size());
      const std::string_view l(text.data() + at, end - at);
      const bool marker = l.starts_with("---") && (l.size() == 3 || l[3] == ' ' || l[3] == '\t' || l[3] == '\r');
      if (marker && content)
        throw UsageError(fmt::format("{}:{}: a second YAML document ('---'): one file holds one document", file, line));
      const std::size_t first = l.find_first_not_of(" \t\r");
      if (!marker && first != std::string_view::npos && l[first] != '#') content = true;
      at = end + 1;
    }
    return root;
  } catch (const UsageError&) {
    throw;
  } catch (const YAML::Exception& e) {
    throw UsageError(fmt::format("{}:{}: not valid YAML ({})", file, e.mark.line + 1, e.msg));
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("{}: cannot read ({})", file, e.what()));
  }
}

YAML::Node load_file(const std::string& path) { return parse_text(read_text(path), path); }

void check_keys(const std::string& file, const YAML::Node& map, const std::string& where,
                const std::set<std::string>& allowed) {
  if (!map.IsMap()) fail(file, map, where.empty() ? "(top level)" : where, "expected a mapping of key: value");
  std::set<std::string> seen;
  for (const auto& kv : map) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string("(not a scalar)");
    if (!seen.insert(key).second) fail(file, kv.first, key_path(where, key), "given twice");
    if (!allowed.count(key)) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      fail(file, kv.first, key_path(where, key), fmt::format("unknown key (allowed: {})", list));
    }
  }
}

double number(const std::string& file, const YAML::Node& map, const std::string& where, const char* key, double lo,
              double hi, bool required, bool whole) {
  const YAML::Node n = map[key];
  if (!n) {
    if (required) fail(file, map, key_path(where, key), "missing");
    return std::numeric_limits<double>::quiet_NaN();
  }
  double v = 0;
  try {
    v = n.as<double>();
  } catch (const YAML::Exception&) {
    fail(file, n, key_path(where, key),
         fmt::format("'{}' is not a number", n.IsScalar() ? n.Scalar() : std::string("(not a scalar)")));
  }
  if (!std::isfinite(v) || v < lo || v > hi)
    fail(file, n, key_path(where, key), fmt::format("{} is out of range [{}, {}]", v, lo, hi));
  if (whole && v != std::floor(v)) fail(file, n, key_path(where, key), fmt::format("{} is not a whole number", v));
  return v;
}

std::string text(const std::string& file, const YAML::Node& map, const std::string& where, const char* key,
                 bool required) {
  const YAML::Node n = map[key];
  if (!n) {
    if (required) fail(file, map, key_path(where, key), "missing");
    return "";
  }
  if (!n.IsScalar()) fail(file, n, key_path(where, key), "expected a string");
  return n.Scalar();
}

}  // namespace ccb::yamlf
#endif
