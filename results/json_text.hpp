// JSON text for every file and message ccbench writes: bytes that are not
// UTF-8 (a file or host name) become U+FFFD instead of throwing
// nlohmann's type_error.316, which would end the process with nothing written.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace ccb {

template <class Json>
std::string json_text(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace ccb
