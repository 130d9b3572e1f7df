// ccbench baseline --out FILE RUN [RUN ...]: the medians of several runs, for
// acceptance gates relative to a baseline (docs/acceptance.md). Reads files
// only: no MPI, no GPU.
#pragma once

namespace ccb {

// Returns the exit code: 0, or 2 with one line on stderr.
int run_baseline(int argc, const char* const* argv);

}  // namespace ccb
