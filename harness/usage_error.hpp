// An error the user caused (bad flag, value, combination or file): one line,
// exit code 2.
#pragma once
#include <stdexcept>
#include <string>

namespace ccb {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum ExitCode : int {
  kExitOk = 0,
  kExitInternal = 1,  // ccbench or the communication library failed
  kExitUsage = 2,     // bad input: flags, values, files
  kExitWrongData = 3, // verification found wrong elements
  kExitOutput = 5,    // an output could not be written (disk full, closed pipe): one line names it
};

}  // namespace ccb
