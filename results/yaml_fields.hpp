// Reading hand-written YAML files (cost profiles, workloads, acceptance
// specs) with errors that name the file, the line and the key:
// "spec.yaml:12: checks[1].gates[0].min: -3 is out of range [0, 1e+06]".
// Only with yaml-cpp (CCBENCH_HAVE_YAML).
#pragma once
#include <string>

namespace ccb::yamlf {
// The text of a regular file of at most max_bytes; UsageError when it cannot
// be read (also without yaml-cpp: JSON baselines use it).
std::string read_text(const std::string& path, long max_bytes = 1 << 20);
}  // namespace ccb::yamlf

#if CCBENCH_HAVE_YAML
#include <yaml-cpp/yaml.h>

#include <set>

namespace ccb::yamlf {

// Throws UsageError "FILE:LINE: KEY: WHAT" (LINE of node n).
[[noreturn]] void fail(const std::string& file, const YAML::Node& n, const std::string& key, const std::string& what);

// That text, parsed; UsageError when it cannot be read or is not YAML.
YAML::Node load_file(const std::string& path);
// The same for text already read (`file` names it in messages).
YAML::Node parse_text(const std::string& text, const std::string& file);

// `map` must be a mapping whose keys are all in `allowed`, each given once.
// `where` prefixes key names in messages ("checks[2]"; "" at the top).
void check_keys(const std::string& file, const YAML::Node& map, const std::string& where,
                const std::set<std::string>& allowed);

// "where.key" (or "key" when where is empty).
std::string key_path(const std::string& where, const std::string& key);

// map[key] as a number in [lo, hi] (whole: an integer); NaN when absent and not required.
double number(const std::string& file, const YAML::Node& map, const std::string& where, const char* key, double lo,
              double hi, bool required, bool whole = false);
// map[key] as a string ("" when absent and not required).
std::string text(const std::string& file, const YAML::Node& map, const std::string& where, const char* key,
                 bool required = false);

}  // namespace ccb::yamlf
#endif
