// libFuzzer target: the acceptance spec parser and the cluster model parser
// (YAML), and the baseline file reader (JSON), on arbitrary bytes. Bad input must end in a UsageError naming
// the file, never a crash or another exception.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "common/errors.hpp"
#include "analysis/accept/baseline.hpp"
#include "analysis/accept/simulate.hpp"
#include "analysis/accept/spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)ccb::parse_spec(text, "fuzz.yaml");
  } catch (const ccb::UsageError&) {}
  try {
    (void)ccb::parse_cluster(text, "fuzz-cluster.yaml");
  } catch (const ccb::UsageError&) {}
  static const std::string path = "/tmp/ccbench-fuzz-baseline-" + std::to_string(getpid()) + ".json";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    (void)ccb::load_baseline(path);
  } catch (const ccb::UsageError&) {}
  return 0;
}
