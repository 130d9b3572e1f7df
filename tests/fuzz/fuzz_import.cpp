// libFuzzer target: one importer (FUZZ_FORMAT) on arbitrary bytes. Nothing
// may crash, hang or trip a sanitizer; every point kept must be sane.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "results/import/importer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ccb::ResultSet set;
  ccb::ImportOptions options;
  options.ranks = 4;
  ccb::ImportContext ctx{set, 0, "fuzz", options, 0};
  set.files.push_back("fuzz");
  switch (FUZZ_FORMAT) {
    case 0: ccb::import_ccbench_jsonl(text, ctx); break;
    case 1: ccb::import_nccl_tests_text(text, ctx); break;
    case 2: ccb::import_nccl_tests_json(text, ctx); break;
    case 3: ccb::import_osu(text, ctx); break;
    case 4: ccb::import_imb(text, ctx); break;
    case 5:
      ccb::import_nccl_inspector_json(text, ctx);
      ccb::import_nccl_inspector_prom(text, ctx);
      break;
    default: ccb::import_text(text, "fuzz", set, options); break;
  }
  for (const ccb::ImportedPoint& p : set.points)
    if (!(p.time_us > 0) || !std::isfinite(p.time_us) || p.collective.empty())
      std::abort();  // an importer let garbage through
  return 0;
}
