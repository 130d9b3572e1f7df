// ccbench workload show|predict: a training step's communication derived from
// a workload file, and its time predicted from measured curves (no MPI).
#pragma once

namespace ccb {

int run_workload(int argc, char** argv);

}  // namespace ccb
