// The small interface every backend implements: allocate, run one
// collective, time, abort. Patterns and verification go through the backend's
// Memory, which knows where its buffers live (host or device).
//
// A process drives one rank (MPI; NCCL with one GPU per process) or several
// (NCCL with -g N): its "local ranks", world ranks first_rank() ... +
// local_ranks() - 1. run() takes one OpArgs per local rank.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "collectives/collective.hpp"
#include "collectives/traffic.hpp"
#include "kernels/dtype.hpp"
#include "kernels/memory.hpp"
#include "kernels/pattern_math.hpp"

namespace ccb {

struct OpArgs {
  const Collective* coll = nullptr;
  int rank = 0;  // the world rank this call is for
  DType dtype = DType::float32;
  ReduceOp op = ReduceOp::sum;
  int root = 0;
  std::size_t count = 0;  // the table's count column
  std::size_t chunk = 0;  // count / nranks for split collectives, else count
  const void* send = nullptr;
  void* recv = nullptr;  // in place: send == recv + in_place_send offset
  bool in_place = false;
  int window = kDefaultWindow;           // messages per iteration of uni_bw / bi_bw
  const TrafficPlan* traffic = nullptr;  // alltoallv: the point's counts (every rank's)
};

// Elements of this rank's send and receive sides (the row's extents; alltoallv: its plan's).
inline std::size_t send_elements(const OpArgs& a) {
  return a.traffic ? a.traffic->sent(a.rank) : elements(a.coll->send_extent, a.count, a.chunk);
}
inline std::size_t recv_elements(const OpArgs& a) {
  return a.traffic ? a.traffic->received(a.rank) : elements(a.coll->recv_extent, a.count, a.chunk);
}

// Transports a backend saw its connections use (NCCL's INFO log).
struct ObservedTransports {
  std::vector<std::string> classes;     // p2p, shm, rdma, tcp, net, nvls, collnet
  std::vector<std::string> transports;  // as the library spells them: "P2P/CUMEM", ...
  bool per_point = false;               // those of one point's operations (else every connection set up so far)
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view clock_name() const = 0;  // how start/stop measure time
  virtual bool blocking() const = 0;
  virtual Memory& memory() = 0;
  virtual int ranks() const = 0;  // world size
  virtual int first_rank() const = 0;
  virtual int local_ranks() const { return 1; }
  virtual std::vector<int> devices() const { return {}; }  // GPUs of the local ranks
  // One operation: args[j] for local rank j, issued together.
  virtual void run(std::span<const OpArgs> args) = 0;
  // Called before a timed run() of these arguments: what run() would first
  // build for new arguments (the nccl backend's -G graph: a capture and an
  // instantiation) is built here, outside the timed region.
  virtual void prepare(std::span<const OpArgs> args) { (void)args; }
  // Waits until every issued operation has completed (before verification).
  virtual void synchronize() {}
  // Where the result sits in the in-place buffer (the row's layout is MPI's).
  virtual Offset in_place_recv(const Collective& c) const { return c.in_place_recv; }
  // Whether an out-of-place root keeps its result in the send buffer (the
  // row's value is MPI's: MPI_Bcast at the root has one buffer).
  virtual bool root_result_in_send(const Collective& c) const { return c.root_result_in_send; }
  // Timing: start_clock(), issue operations, stop_clock() waits for every
  // issued operation to complete and returns the seconds since start_clock().
  virtual void start_clock() = 0;
  virtual double stop_clock() = 0;
  virtual double clock_resolution_s() const = 0;
  // -G N (nccl-tests): capture_begin() starts capturing what run() issues
  // (false: this backend cannot); capture_end() makes it one graph per GPU;
  // capture_launch(n) launches it n times without waiting.
  // -I 1 on an asynchronous backend (nccl-tests' per-iteration timing):
  // stream_marks_begin(slots) readies that many timing marks per local rank,
  // stream_mark(slot) records one where the rank's operations run (its
  // stream), and after the caller synchronised, stream_mark_seconds gives
  // for each k of `spans` the seconds from mark from[k] to mark to[k], max
  // over this process's ranks. Synchronous backends take the host clock
  // instead (harness/measure.cpp) and leave these as they are.
  virtual void stream_marks_begin(int slots) { (void)slots; }
  virtual void stream_mark(int slot) { (void)slot; }
  virtual std::vector<double> stream_mark_seconds(const std::vector<std::pair<int, int>>& spans) {
    return std::vector<double>(spans.size(), 0.0);
  }
  virtual bool capture_begin() { return false; }
  virtual void capture_end() {}
  virtual void capture_launch(int) {}
  // Largest element count one call accepts.
  virtual std::size_t max_count() const = 0;
  // Called from the watchdog thread when an operation hangs, before the
  // process exits: release what would outlive it (NCCL: ncclCommAbort).
  // Returns what was done, for the report ("" = nothing).
  virtual std::string abort() { return ""; }
  // Before the caller frees buffers it allocated through memory(): releases
  // what still holds them (NCCL: CUDA graphs) and waits for issued work, in
  // the backend's teardown order; the backend stays usable.
  virtual void quiesce() {}
  // Asynchronous backends (NCCL): run() returns once the operation is
  // enqueued, so its return is no sign of progress; f runs on the calling
  // thread each time issued work is seen to complete (the watchdog's
  // heartbeat). Synchronous backends (MPI) complete each call before it returns.
  virtual bool asynchronous() const { return false; }
  virtual void on_completion(std::function<void()> f) { (void)f; }
  // Test-only (CCBENCH_FAULT=gpu_hang): enqueue work that never finishes on
  // local rank j's stream, ahead of the next operation. False: cannot.
  virtual bool stall(int j) {
    (void)j;
    return false;
  }
  // Why this placement cannot run on this backend ("" = it can): it is
  // recorded as not measured, with the reason.
  virtual std::string unsupported(const OpArgs&) const { return ""; }
  // Why the result of this placement cannot be checked exactly ("" = it can).
  virtual std::string unverifiable(const OpArgs&) const { return ""; }
  // Why this dtype cannot run here ("" = it can); a usage error.
  virtual std::string check_dtype(DType) const { return ""; }
  // Whether the backend reads what its connections used from the library (NCCL's INFO log).
  virtual bool observes_transports() const { return false; }
  // What the library chose for its operations since the last call, from its
  // log, on this process ("RING/LL/2ch" with NCCL's tuning log; else none).
  virtual std::vector<std::string> chosen_algorithms() { return {}; }
  // This process's transports: those of operations that chose `algorithms`
  // (over all ranks) when the library's log tells them apart, else every
  // connection set up so far. Only where observes_transports().
  virtual ObservedTransports observed_transports(const std::set<std::string>& algorithms) {
    (void)algorithms;
    return {};
  }
};

}  // namespace ccb
