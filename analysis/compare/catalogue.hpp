// The figures "is this number normal?" holds a run against (docs/expect.md):
// the published ones compiled in (analysis/compare/published.json), plus a
// catalogue file of your own named by CCBENCH_REFERENCES, in the same JSON
// format (your fleet's medians, which `ccbench history references` writes,
// or figures from your vendor's acceptance report).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "results/expectation.hpp"

namespace ccb {

// The figures of one catalogue file's text, each checked: id (unique, not a
// published figure's), system, collective (one ccbench runs), gpu (a family
// the limits know: A100, H100, H200, B200, GB200), ranks, nodes, bytes,
// busbw_gbps and source; date optional (YYYY-MM or YYYY-MM-DD). Each figure's
// source names `name`. A UsageError "NAME: figure K: what is wrong" otherwise.
std::vector<PublishedFigure> read_catalogue(std::string_view text, const std::string& name);

// A catalogue file's text for these figures (one figure per line, the
// published catalogue's JSON; read_catalogue reads it back).
std::string catalogue_text(const std::vector<PublishedFigure>& figures);

// The published figures, then CCBENCH_REFERENCES's (when set), read once per
// process; a file that cannot be read or holds a bad figure is a UsageError
// (exit 2) on every call until one succeeds.
const std::vector<PublishedFigure>& reference_catalogue();

}  // namespace ccb
