// One rank's part of a ccbench io point, in the phases the command runs
// with a barrier between them (commands/io_command.cpp):
//   create  the point's new files (the shared file on rank 0 only)
//   prepare lay out the data (untimed), inject a test fault, verify the
//           data a read pattern will read (-c), drop the page cache
//   timed   the measured pass: --threads threads, each --qd requests in
//           flight, the pattern's blocks in its order; writes end with fsync
//   finish  verify what a write pattern wrote (-c), remove the point's files
#pragma once
#include <stdexcept>
#include <cstdint>
#include <optional>
#include <string>

#include "io/io_options.hpp"
#include "io/latency_histogram.hpp"
#include "io/workspace.hpp"

namespace ccb {

struct IoRankResult {
  std::uint64_t bytes = 0, ops = 0;
  double elapsed_s = 0;      // from this rank's start (after the barrier) to its last completion (writes: + fsync)
  LatencyHistogram latency;  // per operation: submit to completion (dataset: open to the read's completion)
  std::optional<std::uint64_t> wrong_blocks;  // absent with -c 0
  double resident_before = -1;                // buffered reads: page-cache fraction of the data just before the pass
  bool cut_short = false;                     // --time-per-size or a stop signal ended the pass early
};

class StartGate;  // io_run.cpp: the common start of a rank's threads

// Thrown by IoRank::create / prepare when its stop function says stop
// (a signal): the caller ends the run as interrupted, not failed.
struct IoSetupStopped : std::runtime_error {
  IoSetupStopped() : std::runtime_error("stopped by a signal during setup") {}
};

class IoRank {
 public:
  // `corrupt`: test-only fault injection (CCBENCH_FAULT=corrupt:rank=R on
  // this rank). `stop`: polled before each request; true ends the pass early
  // (a stop signal).
  IoRank(const IoOptions& o, Workspace& ws, int rank, int device, bool corrupt, bool (*stop)());
  ~IoRank();
  IoRank(const IoRank&) = delete;
  IoRank& operator=(const IoRank&) = delete;

  void create(IoPattern p, std::size_t block);
  void prepare(IoPattern p, std::size_t block);
  IoRankResult timed(IoPattern p, std::size_t block);
  void finish(IoPattern p, std::size_t block, IoRankResult& r);
  // After finish and a barrier: rank 0 removes the shared checkpoint file.
  void remove_shared(IoPattern p);

 private:
  std::string region_file(IoPattern p) const;  // the data file or the checkpoint shard
  std::uint32_t region_id(IoPattern p) const;  // its content id (io/block_content.hpp)
  std::uint64_t region_base() const;           // this rank's first byte in it
  int io_fd(IoPattern p) const;
  std::string dataset_folder() const;
  std::string dataset_file(std::size_t i) const;
  std::uint32_t dataset_id(std::size_t i) const;
  std::uint64_t verify(IoPattern p, std::size_t block);
  void corrupt_once(IoPattern p, std::size_t block);
  // A thread sets up, sets `arrived` and waits at the gate, then runs its slice.
  void run_region_thread(IoPattern p, std::size_t block, int t, StartGate& gate, bool& arrived, IoRankResult& out);
  void run_dataset_thread(std::size_t block, int t, StartGate& gate, bool& arrived, IoRankResult& out);

  const IoOptions& o_;
  Workspace& ws_;
  int rank_, device_;
  bool corrupt_;
  bool (*stop_)();
  std::uint64_t prepared_wrong_ = 0;  // what the read check found
  std::uint64_t seed_ = 0;
  bool laid_out_ = false;
  int data_fd_ = -1, data_io_fd_ = -1;  // buffered (layout, checks) and as measured (--direct)
  int ckpt_fd_ = -1, ckpt_io_fd_ = -1;
  std::size_t block_ = 0;  // the point's block size (names its checkpoint and dataset files)
};

}  // namespace ccb
