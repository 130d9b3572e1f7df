// Backend over NCCL with device buffers: one communicator per local GPU
// (ranks first_rank ... first_rank + devices - 1 of the world), operations
// on one stream per GPU, timed with CUDA events on those streams.
//
// Every wait polls the stream or event together with ncclCommGetAsyncError
// (as nccl-tests' testStreamSynchronize does), so that a peer or network
// failure is an error naming the rank, never a hang; completion events feed
// the watchdog. The communicators stay blocking, as nccl-tests': a
// non-blocking one (config.blocking = 0) makes NCCL 2.2x hand every
// ncclGroupEnd to a new thread and return ncclInProgress (src/group.cc),
// tens of microseconds per operation that nccl-tests does not pay. An abort
// that blocks (ncclCommAbort while this thread is stuck inside NCCL) is
// bounded by the watchdog instead (harness/watchdog.hpp). A call that returns
// ncclInProgress anyway is finished by polling (settle).
#pragma once
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "collectives/backend.hpp"
#include "collectives/nccl/nccl_lifecycle.hpp"
#include "collectives/nccl/nccl_log.hpp"
#include "kernels/cuda/device_memory.hpp"

namespace ccb {

struct NcclOptions {
  ncclUniqueId id{};
  int nranks = 1;
  int first_rank = 0;
  std::vector<int> devices;    // CUDA ordinals of this process's ranks
  bool blocking = false;       // -z 1-3 (reported; harness/measure.cpp waits for each operation)
  bool graph = false;          // -G: replay each operation from a CUDA graph
  int register_buffers = 0;    // -R: 1 ncclCommRegister, 2 ncclCommWindowRegister (symmetric, NCCL >= 2.27)
  int cta_policy = -1;         // -x: ncclConfig_t.CTAPolicy (NCCL >= 2.27); -1 NCCL's default
  bool two_p2p_peers = false;  // sendrecv: each rank talks to 2 peers (maxP2pPeers, NCCL >= 2.30)
  std::string log_file;        // this process's NCCL INFO log ("" = not captured)
  bool tuning_log = false;     // the log has NCCL_TUNING lines (each operation's algorithm)
};

class NcclBackend;

// ncclMemAlloc'd buffers on the local rank's GPU, registered with its
// communicator when -R 1.
class NcclMemory final : public DeviceMemory {
 public:
  explicit NcclMemory(NcclBackend& backend) : backend_(backend) {}
  ~NcclMemory() override;
  void* allocate(std::size_t bytes, int local) override;
  void release(void* p) override;
  void release_all();

 private:
  struct Allocation {
    int local;
    void* handle;         // ncclCommRegister's or ncclCommWindowRegister's, or nullptr
    bool window = false;  // -R 2: a symmetric window
  };
  NcclBackend& backend_;
  std::map<void*, Allocation> allocations_;
};

class NcclBackend final : public Backend {
 public:
  explicit NcclBackend(const NcclOptions& options);
  ~NcclBackend() override;
  std::string_view name() const override { return "nccl"; }
  std::string_view clock_name() const override;
  bool blocking() const override { return options_.blocking; }
  Memory& memory() override { return memory_; }
  int ranks() const override { return options_.nranks; }
  int first_rank() const override { return options_.first_rank; }
  int local_ranks() const override { return static_cast<int>(locals_.size()); }
  std::vector<int> devices() const override { return options_.devices; }
  void run(std::span<const OpArgs> args) override;
  void prepare(std::span<const OpArgs> args) override;
  void synchronize() override;
  Offset in_place_recv(const Collective& c) const override;
  // ncclBroadcast copies the root's send buffer into its receive buffer: that copy is checked.
  bool root_result_in_send(const Collective&) const override { return false; }
  void stream_marks_begin(int slots) override;
  void stream_mark(int slot) override;
  std::vector<double> stream_mark_seconds(const std::vector<std::pair<int, int>>& spans) override;
  void start_clock() override;
  double stop_clock() override;
  bool capture_begin() override;
  void capture_end() override;
  void capture_launch(int times) override;
  double clock_resolution_s() const override { return 0.5e-6; }  // cudaEventElapsedTime's, per the CUDA docs
  std::size_t max_count() const override { return std::size_t{1} << 40; }
  std::string abort() override;
  void quiesce() override;
  static constexpr double kAbortSeconds = 5;  // how long abort() waits for ncclCommAbort
  static constexpr int kGateGraceMs = 1000;   // how long abort() waits for a group being enqueued
  static constexpr std::size_t kMarks = 64;
  bool asynchronous() const override { return true; }
  void on_completion(std::function<void()> f) override { completed_ = std::move(f); }
  bool stall(int j) override;
  std::string unsupported(const OpArgs& a) const override;
  std::string unverifiable(const OpArgs& a) const override;
  std::string check_dtype(DType d) const override;
  int min_compute_capability() const;
  bool native_rooted_and_alltoall() const;
  bool observes_transports() const override { return !options_.log_file.empty(); }
  std::vector<std::string> chosen_algorithms() override;
  ObservedTransports observed_transports(const std::set<std::string>& algorithms) override;

