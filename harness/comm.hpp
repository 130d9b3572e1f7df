// The control plane: MPI calls the harness makes around the backend
// (agreement, combining times across ranks, collecting placement).
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ccb {

class Comm {
 public:
  explicit Comm(MPI_Comm comm);
  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }
  int nodes() const { return nodes_; }
  MPI_Comm handle() const { return comm_; }

  void barrier() const;
  // Element-wise max over ranks of a vector, result on every rank.
  void max_inplace(std::vector<double>& values) const;
  double combine(double value, int how, bool participate) const;  // -a: 0 rank0, 1 avg, 2 min, 3 max
  uint64_t sum(uint64_t value) const;
  // Every rank passes its own error text ("" = fine); every rank gets the
  // text of the lowest failing rank, or "" when no rank failed.
  std::string agree_error(const std::string& mine) const;
  // Every rank's string, in rank order, on every rank.
  std::vector<std::string> all_strings(const std::string& mine) const;

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1, nodes_ = 1;
};

}  // namespace ccb
