// What threatens a run's numbers (results/noise.hpp): each flag fires at its
// bound and not below it.
#include <gtest/gtest.h>

#include <cmath>

#include "common/cpu_list.hpp"
#include "results/noise.hpp"

namespace ccb {
namespace {

Measurement timed(double pipelined, double p50, double p99) {
  Measurement m;
  m.measured = true;
  m.pipelined_us = pipelined;
  Summary s;
  s.p50 = p50, s.p99 = p99;
  m.per_iteration_us = s;
  return m;
}

TEST(Noise, PipelinedFarFromTheMedianAndLongTailsAreFlagged) {
  EXPECT_TRUE(measurement_noise(timed(10, 10, 20)).empty());
  EXPECT_TRUE(measurement_noise(timed(29, 10, 99)).empty());  // just inside both bounds
  const auto far = measurement_noise(timed(150, 10, 20));     // the report's 15x
  ASSERT_EQ(far.size(), 1u);
  EXPECT_NE(far[0].find("pipelined time 15x the per-iteration p50"), std::string::npos) << far[0];
  EXPECT_EQ(measurement_noise(timed(2, 10, 20)).size(), 1u);  // 5x faster than its median: also suspect
  const auto tail = measurement_noise(timed(10, 10, 101));
  ASSERT_EQ(tail.size(), 1u);
  EXPECT_NE(tail[0].find("p99 10.1x the p50"), std::string::npos) << tail[0];
  Measurement none;
  EXPECT_TRUE(measurement_noise(none).empty());
}

RankPlacement on(const std::string& host, const std::string& cpus) {
  RankPlacement p;
  p.host = host, p.bound_cpus = cpus;
  return p;
}

TEST(Noise, MoreRanksThanCpusIsOversubscribed) {
  EXPECT_TRUE(oversubscription({on("a", "0-1"), on("a", "0-1")}).empty());
  const auto three = oversubscription({on("a", "0-1"), on("a", "0-1"), on("a", "0-1"), on("b", "0-7")});
  ASSERT_EQ(three.size(), 1u);
  EXPECT_EQ(three[0], "oversubscribed: 3 ranks on 2 CPUs of a");
  EXPECT_EQ(three[0].rfind(kOversubscribedFlag, 0), 0u);
  EXPECT_TRUE(oversubscription({on("a", "0"), on("a", "1"), on("a", "")}).empty());  // a cpuset unknown: no claim
  EXPECT_EQ(oversubscription({on("a", "0"), on("a", "0")}).size(), 1u);              // both bound to one CPU
}

RankPlacement on_machine(const std::string& host, const std::string& cpus, const std::string& machine) {
  RankPlacement p = on(host, cpus);
  p.machine = machine;
  return p;
}

// Hosts that are namespaces or containers of one machine: per host nothing
// is oversubscribed, the machine is.
TEST(Noise, HostsSharingOneMachineOutnumberItsCpus) {
  std::vector<RankPlacement> emu;
  for (int h = 1; h <= 8; ++h)
    for (int r = 0; r < 2; ++r) emu.push_back(on_machine("emu-h" + std::to_string(h), "0-1", "boot-a"));
  EXPECT_TRUE(oversubscription(emu).empty());
  const auto shared = shared_machines(emu);
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_EQ(shared[0], "16 ranks of 8 hosts (emu-h1, ..., emu-h8) share 2 CPUs of one machine");
  // As many ranks as CPUs, one host, other machines, or a cpuset unknown: no claim.
  EXPECT_TRUE(shared_machines({on_machine("a", "0", "m"), on_machine("b", "1", "m")}).empty());
  EXPECT_TRUE(shared_machines({on_machine("a", "0", "m"), on_machine("a", "0", "m")}).empty());
  EXPECT_TRUE(shared_machines({on_machine("a", "0", "m"), on_machine("b", "0", "n")}).empty());
  EXPECT_TRUE(
      shared_machines({on_machine("a", "0", "m"), on_machine("b", "", "m"), on_machine("c", "0", "m")}).empty());
  EXPECT_TRUE(shared_machines({on("a", "0"), on("b", "0")}).empty());  // machine unknown (older records)
  EXPECT_EQ(shared_machines({on_machine("a", "0", "m"), on_machine("b", "0", "m")}),
            std::vector<std::string>{"2 ranks of 2 hosts (a, b) share 1 CPU of one machine"});
}

TEST(Noise, CpuListsNeverThrow) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_list("3,1-2,2"), (std::vector<int>{1, 2, 3}));
  for (const char* bad : {"x", "3-1", "-", "1-", "99999999999", "1,,x"})
    EXPECT_TRUE(parse_cpu_list(bad).empty()) << bad;
}

