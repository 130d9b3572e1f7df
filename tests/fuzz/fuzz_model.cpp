// libFuzzer target: the model file reader (ccbench model predict/check) on
// arbitrary bytes, and predictions from whatever it accepts. Bad input must
// end in a UsageError naming the file, never a crash or another exception.
#include <cstdint>
#include <string>

#include "common/errors.hpp"
#include "analysis/model/comm_model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const ccb::Model m = ccb::model_from_json(text, "fuzz-model.json");
    (void)ccb::predict(m, 64, 8, {});
    (void)ccb::predict(m, 3, 1, {1, 1u << 20, ~std::uint64_t{0} >> 4});
    (void)ccb::model_to_json(m);
  } catch (const ccb::UsageError&) {}
  return 0;
}
