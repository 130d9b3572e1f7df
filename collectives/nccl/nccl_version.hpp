// The NCCL library this process loaded, as "major.minor.patch".
#pragma once
#include <string>
#include <string_view>

namespace ccb {
std::string nccl_version();
// "" when the headers and the loaded library both have NCCL `needed` (a
// version code), else the one line of nccl_version_gap (nccl_lifecycle.hpp).
std::string nccl_feature_gap(std::string_view what, int needed);
}  // namespace ccb
