// Whether this process can drive a GPU, asked before anything runs (ccbench
// accept stops a GPU spec on a node without one before its first check).
#pragma once
#include <string>

namespace ccb {

// Throws UsageError "WHAT: no usable GPU on HOST (why)" when this process
// sees no CUDA device, or "WHAT: this ccbench was built without CUDA".
void require_gpu(const std::string& what);

}  // namespace ccb
