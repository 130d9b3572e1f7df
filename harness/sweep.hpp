// The whole run after MPI_Init: validate against the world, open outputs,
// record provenance, measure every point, write every record.
#pragma once
#include "harness/config.hpp"

namespace ccb {

// Returns the process exit code (see usage_error.hpp).
int run_sweep(const Config& cfg);

}  // namespace ccb
