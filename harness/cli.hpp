// Command line: nccl-tests' short flags, long options for everything.
#pragma once
#include <string>

#include "harness/config.hpp"

namespace ccb {

// run: a collective sweep; copy: the host/device copy bandwidth tests;
// topo: the node's topology and binding plan.
enum class Command { run, copy, topo, list, help, version };

struct ParsedArgs {
  Command command = Command::run;
  Config config;
};

// Throws UsageError with one line naming the flag and what is allowed.
ParsedArgs parse_args(int argc, const char* const* argv);

std::string help_text();
std::string list_text();

}  // namespace ccb
