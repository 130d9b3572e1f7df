// ccbench accept --node-check: this node alone, as Slurm's HealthCheckProgram
// (docs/running.md "Under Slurm"): its deadline, and its one line per
// failing check on stderr, draining or returning the node.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "commands/accept/accept_command.hpp"
#include "commands/accept/accept_parts.hpp"
#include "common/errors.hpp"
#include "common/terminal_text.hpp"
#include "harness/slurm.hpp"

namespace ccb {
namespace {

std::string this_host() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return host;
}

}  // namespace

void start_node_check_deadline() {
  std::thread([] {
    std::this_thread::sleep_for(std::chrono::seconds(kNodeCheckSeconds));
    fmt::print(stderr,
               "ccbench node check: {}: did not finish within {} s (slurmd ends a HealthCheckProgram after 60 s): "
               "shorten the spec\n",
               this_host(), kNodeCheckSeconds);
    std::fflush(stderr);
    _exit(kExitRejected);
  }).detach();
}

int finish_node_check(const AcceptArgs& args, const AcceptOutcome& outcome, int code, const std::string& unwritten) {
  // slurmd names the node it runs a HealthCheckProgram for.
  const char* slurmd_node = std::getenv("SLURMD_NODENAME");
  const std::string host = slurmd_node && *slurmd_node ? slurmd_node : this_host();
  if (!unwritten.empty()) fmt::print(stderr, "ccbench node check: {}: {}\n", host, terminal_safe(unwritten));
  std::string first_failure;
  for (const std::string& e : outcome.run_errors)
    fmt::print(stderr, "ccbench node check: {}: {}\n", host, terminal_safe(e));
  for (const CheckVerdict& v : outcome.checks) {
    if (v.pass) continue;
    std::string why = v.findings.empty() ? "failed" : v.findings.front();
    for (const GroupVerdict& g : v.first)
      if (!g.pass) {
        why = g.reason;
        break;
      }
    fmt::print(stderr, "ccbench node check: {}: {}: {}\n", host, v.check->name, terminal_safe(why));
    if (first_failure.empty())
      first_failure = fmt::format("ccbench: node check {}: {}", v.check->name, why).substr(0, 80);
  }
  try {
    if (args.drain && !first_failure.empty() && outcome.run_errors.empty())
      command_output(drain_command(host, first_failure), "--drain");
    if (args.resume && code == kExitOk) {
      const auto states = slurm_node_states({host});
      const auto it = states.find(host);
      if (it != states.end() && it->second.state.find("drain") != std::string::npos &&
          it->second.reason.rfind("ccbench:", 0) == 0)
        command_output(resume_command(host), "--resume");
    }
  } catch (const UsageError& e) {
    fmt::print(stderr, "ccbench node check: {}: {}\n", host, terminal_safe(e.what()));
  }
  return code;
}

}  // namespace ccb
