// The control plane: what the harness asks of the processes around the
// backend (agreement, combining times across processes, collecting
// placement). MpiComm runs over MPI; SoloComm is one process on its own (the
// -g N mode that needs no MPI).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/settings.hpp"

namespace ccb {

class Comm {
 public:
  virtual ~Comm() = default;
  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }
  int nodes() const { return nodes_; }

  virtual void barrier() const = 0;
  // Element-wise max over processes of a vector, result on every process.
  virtual void max_inplace(std::vector<double>& values) const = 0;
  // -a: 0 rank 0, 1 mean, 2 min, 3 max over the processes that participate.
  virtual double combine(double value, RankCombine how, bool participate) const = 0;
  virtual uint64_t sum(uint64_t value) const = 0;
  // Rank 0's bytes, on every process.
  virtual void broadcast(void* data, std::size_t bytes) const = 0;
  // Every process passes its own error text ("" = fine); every process gets
  // the text of the lowest failing rank, or "" when none failed.
  virtual std::string agree_error(const std::string& mine) const = 0;
  // Every process's string, in rank order, on every process.
  virtual std::vector<std::string> all_strings(const std::string& mine) const = 0;
  // Every process's string, in rank order, on rank 0 (empty elsewhere).
  virtual std::vector<std::string> gather_strings(const std::string& mine) const = 0;
  // Collective: the processes of each colour >= 0 form a new communicator
  // (ordered as here); a negative colour gets nullptr.
  virtual std::unique_ptr<Comm> split(int color) const = 0;
  // Seconds on this process's clock (MPI_Wtime; steady_clock alone).
  virtual double now() const = 0;
  // Sends `bytes` of `send` to rank `to` while receiving as many from rank
  // `from` into `recv` (MPI_Sendrecv); the seconds it took on this process.
  virtual double exchange_s(int to, int from, const void* send, void* recv, std::size_t bytes) const = 0;
  // Rank 0's clock minus this process's, from the round trip with the
  // smallest time of `rounds` ping-pongs with rank 0 (collective), and that
  // round trip; {0, 0} on rank 0.
  struct ClockOffset {
    double offset_s = 0, rtt_s = 0;
  };
  virtual ClockOffset clock_offset(int rounds) const = 0;
  // The MPI library and standard version ("" without MPI).
  virtual std::string mpi_library() const = 0;
  virtual std::string mpi_standard() const = 0;

 protected:
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1, nodes_ = 1;
};

// One process, no MPI.
class SoloComm final : public Comm {
 public:
  void barrier() const override {}
  void max_inplace(std::vector<double>&) const override {}
  double combine(double value, RankCombine, bool) const override { return value; }
  uint64_t sum(uint64_t value) const override { return value; }
  void broadcast(void*, std::size_t) const override {}
  std::string agree_error(const std::string& mine) const override { return mine; }
  std::vector<std::string> all_strings(const std::string& mine) const override { return {mine}; }
  std::vector<std::string> gather_strings(const std::string& mine) const override { return {mine}; }
  std::unique_ptr<Comm> split(int color) const override { return color < 0 ? nullptr : std::make_unique<SoloComm>(); }
  double now() const override;
  double exchange_s(int, int, const void*, void*, std::size_t) const override { return 0; }
  ClockOffset clock_offset(int) const override { return {}; }
  std::string mpi_library() const override { return ""; }
  std::string mpi_standard() const override { return ""; }
};

}  // namespace ccb
