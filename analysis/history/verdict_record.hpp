// An accept verdict.json as the history keeps it (history add of an accept
// --out folder, accept --history): the spec, when, the verdict, and each
// node's status per check.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "analysis/history/history_db.hpp"

namespace ccb {

// nullopt when `text` is not an accept verdict (no top-level
// "ccbench_accept"); throws ImportError for one that is, but malformed.
std::optional<VerdictRecord> verdict_record_of(std::string_view text, const std::string& source);

}  // namespace ccb
