// SHA-256 (FIPS 180-4) of a byte string, as 64 lowercase hex digits: the
// content key that makes `ccbench history add` idempotent.
#pragma once
#include <string>
#include <string_view>

namespace ccb {

std::string sha256_hex(std::string_view bytes);

}  // namespace ccb
