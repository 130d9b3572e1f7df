// This host's CPU counters, and the run's noise flags from them across
// hosts (results/noise.hpp states the rules).
#pragma once
#include <string>
#include <vector>

#include "harness/comm.hpp"
#include "results/noise.hpp"

namespace ccb {

// /proc/loadavg and /proc/stat's cpu line now; ok false where they cannot be read.
CpuSample sample_cpu();

// Collective (every rank calls it): each host's first local rank judges its
// own host (load before the run, or steal since `before`); rank 0 gets every
// host's flags, the others an empty list.
std::vector<std::string> host_load_flags(const Comm& comm, const CpuSample& before, bool since_before);

}  // namespace ccb
