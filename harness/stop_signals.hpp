// SIGINT and SIGTERM: the first asks the sweep to stop after the point in
// progress (ranks agree at each point boundary, write what was measured and
// an end record, and exit 128 + the signal: 130, 143); a second one ends the
// process at once (the default action).
#pragma once

namespace ccb {

void install_stop_signals();
int stop_signal();  // 0, or the first SIGINT/SIGTERM received

}  // namespace ccb
