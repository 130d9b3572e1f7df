#include "analysis/accept/node_labels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>

#include "analysis/accept/verdict.hpp"
#include "common/errors.hpp"

namespace ccb {

namespace {

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// RFC 1123 label: lower-case letters, digits and '-', alphanumeric at both ends, 1-63.
bool dns_label(std::string_view s) {
  if (s.empty() || s.size() > 63 || !lower_alnum(s.front()) || !lower_alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return lower_alnum(c) || c == '-'; });
}

// RFC 1123 subdomain: dot-separated labels, at most 253 characters.
bool dns_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  std::size_t at = 0;
  while (true) {
    const std::size_t dot = s.find('.', at);
    if (!dns_label(s.substr(at, dot == std::string_view::npos ? std::string_view::npos : dot - at))) return false;
    if (dot == std::string_view::npos) return true;
    at = dot + 1;
  }
}

// A label value: at most 63 characters of [A-Za-z0-9._-], alphanumeric at both ends ("" allowed).
std::string label_value(std::string_view s) {
  std::string out;
  for (char c : s) out += alnum(c) || c == '.' || c == '_' || c == '-' ? c : '-';
  if (out.size() > 63) out.resize(63);
  while (!out.empty() && !alnum(out.back())) out.pop_back();
  while (!out.empty() && !alnum(out.front())) out.erase(out.begin());
  return out;
}

// Text for a comment line of the script: printable ASCII, at most 80
// characters (a newline in a hand-edited field would start a command).
std::string comment_text(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 80)) out += c >= 0x20 && c < 0x7f ? c : '?';
  return out;
}

// Worst first: DEFECTIVE, suspect, in failed group, the rest. A status is one
// accept writes (NodeStatus's names; history's lower-case "defective" too):
// another ("FAILED", "DEFECTIVE ") is refused, never read as passed.
int rank_of(const std::string& status, const VerdictRecord& v, const NodeVerdictRow& r) {
  const std::optional<NodeStatus> s = status == "defective" ? NodeStatus::defective : parse_setting<NodeStatus>(status);
  if (!s) {
    std::string known;
    for (const auto& [value, text] : SettingNames<NodeStatus>::table)
      known += (known.empty() ? "" : ", ") + std::string(text);
    throw UsageError(
        fmt::format("{}: host {} (check {}): status '{}' is not one accept writes ({}): nothing was written", v.source,
                    r.host, label_value(r.check), label_value(status), known));
  }
  switch (*s) {
    case NodeStatus::defective: return 0;
    case NodeStatus::suspect: return 1;
    case NodeStatus::group_failed: return 2;
    default: return 3;  // pass, cleared, presumed good
  }
}

}  // namespace

std::vector<NodeHealth> node_health(const VerdictRecord& v, const NodeLabelOptions& o) {
  if (!dns_subdomain(o.prefix))
    throw UsageError(
        fmt::format("--prefix {}: not a DNS subdomain (lower-case letters, digits, '-' and '.')", o.prefix));
  if (!dns_label(o.ns)) throw UsageError(fmt::format("--namespace {}: not a Kubernetes namespace name", o.ns));
  if (!dns_subdomain(o.configmap))
    throw UsageError(fmt::format("--configmap-name {}: not a Kubernetes object name", o.configmap));
  std::map<std::string, std::pair<int, std::vector<std::string>>> worst;  // node -> (rank, reasons)
  for (const NodeVerdictRow& r : v.nodes) {
    if (!dns_subdomain(r.host))
      throw UsageError(fmt::format(
          "{}: host '{}' (check {}) is not a Kubernetes node name (a DNS-1123 subdomain): nothing was written",
          v.source, r.host.substr(0, 80), r.check));
    auto [it, fresh] = worst.try_emplace(r.host, 3, std::vector<std::string>{});
    const int rank = rank_of(r.status, v, r);
    it->second.first = std::min(it->second.first, rank);
    if (rank < 3)
      it->second.second.push_back(fmt::format("{}: {}{}", r.check, r.status, r.reason.empty() ? "" : ": " + r.reason));
  }
  std::vector<NodeHealth> out;
  for (auto& [node, w] : worst) {
    NodeHealth h;
    h.node = node;
    h.health = w.first == 0 ? "failed" : w.first == 1 ? "suspect" : w.first == 3 ? "passed" : "";
    h.reasons = std::move(w.second);
    out.push_back(std::move(h));
  }
  return out;
}

std::string kubectl_script(const std::vector<NodeHealth>& nodes, const VerdictRecord& v, const NodeLabelOptions& o) {
  const std::string key = o.prefix + "/health";
  std::string s = fmt::format(
      "#!/bin/sh\n"
      "# ccbench acceptance verdict as node labels and taints (docs/acceptance.md \"Kubernetes node labels\").\n"
      "# Verdict: {}, {} ({}), spec {}.\n"
      "# {}: passed, suspect (a first failure: taint PreferNoSchedule) or failed (confirmed: taint\n"
      "# NoSchedule); a node no check could judge is left as it is. Run: sh THIS_FILE (kubectl's context).\n"
      "set -e\n",
      label_value(v.verdict), comment_text(v.started_at), label_value(v.source.substr(v.source.rfind('/') + 1)),
      label_value(v.spec), key);
  const std::string when = label_value(v.started_at);
  for (const NodeHealth& n : nodes) {
    if (n.health.empty()) {
      s += fmt::format("# {}: not judged (in a failed group; docs/acceptance.md): left as it is\n", n.node);
      continue;
    }
    s += fmt::format("kubectl label node {} {}={} {}/accept-run={} --overwrite\n", n.node, key, n.health, o.prefix,
                     when);
    s += fmt::format("kubectl taint node {} {}- >/dev/null 2>&1 || true\n", n.node, key);
    if (n.health == "failed") s += fmt::format("kubectl taint node {} {}=failed:NoSchedule\n", n.node, key);
    if (n.health == "suspect") s += fmt::format("kubectl taint node {} {}=suspect:PreferNoSchedule\n", n.node, key);
  }
  s += fmt::format("kubectl apply -f \"$(dirname \"$0\")/{}\"\n", o.configmap_file);
  return s;
}

std::string verdict_configmap(const std::vector<NodeHealth>& nodes, const VerdictRecord& v, const NodeLabelOptions& o) {
  std::string s = fmt::format(
      "# The failed and suspect nodes of a ccbench acceptance verdict, with their reasons (ccbench node-labels).\n"
      "apiVersion: v1\n"
      "kind: ConfigMap\n"
      "metadata:\n"
      "  name: {}\n"
      "  namespace: {}\n"
      "  labels:\n"
      "    {}/accept-run: {}\n"
      "data:\n",
      o.configmap, o.ns, o.prefix, nlohmann::json(label_value(v.started_at)).dump());
  std::size_t listed = 0;
  for (const NodeHealth& n : nodes) {
    if (n.health != "failed" && n.health != "suspect") continue;
    std::string why = n.health;
    for (const std::string& r : n.reasons) why += "\n" + r;
    // A JSON string is a YAML double-quoted scalar: every byte escaped as YAML reads it.
    s += fmt::format("  {}: {}\n", n.node,
                     nlohmann::json(why).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace));
    ++listed;
  }
  if (listed == 0) s.replace(s.size() - 6, 6, "data: {}\n");
  return s;
}

}  // namespace ccb
