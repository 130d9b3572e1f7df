// Backend over MPI with host buffers. Every call is blocking; avg is MPI_SUM
// followed by a local division, both inside the timed region.
#pragma once
#include <mpi.h>

#include <vector>

#include "collectives/backend.hpp"
#include "kernels/host_memory.hpp"

namespace ccb {

class MpiBackend final : public Backend {
 public:
  explicit MpiBackend(MPI_Comm comm);
  ~MpiBackend() override;
  std::string_view name() const override { return "mpi"; }
  std::string_view clock_name() const override { return "MPI_Wtime"; }
  bool blocking() const override { return true; }
  Memory& memory() override { return memory_; }
  void run(const OpArgs& a) override;
  void start_clock() override { start_ = MPI_Wtime(); }
  double stop_clock() override { return MPI_Wtime() - start_; }
  double clock_resolution_s() const override { return MPI_Wtick(); }
  std::size_t max_count() const override { return 2147483647; }  // MPI's int counts

 private:
  void run_point_to_point(const OpArgs& a, MPI_Datatype type, int n);
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  double start_ = 0;
  HostMemory memory_;
  std::vector<MPI_Request> requests_;  // reused by uni_bw / bi_bw windows
};

}  // namespace ccb
