// Checks that JSON Lines records follow results/SCHEMA.md.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace ccb {

// "" when `record` is a valid run, point or end record; else what is wrong.
std::string validate_record(const nlohmann::json& record);

// Validates a whole file: a run record first, point records, an end record
// last. Returns "" or "path:line: what is wrong".
std::string validate_jsonl_file(const std::string& path);

}  // namespace ccb
