// `baseline: history` gates (docs/history.md, "Acceptance against a node's
// past"): the groups' past runs, read from the --history database once,
// before the run measures.
#pragma once
#include <string>

#include "analysis/accept/baseline.hpp"

namespace ccb {

bool has_history_gates(const AcceptSpec& spec);

// Every stored run of each history gate's series (the check's collective,
// dtype, op, path, memory, the gate's size, out-of-place), keyed by the
// series' ranks, nodes and hosts, oldest first. A database that does not
// exist yet holds no past (every history gate passes with a note). Throws
// UsageError when the spec has history gates and `db` is empty, for a file
// that is not a ccbench history, and in a build without SQLite.
HistoryPast read_history_past(const AcceptSpec& spec, const std::string& db);

}  // namespace ccb
