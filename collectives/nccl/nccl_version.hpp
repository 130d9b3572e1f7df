// The NCCL library this process loaded, as "major.minor.patch".
#pragma once
#include <string>

namespace ccb {
std::string nccl_version();
}  // namespace ccb
