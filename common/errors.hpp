// The base floor: the error a user caused (bad flag, value, combination or
// file: one line, exit code 2), and every exit code ccbench returns, in one
// place (docs/failures.md has the table).
#pragma once
#include <stdexcept>
#include <string>

namespace ccb {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// An output that could not be written (disk full, closed pipe, I/O error):
// one line like a UsageError, but exit code 5 (exit_code_of).
struct OutputError : UsageError {
  using UsageError::UsageError;
};

enum ExitCode : int {
  kExitOk = 0,
  kExitInternal = 1,  // ccbench or the communication library failed
  kExitRejected =
      1,  // accept: the cluster was rejected; model check: a target was missed; model predict: every fit unusable;
          // history changes: a series regressed
  kExitUsage = 2,       // bad input: flags, values, files
  kExitWrongData = 3,   // verification found wrong elements
  kExitTimeout = 4,     // -T: no operation completed within the timeout
  kExitOutput = 5,      // an output could not be written (disk full, closed pipe): one line names it
  kExitBelowMinBw = 7,  // the average bus bandwidth fell below 0.9 x NCCL_TESTS_MIN_BW (nccl-tests' exit status)
  kExitSignal = 128,    // + the signal: stopped by SIGHUP (129), SIGINT (130), SIGTERM (143)
};

inline int exit_code_of(const UsageError& e) { return dynamic_cast<const OutputError*>(&e) ? kExitOutput : kExitUsage; }

}  // namespace ccb
