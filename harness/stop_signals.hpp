// SIGINT, SIGTERM and SIGHUP: the first asks the sweep to stop after the
// point in progress (ranks agree at each point boundary, write what was
// measured and an end record, and exit 128 + the signal: 130, 143, 129); a
// second one ends the process at once (the default action). SIGPIPE is
// ignored: a closed pipe on stdout (`ccbench ... | head`) is a write error of
// the table, which stops the sweep the same way (exit 5).
#pragma once
#include <string_view>

namespace ccb {

void install_stop_signals();
int stop_signal();                      // 0, or the first stop signal received
std::string_view signal_name(int sig);  // "SIGTERM"

}  // namespace ccb
