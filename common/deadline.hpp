// Runs a call that may never return (ncclCommAbort on a communicator whose
// peer is stuck) on a thread of its own and waits for it at most `seconds`.
// The thread is left behind when it overruns: the caller ends the process or
// gives up the resource, never waits for it again.
#pragma once
#include <functional>
#include <optional>
#include <string>

namespace ccb {

// f's result, or nullopt when it did not return within `seconds`.
std::optional<std::string> run_with_deadline(const std::function<std::string()>& f, double seconds);

}  // namespace ccb
