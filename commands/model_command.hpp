// ccbench model fit / predict: a communication model fitted to sweeps at a
// few rank counts, and its predictions at a larger scale. Runs without MPI.
#pragma once

namespace ccb {

// argv[0] is "model". Returns the exit code (0, 2 bad input, 5 output).
int run_model(int argc, const char* const* argv);

}  // namespace ccb
