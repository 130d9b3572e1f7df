// Test-only fault injection (docs/failures.md): CCBENCH_FAULT=
//   corrupt:rank=R            one wrong element in R's result after a check run
//   hang:rank=R[:bytes=S]     R stops before the first point of at least S bytes
//                             (the others block in the collective: a hang)
//   exit:rank=R[:bytes=S]     R kills itself with SIGKILL there (a dead rank)
//   stuck:rank=R[:bytes=S]    as hang, and R's abort never returns either (as
//                             ncclCommAbort on a blocking communicator can)
//   gpu_hang:rank=R[:bytes=S] a kernel that never finishes is launched on R's
//                             GPU stream ahead of that point (nccl backend)
//   error:rank=R[:bytes=S]    R's backend fails there, as an NCCL async error
//                             or a CUDA error would (a std::runtime_error)
//   control_hang:rank=R       ccbench accept: R stops in the control plane
//                             after the first round (outside any sweep)
// Not for measurements: it exists so that tests can prove failures are caught.
#pragma once
#include <cstddef>
#include <string>

namespace ccb {

struct Faults {
  enum class Kind { none, corrupt, hang, exit, stuck, gpu_hang, error, control_hang };
  Kind kind = Kind::none;
  int rank = -1;
  std::size_t bytes = 0;
  bool corrupts(int r) const { return kind == Kind::corrupt && rank == r; }
  bool abort_hangs(int first, int count) const { return kind == Kind::stuck && rank >= first && rank < first + count; }
  bool hangs_gpu(int r, std::size_t b) const { return kind == Kind::gpu_hang && rank == r && b >= bytes; }
  bool hangs_control_plane(int r) const { return kind == Kind::control_hang && rank == r; }
};

// Throws UsageError on a malformed CCBENCH_FAULT.
Faults parse_faults(const std::string& spec);
Faults faults_from_environment();

// Hangs, kills or fails (throws std::runtime_error) this process when the
// fault applies to `rank` at `bytes` (gpu_hang is the backend's: Backend::stall).
void inject_before_point(const Faults& f, int rank, std::size_t bytes);
// Stops this thread for good (hang and stuck faults), saying where.
[[noreturn]] void hang_forever(int rank, const std::string& where);

}  // namespace ccb
