// What threatens a run's numbers, found from what the run itself recorded
// (pure logic; the load and steal samples come from harness/cpu_load.cpp):
//   per placement of a point: the pipelined time more than kNoisePipelinedRatio
//     times away from the per-iteration p50 (either way), or a p99 more than
//     kNoiseTailRatio times the p50;
//   per run: more ranks on a host than CPUs they are bound to (the union of
//     their cpusets): the ranks take turns and every time includes waits;
//     a load average above the host's CPUs before the run started (other work
//     was running), CPU steal above kNoiseStealShare of the run's CPU time.
// The table marks flagged points, the records keep the flags (JSON "noise"),
// and compare does not call a difference that noise explains.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "results/record.hpp"

namespace ccb {

inline constexpr double kNoisePipelinedRatio = 3;
inline constexpr double kNoiseTailRatio = 10;
inline constexpr double kNoiseStealShare = 0.02;
// The first word of an oversubscription flag (readers recognise it by it).
inline constexpr std::string_view kOversubscribedFlag = "oversubscribed";

std::vector<std::string> measurement_noise(const Measurement& m);

// The kind of a flag, for counting flags of one kind together: its words
// before the first ':' ("busy before the run: load average 13.2 ..." ->
// "busy before the run"); a flag without one with each number as N ("CPU
// steal 7% of vm's CPU time ..." -> "CPU steal N% of vm's CPU time ...").
std::string noise_kind(std::string_view flag);

// How much a flag's source can stretch a time, from the flag's own numbers
// (docs/compare.md "Noise and what it can explain"): time-sharing N ranks
// on C CPUs (oversubscribed, a shared machine) N / C; a load average L on C
// CPUs before the run (L + C) / C; steal S% 1 / (1 - S); a point whose
// pipelined time is R x its p50, or whose p99 is R x its p50: R. Infinity for a flag it cannot read (nothing is called
// over it).
double noise_stretch(std::string_view flag);

// "oversubscribed: 3 ranks on 2 CPUs of vm", one per host; nothing for ranks
// with an unknown cpuset.
std::vector<std::string> oversubscription(const std::vector<RankPlacement>& placement);

// Ranks of several hosts on one machine (the same `machine`: containers or
// network namespaces sharing a kernel) that outnumber the CPUs they are
// bound to: "16 ranks of 8 hosts (emu-h1, ..., emu-h8) share 2 CPUs of one
// machine", one per machine. Per-host oversubscription does not see them.
std::vector<std::string> shared_machines(const std::vector<RankPlacement>& placement);

// A host's CPU counters at one moment (/proc/loadavg, /proc/stat's cpu line).
struct CpuSample {
  bool ok = false;
  double load1 = 0;
  std::uint64_t steal = 0, total = 0;  // clock ticks since boot
};
// Before the run: "busy before the run: load average 3.1 on 2 CPUs of vm".
std::vector<std::string> load_before(const CpuSample& before, int cpus, const std::string& host);
// During it: "CPU steal 7% of vm's CPU time during the run".
std::vector<std::string> steal_during(const CpuSample& before, const CpuSample& after, const std::string& host);

}  // namespace ccb