TEST(Noise, LoadBeforeAndStealDuring) {
  CpuSample before{true, 3.5, 100, 10000}, after{true, 3.0, 400, 20000};
  EXPECT_EQ(load_before(before, 2, "vm").size(), 1u);
  EXPECT_TRUE(load_before(before, 4, "vm").empty());
  const auto steal = steal_during(before, after, "vm");  // 300 of 10000 ticks: 3%
  ASSERT_EQ(steal.size(), 1u);
  EXPECT_NE(steal[0].find("CPU steal 3.0%"), std::string::npos) << steal[0];
  after.steal = 250;  // 1.5%: under the bound
  EXPECT_TRUE(steal_during(before, after, "vm").empty());
  EXPECT_TRUE(steal_during(CpuSample{}, after, "vm").empty());
}

// Flags of one kind count together whatever their numbers (history changes,
// compare's Summary).
TEST(Noise, AFlagsKindLeavesItsNumbersOut) {
  EXPECT_EQ(noise_kind("busy before the run: load average 13.2 on 2 CPUs of vm"), "busy before the run");
  EXPECT_EQ(noise_kind("oversubscribed: 3 ranks on 2 CPUs of vm"), "oversubscribed");
  EXPECT_EQ(noise_kind("CPU steal 7% of vm's CPU time during the run"),
            noise_kind("CPU steal 12% of vm's CPU time during the run"));
  EXPECT_EQ(noise_kind("16 ranks of 8 hosts share 2 CPUs of one machine"),
            "N ranks of N hosts share N CPUs of one machine");
}

}  // namespace
}  // namespace ccb

namespace ccb {
namespace {

// Issue 67: how much each flag's source can stretch a time, from the flag's
// own numbers, as the flags are written (the functions above write them).
TEST(Noise, EachFlagSaysHowMuchItCanStretchATime) {
  std::vector<RankPlacement> four(4);
  for (RankPlacement& p : four) p.host = "vm", p.bound_cpus = "0-1";
  EXPECT_DOUBLE_EQ(noise_stretch(oversubscription(four).at(0)), 2);  // 4 ranks on 2 CPUs
  CpuSample busy;
  busy.ok = true, busy.load1 = 3;
  EXPECT_DOUBLE_EQ(noise_stretch(load_before(busy, 2, "emu-h12").at(0)),
                   2.5);  // (3 + 2) / 2; the host's digits ignored
  EXPECT_NEAR(noise_stretch("CPU steal 20.0% of vm's CPU time during the run (bound 2%)"), 1.25, 1e-12);
  EXPECT_DOUBLE_EQ(noise_stretch("pipelined time 5.2x the per-iteration p50 (bound 3x either way)"), 5.2);
  EXPECT_DOUBLE_EQ(noise_stretch("pipelined time 0.25x the per-iteration p50 (bound 3x either way)"), 4);
  EXPECT_DOUBLE_EQ(noise_stretch("p99 14x the p50 (bound 10x)"), 14);
  EXPECT_DOUBLE_EQ(noise_stretch("16 ranks of 8 hosts (emu-h1, ..., emu-h8) share 2 CPUs of one machine"), 8);
  EXPECT_TRUE(std::isinf(noise_stretch("something else entirely")));  // unread: explains everything
}

}  // namespace
}  // namespace ccb
