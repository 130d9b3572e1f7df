// ccbench compare: read labelled result sets, compare them with the
// baseline, write the reports. Runs without MPI.
#pragma once

namespace ccb {

// argv[0] is "compare". Returns the exit code (0, or 2 for bad input).
int run_compare(int argc, const char* const* argv);

}  // namespace ccb
