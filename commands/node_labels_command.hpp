// ccbench node-labels VERDICT: an acceptance verdict as Kubernetes node
// labels, taints and a ConfigMap (analysis/accept/node_labels.hpp), written
// as files; applied with kubectl only with --apply. Reads files only: no MPI.
#pragma once

namespace ccb {

// Returns the exit code: 0; 2 bad input; 5 a file could not be written or
// kubectl failed (--apply).
int run_node_labels(int argc, const char* const* argv);

}  // namespace ccb
