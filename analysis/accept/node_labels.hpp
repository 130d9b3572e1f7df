// An acceptance verdict as Kubernetes node labels and taints
// (docs/acceptance.md "Kubernetes node labels"): each node's worst status
// over the checks becomes PREFIX/health = passed, suspect (a first failure,
// not confirmed) or failed (confirmed: DEFECTIVE), with a taint that keeps
// work off it (failed: NoSchedule; suspect: PreferNoSchedule; passed: the
// taint removed), and a ConfigMap lists the failed and suspect nodes with
// their reasons. Written as a kubectl script and a ConfigMap file; nodes a
// check could not judge (in a failed group) are left as they are.
#pragma once
#include <string>
#include <vector>

#include "analysis/history/history_db.hpp"

namespace ccb {

struct NodeLabelOptions {
  std::string prefix = "ccbench.io";  // the label and taint keys' prefix (a DNS subdomain)
  std::string ns = "default";         // the ConfigMap's namespace
  std::string configmap = "ccbench-node-verdicts";
  std::string configmap_file = "node-verdicts.yaml";  // as the script names it (kubectl apply -f)
};

struct NodeHealth {
  std::string node;
  std::string health;                // passed, suspect, failed; "" when no check judged it (left as it is)
  std::vector<std::string> reasons;  // "check: STATUS: why", the checks that did not pass
};

// The nodes of a verdict, sorted by name. UsageError on a prefix, namespace
// or ConfigMap name Kubernetes refuses; a host that is not a valid node name
// (a DNS-1123 subdomain) is refused too (it could not be a node, and the
// script must quote nothing).
std::vector<NodeHealth> node_health(const VerdictRecord& v, const NodeLabelOptions& o);
// The kubectl commands, one per line, as a POSIX sh script (removing a taint
// a node does not have is not an error).
std::string kubectl_script(const std::vector<NodeHealth>& nodes, const VerdictRecord& v, const NodeLabelOptions& o);
// The ConfigMap of failed and suspect nodes with their reasons (YAML).
std::string verdict_configmap(const std::vector<NodeHealth>& nodes, const VerdictRecord& v, const NodeLabelOptions& o);

}  // namespace ccb
