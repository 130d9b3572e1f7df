// ccbench copy: the data-supply paths measured directly, in the spirit of
// nvbandwidth. Host <-> device through the copy engines (pinned and pageable
// host memory) and through SM kernels (mapped pinned memory), device-local
// and device <-> device peer copies (copy engine and SM), one way and both
// ways at once, and pointer-chase latency. One process, every visible GPU.
#pragma once
#include "harness/config.hpp"

namespace ccb {

// Returns the exit code; a machine without a usable GPU is a usage error (2).
int run_copy_bench(const Config& cfg);

}  // namespace ccb
