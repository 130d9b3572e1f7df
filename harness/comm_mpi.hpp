// The control plane over an MPI communicator.
#pragma once
#include <mpi.h>

#include "harness/comm.hpp"

namespace ccb {

class MpiComm final : public Comm {
 public:
  // owned: the communicator is freed with this object (one made by split).
  explicit MpiComm(MPI_Comm comm, bool owned = false);
  ~MpiComm() override;
  MpiComm(const MpiComm&) = delete;
  MpiComm& operator=(const MpiComm&) = delete;
  MPI_Comm handle() const { return comm_; }
  void barrier() const override;
  void max_inplace(std::vector<double>& values) const override;
  double combine(double value, RankCombine how, bool participate) const override;
  uint64_t sum(uint64_t value) const override;
  void broadcast(void* data, std::size_t bytes) const override;
  std::string agree_error(const std::string& mine) const override;
  std::vector<std::string> all_strings(const std::string& mine) const override;
  std::vector<std::string> gather_strings(const std::string& mine) const override;
  std::unique_ptr<Comm> split(int color) const override;
  double now() const override { return MPI_Wtime(); }
  double exchange_s(int to, int from, const void* send, void* recv, std::size_t bytes) const override;
  ClockOffset clock_offset(int rounds) const override;
  std::string mpi_library() const override;
  std::string mpi_standard() const override;

 private:
  MPI_Comm comm_;
  bool owned_ = false;
};

}  // namespace ccb
