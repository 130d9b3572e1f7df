// Errors every process agrees on before anything irreversible happens.
#pragma once
#include <fmt/format.h>

#include <unistd.h>

#include <string>

#include "harness/comm.hpp"
#include "common/errors.hpp"
#include "common/terminal_text.hpp"

namespace ccb {

// Runs `step` on every process; when it throws UsageError on any, the first
// failing rank's message is printed once (by rank 0; "on rank R (HOST): "
// before it when rank 0 did not fail) and false is returned everywhere.
template <class Step>
bool every_rank_passes(const Comm& comm, Step&& step) {
  std::string error;
  try {
    step();
  } catch (const UsageError& e) {
    error = e.what();
    if (comm.rank() != 0) {
      char host[256] = {};
      gethostname(host, sizeof host - 1);
      error = fmt::format("on rank {} ({}): {}", comm.rank(), host, error);
    }
  }
  error = comm.agree_error(error);
  if (!error.empty() && comm.rank() == 0) fmt::print(stderr, "ccbench: {}\n", terminal_safe(error));
  return error.empty();
}

}  // namespace ccb
