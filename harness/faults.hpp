// Test-only fault injection (docs/failures.md): CCBENCH_FAULT=
//   corrupt:rank=R            one wrong element in R's result after a check run
//   hang:rank=R[:bytes=S]     R stops before the first point of at least S bytes
//                             (the others block in the collective: a hang)
//   exit:rank=R[:bytes=S]     R kills itself with SIGKILL there (a dead rank)
// Not for measurements: it exists so that tests can prove failures are caught.
#pragma once
#include <cstddef>
#include <string>

namespace ccb {

struct Faults {
  enum class Kind { none, corrupt, hang, exit };
  Kind kind = Kind::none;
  int rank = -1;
  std::size_t bytes = 0;
  bool corrupts(int r) const { return kind == Kind::corrupt && rank == r; }
};

// Throws UsageError on a malformed CCBENCH_FAULT.
Faults parse_faults(const std::string& spec);
Faults faults_from_environment();

// Hangs or kills this process when the fault applies to `rank` at `bytes`.
void inject_before_point(const Faults& f, int rank, std::size_t bytes);

}  // namespace ccb
