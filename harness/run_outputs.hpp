// One run's outputs and its end record, with the same failure behaviour for
// every command that measures (sweeps, ccbench io, acceptance repeats):
//   - rank 0 holds the writers (the other ranks none), written under one
//     lock: the watchdog thread may write the end record of a run that hangs;
//   - an output that cannot be written stops the run at the next point
//     boundary on every rank (at_boundary), its end record saying why, and
//     the other outputs keep their whole records; exit 5;
//   - the end record is written once (finish), by whichever comes first.
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "harness/comm.hpp"
#include "results/writers.hpp"

namespace ccb {

class RunOutputs {
 public:
  // writers: rank 0's (empty elsewhere); extra: one more on rank 0 (nullptr: none).
  RunOutputs(int rank, std::vector<std::unique_ptr<Writer>> writers, Writer* extra);
  void begin(const RunInfo& run);
  // What the run record says when the run ends (a watchdog's last words, a
  // signal) before begin(): the configuration, known before any collective
  // (the files then hold a run record and an end record, never 0 bytes).
  void set_startup_run(RunInfo run);
  // One point, counted in the end record.
  void point(const PointRecord& rec);
  // A placement measured: its busbw enters the end record's mean (nccl-tests'
  // "Avg bus bandwidth": every row and placement measured).
  void measured(double busbw_gbps);
  // That mean so far (GB/s); -1 before any.
  double average_busbw() const { return busbw_count_ > 0 ? busbw_sum_ / static_cast<double>(busbw_count_) : -1.0; }
  // Rank 0: the run and point records so far as JSON Lines (results/SCHEMA.md),
  // what the end record's expectations are computed from.
  const std::string& records() const { return records_; }
  // Rank 0: the first output that could not be written ("" while all are fine).
  std::string error() const;
  // Collective, at a point boundary, in one reduction: the highest stop
  // signal any rank received (0: none), and whether rank 0 has an output it
  // cannot write (then every rank stops: rank 0 ends the record with fail(),
  // the others return kExitOutput).
  struct Boundary {
    int signal = 0;
    bool output_failed = false;
  };
  Boundary at_boundary(const Comm& comm, int my_signal) const;
  // Rank 0: "cannot write X; stopped after N points", the end record
  // "failed: output X". Returns kExitOutput.
  int fail();
  // The end record so far (under lock()).
  EndInfo& end() { return end_; }
  std::timed_mutex& lock() { return mu_; }
  // Writes the end record once (the caller holds lock()).
  void finish(EndInfo e);
  // The watchdog's last words: the end record with this status and code,
  // unless the measuring thread holds the lock for more than a second (then
  // the files stay as they are: their records are whole).
  void last_words(const std::string& status, int code);

 private:
  int rank_;
  std::vector<std::unique_ptr<Writer>> owned_;
  std::vector<Writer*> outputs_;
  std::timed_mutex mu_;
  EndInfo end_;
  double busbw_sum_ = 0;
  std::size_t busbw_count_ = 0;
  bool ended_ = false;
  bool begun_ = false;
  std::unique_ptr<RunInfo> startup_run_;
  std::string records_;
};

}  // namespace ccb
