// libFuzzer target: the YAML profile parsers (cost profile and workload, the
// comparator's spec files) on arbitrary bytes. Bad input must end in a
// UsageError naming the file, never a crash or another exception.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "common/errors.hpp"
#include "analysis/compare/cost.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/tmp/ccbench-fuzz-profile-" + std::to_string(getpid()) + ".yaml";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    (void)ccb::load_cost_profile(path);
  } catch (const ccb::UsageError&) {}
  try {
    (void)ccb::load_workload(path);
  } catch (const ccb::UsageError&) {}
  return 0;
}