  int device(int local) const { return locals_[static_cast<std::size_t>(local)].device; }
  ncclComm_t comm(int local) const { return locals_[static_cast<std::size_t>(local)].comm; }
  int register_buffers() const { return options_.register_buffers; }
  AbortState abort_state() const { return abort_state_.load(); }
  // r from a call on local rank `local`'s communicator (-1: every local one):
  // ncclInProgress is polled to its end; an error throws naming `what`.
  void settle(ncclResult_t r, const char* what, int local = -1);

 private:
  struct Local {
    int device = 0;
    cudaStream_t stream = nullptr;
    ncclComm_t comm = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    cudaGraphExec_t graph = nullptr;
    cudaGraphExec_t loop = nullptr;  // -G: the timed loop captured as one graph
    // Completion marks for the watchdog: a ring of events recorded after
    // every few operations, reaped (one heartbeat each) as they complete.
    std::vector<cudaEvent_t> marks;
    MarkRing ring{kMarks};
    std::vector<cudaEvent_t> timing_marks;  // -I 1: one per iteration boundary, grown as needed
  };
  void issue(std::span<const OpArgs> args, int phase);
  void enqueue(const OpArgs& a, const Local& l, int phase);
  void issue_all(std::span<const OpArgs> args);
  void begin_capture();
  void end_capture(cudaGraphExec_t Local::*exec);
  void act(std::span<const OpArgs> args, bool preparing);
  void capture_graph(std::span<const OpArgs> args);
  void drop_graph();      // the per-operation graph (new arguments)
  void destroy_graphs();  // every graph, under comm_mu_
  void teardown_step(TeardownStep step);
  bool aborted();  // under comm_mu_
  void destroy_graph(cudaGraphExec_t Local::*exec);
  void launch_graph(Local& l, cudaGraphExec_t Local::*exec);
  ncclResult_t async_state(const Local& l);
  void check_async(Local& l);
  template <class Query>
  void wait_until(Local& l, Query done, const char* what);
  static unsigned long mark_stride(const OpArgs& a);
  void mark(unsigned long stride);
  void reap(Local& l);
  void read_log();

  NcclOptions options_;
  std::vector<Local> locals_;
  NcclMemory memory_{*this};
  std::vector<OpArgs> graph_args_;  // what the cached graphs run
  bool capturing_ = false;          // run() issues into the loop's capture
  NcclTransports seen_;
  std::streamoff log_offset_ = 0;
  std::string log_carry_;                                  // a partial last line
  std::function<void()> completed_;                        // the watchdog's heartbeat ("" = no marks)
  unsigned long issued_ = 0;                               // operations run(), for the mark stride
  std::mutex comm_mu_;                                     // abort() (watchdog thread) vs polling (the sweep's)
  bool aborted_ = false;                                   // under comm_mu_
  std::atomic<AbortState> abort_state_{AbortState::none};  // stuck: teardown touches nothing
  EnqueueGate gate_;                                       // the measuring thread's groups against abort()
};

}  // namespace ccb
