// Errors every process agrees on before anything irreversible happens.
#pragma once
#include <fmt/format.h>

#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

#include "harness/comm.hpp"
#include "common/errors.hpp"
#include "common/terminal_text.hpp"

namespace ccb {

// Runs `step` on every process; when it throws UsageError on any, the first
// failing rank's message is printed once (by rank 0; "on rank R (HOST): "
// before it when rank 0 did not fail) and every process returns the same
// exit code: the largest of the failures' (exit_code_of: 2 bad input, 5 an
// output that cannot be written); kExitOk when every rank passed.
template <class Step>
int exit_code_of_every_rank(const Comm& comm, Step&& step) {
  std::string error;
  int code = kExitOk;
  try {
    step();
  } catch (const UsageError& e) {
    error = e.what();
    code = exit_code_of(e);
    if (comm.rank() != 0) {
      char host[256] = {};
      gethostname(host, sizeof host - 1);
      error = fmt::format("on rank {} ({}): {}", comm.rank(), host, error);
    }
  }
  error = comm.agree_error(error);
  if (error.empty()) return kExitOk;
  std::vector<double> codes{static_cast<double>(code)};
  comm.max_inplace(codes);
  if (comm.rank() == 0) fmt::print(stderr, "ccbench: {}\n", terminal_safe(error));
  return static_cast<int>(codes[0]);
}

// The same as a yes or no.
template <class Step>
bool every_rank_passes(const Comm& comm, Step&& step) {
  return exit_code_of_every_rank(comm, std::forward<Step>(step)) == kExitOk;
}

}  // namespace ccb
