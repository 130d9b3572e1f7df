// Backend over MPI with host buffers (or device buffers through a CUDA-aware
// MPI). Every operation has completed when run() returns: MPI's blocking call,
// or (MpiCalls::nonblocking) its nonblocking one and MPI_Wait, which Open MPI
// runs with other algorithms (libnbc). avg is MPI_SUM followed by a local
// division on the host, both inside the timed region.
#pragma once
#include <mpi.h>

#include <memory>
#include <vector>

#include "collectives/backend.hpp"
#include "common/settings.hpp"
#include "kernels/host_memory.hpp"

namespace ccb {

class MpiBackend final : public Backend {
 public:
  // Host buffers, or those of `memory` (device buffers for a CUDA-aware MPI).
  explicit MpiBackend(MPI_Comm comm, std::unique_ptr<Memory> memory = nullptr, MpiCalls calls = MpiCalls::blocking);
  ~MpiBackend() override;
  std::string_view name() const override { return "mpi"; }
  std::string_view clock_name() const override { return "per_iteration: MPI_Wtime"; }
  bool blocking() const override { return true; }
  Memory& memory() override { return *memory_; }
  int ranks() const override { return size_; }
  int first_rank() const override { return rank_; }
  void run(std::span<const OpArgs> args) override;
  void start_clock() override { start_ = MPI_Wtime(); }
  double stop_clock() override { return MPI_Wtime() - start_; }
  double clock_resolution_s() const override { return MPI_Wtick(); }
  std::size_t max_count() const override { return 2147483647; }  // MPI's int counts
  std::string unsupported(const OpArgs& a) const override;

  // 1 when this MPI says it is CUDA-aware, 0 when it says it is not, -1 when
  // it cannot say (no MPIX_Query_cuda_support).
  static int cuda_aware();

 private:
  void run_blocking(const OpArgs& a, MPI_Datatype type, MPI_Op op);
  void run_nonblocking(const OpArgs& a, MPI_Datatype type, MPI_Op op);
  void run_point_to_point(const OpArgs& a, MPI_Datatype type, int n);
  // alltoallv's int counts and displacements for this rank, built once per
  // point (outside the timed loop: every iteration of a point has its count).
  struct VCounts {
    std::size_t count = 0;
    const TrafficPlan* plan = nullptr;
    std::vector<int> send_counts, send_displs, recv_counts, recv_displs;
  };
  const VCounts& vcounts(const OpArgs& a);
  VCounts v_;
  MPI_Comm comm_;
  MpiCalls calls_;
  std::vector<char> replace_;  // nonblocking sendrecv in place: what arrives, copied into the buffer after
  int rank_ = 0;
  int size_ = 1;
  double start_ = 0;
  std::unique_ptr<Memory> memory_;
  std::vector<MPI_Request> requests_;  // reused by uni_bw / bi_bw windows
};

}  // namespace ccb
