// Checks a ccbench JSON Lines file against results/SCHEMA.md: exit 0 when
// valid, else prints "path:line: what is wrong" and exits 1.
#include <cstdio>

#include "results/schema.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: validate_jsonl FILE\n");
    return 2;
  }
  const std::string error = ccb::validate_jsonl_file(argv[1]);
  if (!error.empty()) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  return 0;
}
