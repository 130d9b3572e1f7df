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
//   startup_hang:rank=R       R stops during the sweep's start-up, after its
//                             outputs are open and before its run record
//   init_hang:rank=R          R stops in the backend's initialisation (where
//                             NCCL's bootstrap can stall: ncclCommInitRank)
//   bitflip:rank=R[:repeat=K] --bitwise: one bit of R's result read at repeat K
//                             (default 2) is flipped, as silent corruption would
//   slow:rank=R[:us=U]        R sleeps U microseconds (default 1000) after the
//                             barrier of every timed per-iteration sample, as a rank
//                             slowed by its CPU arrives late (--stragglers)
// :host=NAME (with or instead of rank=R) limits a fault to the processes on
// host NAME (every rank there when no rank is given): one node of a job.
// Not for measurements: it exists so that tests can prove failures are caught.
#pragma once
#include <cstddef>
#include <string>

namespace ccb {

struct Faults {
  enum class Kind {
    none,
    corrupt,
    hang,
    exit,
    stuck,
    gpu_hang,
    error,
    control_hang,
    startup_hang,
    init_hang,
    bitflip,
    slow
  };
  Kind kind = Kind::none;
  int rank = -1;  // -1: every rank (only with host)
  std::size_t bytes = 0;
  int repeat = 2;       // bitflip
  long slow_us = 1000;  // slow
  std::string host;     // "": every host
  bool on(int r) const { return rank < 0 || rank == r; }
  bool corrupts(int r) const { return kind == Kind::corrupt && on(r); }
  bool abort_hangs(int first, int count) const {
    return kind == Kind::stuck && (rank < 0 || (rank >= first && rank < first + count));
  }
  bool hangs_gpu(int r, std::size_t b) const { return kind == Kind::gpu_hang && on(r) && b >= bytes; }
  bool hangs_control_plane(int r) const { return kind == Kind::control_hang && on(r); }
  bool hangs_startup(int r) const { return kind == Kind::startup_hang && on(r); }
  bool hangs_init(int r) const { return kind == Kind::init_hang && on(r); }
  int flips_at(int r) const { return kind == Kind::bitflip && on(r) ? repeat : 0; }
  double delay_s(int r) const { return kind == Kind::slow && on(r) ? static_cast<double>(slow_us) * 1e-6 : 0; }
};

// Throws UsageError on a malformed CCBENCH_FAULT.
Faults parse_faults(const std::string& spec);
// CCBENCH_FAULT's fault, or none on a process whose host is not its host=.
Faults faults_from_environment();

// Hangs, kills or fails (throws std::runtime_error) this process when the
// fault applies to `rank` at `bytes` (gpu_hang is the backend's: Backend::stall).
void inject_before_point(const Faults& f, int rank, std::size_t bytes);
// Stops this thread for good (hang and stuck faults), saying where.
[[noreturn]] void hang_forever(int rank, const std::string& where);

}  // namespace ccb
