// JSON form of the records (schema in results/SCHEMA.md).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "results/record.hpp"

namespace ccb {

nlohmann::json run_to_json(const RunInfo& info);
nlohmann::json point_to_json(const PointRecord& p);
nlohmann::json end_to_json(const EndInfo& e);
// One series' "is this number normal?" (results/SCHEMA.md, the end record's
// expectations.series[]; compare --json's sets[].expectations[]).
nlohmann::json expectation_json(const Expectation& x);

std::string placement_to_json(const RankPlacement& p);
RankPlacement placement_from_json(const std::string& text);

}  // namespace ccb
