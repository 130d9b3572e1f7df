#include "analysis/history/verdict_record.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "common/sha256.hpp"
#include "results/import/text_input.hpp"

namespace ccb {

namespace {

std::string text_of(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::optional<VerdictRecord> verdict_record_of(std::string_view text, const std::string& source) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{' ||
      text.find("\"ccbench_accept\"") == std::string_view::npos)
    return std::nullopt;
  const nlohmann::json v = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (!v.is_object() || !v.contains("ccbench_accept")) return std::nullopt;
  const auto bad = [&](const std::string& what) {
    return ImportError(fmt::format("{}: an accept verdict, but {}", source, what));
  };
  VerdictRecord r;
  r.sha256 = sha256_hex(text);
  r.source = source;
  r.started_at = text_of(v, "started_at");
  r.verdict = text_of(v, "verdict");
  if (r.started_at.empty() || r.verdict.empty()) throw bad("without started_at or verdict");
  if (const auto spec = v.find("spec"); spec != v.end() && spec->is_object()) r.spec = text_of(*spec, "name");
  if (const auto code = v.find("exit_code"); code != v.end() && code->is_number_integer())
    r.exit_code = code->get<int>();
  const auto checks = v.find("checks");
  if (checks == v.end() || !checks->is_array()) throw bad("without checks");
  for (const nlohmann::json& c : *checks) {
    const std::string check = c.is_object() ? text_of(c, "name") : "";
    const auto nodes = c.is_object() ? c.find("node_verdicts") : c.end();
    if (check.empty() || nodes == c.end() || !nodes->is_array()) throw bad("a check without name or node_verdicts");
    for (const nlohmann::json& n : *nodes) {
      NodeVerdictRow row;
      row.check = check;
      row.host = n.is_object() ? text_of(n, "node") : "";
      row.status = n.is_object() ? text_of(n, "status") : "";
      if (row.host.empty() || row.status.empty())
        throw bad(fmt::format("check {}: a node without name or status", check));
      row.reason = text_of(n, "reason");
      const auto m = n.find("margin");
      row.margin = m != n.end() && m->is_number() ? m->get<double>() : std::nan("");
      r.nodes.push_back(std::move(row));
    }
  }
  return r;
}

}  // namespace ccb
