// The message of the UsageError a call throws ("" when it throws none): the
// unit tests' check that bad input is refused in one line.
#pragma once
#include <string>

#include "common/errors.hpp"

namespace ccb::test {

template <class F>
std::string refusal(F f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace ccb::test
