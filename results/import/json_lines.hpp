// JSON Lines as the importers read them (ccbench's records, NCCL Inspector's
// dumps): each non-blank line one JSON object, in file order. A line too long
// to be a result, or that is not a JSON object, is reported unread (with its
// line number) and skipped; the visitor sees every other line.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "results/import/importer.hpp"
#include "results/import/text_input.hpp"

namespace ccb {

enum class JsonLine { next, stop };  // what the visitor wants after this line

// visit(const nlohmann::json& object, std::uint32_t line_number) -> JsonLine.
template <class Visit>
void for_each_json_object(std::string_view text, ImportContext& ctx, Visit&& visit) {
  LineReader lines(text);
  std::string_view l;
  while (lines.next(l)) {
    const std::uint32_t n = lines.number();
    if (trim(l).empty() || ctx.skip_long_line(l, n)) continue;
    const nlohmann::json j = nlohmann::json::parse(l, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      ctx.unread(n, "not a JSON object (a truncated or corrupt line)");
      continue;
    }
    if (visit(j, n) == JsonLine::stop) return;
  }
}

}  // namespace ccb
