// Runs one rank's training-step program (analysis/workload/training_step.hpp)
// on MPI: one communicator per parallel dimension (MPI_Comm_split of the
// world by group), every collective non-blocking (MPI_Iallreduce, ...,
// MPI_Isend / MPI_Irecv between pipeline stages) on its group's
// communicator, out of place; compute stood in for by a wait of its length
// during which outstanding operations are progressed every 100 us
// (MPI_Testall), as a GPU's communication kernels run beside its compute; a
// wait's overrun (the sleep's granularity) is taken off the next one, so the
// compute of a step adds up to its stated length.
// A wait's time is charged to its operation's dimension.
//
// Buffers: each operation's send buffer holds its input pattern for the
// whole run (never written again); each started operation gets a receive
// buffer of its own from a pool per operation, back to the pool when waited.
// A verified step fills each receive buffer with the sentinel first and
// counts the wrong elements after the wait (harness/verify.hpp's rules).
#pragma once
#include <mpi.h>

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "harness/watchdog.hpp"
#include "kernels/host_memory.hpp"
#include "analysis/workload/training_step.hpp"

namespace ccb {

struct ReplayStepTimes {
  double step_s = 0, compute_s = 0;
  std::array<double, kDims> exposed_s{};
};

class ReplayEngine {
 public:
  // Collective over `world` (splits it). Throws UsageError when the buffers
  // would exceed max_buffer_bytes on this rank.
  ReplayEngine(const StepProgram& prog, MPI_Comm world, std::uint64_t max_buffer_bytes);
  ~ReplayEngine();
  ReplayEngine(const ReplayEngine&) = delete;
  ReplayEngine& operator=(const ReplayEngine&) = delete;

  // This rank's buffer bytes (send + every receive buffer of the pools).
  std::uint64_t buffer_bytes() const { return buffer_bytes_; }
  int stage() const { return place_.p; }
  // One step; verify: check every result (slower: not for timing).
  ReplayStepTimes run_step(bool verify);
  std::uint64_t wrong() const { return wrong_; }
  // -T: each completed operation is a heartbeat (numbered within its step),
  // and a compute wait keeps the watchdog quiet (it ends by itself).
  void watch(Watchdog* w) { watchdog_ = w; }

 private:
  struct OpState {
    void* send = nullptr;
    std::size_t count = 0, chunk = 0, send_elements = 0, recv_elements = 0;
    std::vector<void*> free_recv, all_recv;
    // alltoallv (ep with model.routing): every rank's counts in the group,
    // and this rank's MPI counts and displacements (elements).
    std::optional<TrafficPlan> plan;
    std::vector<int> send_counts, send_displs, recv_counts, recv_displs;
  };
  struct Started {
    MPI_Request req = MPI_REQUEST_NULL;
    int op = -1;
    void* recv = nullptr;
  };
  void issue(int op, Started& s, bool verify);
  void finish(Started& s, bool verify, ReplayStepTimes& t);
  void compute(double seconds, std::vector<MPI_Request>& live);
  std::uint64_t check(const Started& s);

  const StepProgram& prog_;
  RankPlace place_;
  std::array<MPI_Comm, kDims> comms_{};
  std::array<int, kDims> group_rank_{};
  std::vector<OpState> ops_;
  HostMemory mem_;
  std::uint64_t buffer_bytes_ = 0, wrong_ = 0;
  double overrun_s_ = 0;  // how far the compute waits so far overran: taken off the next one
  bool corrupt_ = false;  // CCBENCH_FAULT=corrupt on this rank
  bool hang_ = false;     // CCBENCH_FAULT=hang on this rank: it stops at the first timed step
  Watchdog* watchdog_ = nullptr;
  long completed_ = 0;  // operations completed in this step
  int rank_ = 0;
};

}  // namespace ccb
