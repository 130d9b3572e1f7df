// ccbench expect RUN...: "is this number normal?" (docs/expect.md): each
// series of a run held against its path's physical limit and the published
// figure for the same hardware. Reads files only: no MPI, no GPU.
#pragma once

namespace ccb {

// Returns the exit code: 0, or 2 with one line on stderr.
int run_expect(int argc, const char* const* argv);

}  // namespace ccb
