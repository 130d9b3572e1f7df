// CPU lists in hwloc's and the kernel's syntax ("0-3,8,10-11").
#pragma once
#include <string>
#include <vector>

namespace ccb {

// Sorted, distinct CPU ids; empty when the list cannot be read (never throws).
std::vector<int> parse_cpu_list(const std::string& list);

}  // namespace ccb
