#include "collectives/nccl/nccl_backend.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <thread>

#include "collectives/nccl/nccl_entry_points.hpp"
#include "collectives/nccl/nccl_lifecycle.hpp"
#include "collectives/nccl/nccl_version.hpp"
#include "common/deadline.hpp"
#include "kernels/cuda/device_kernels.hpp"

namespace ccb {
namespace {

// This process's NCCL log (NcclOptions::log_file), read when a call fails.
std::string g_log_file;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A failed call says what NCCL said: its last error and the last WARN lines
// of this process's log, which names itself (issue 54: an init failure
// printed "unhandled system error" alone).
void check_nccl(ncclResult_t r, const char* what) {
  if (r == ncclSuccess) return;
  std::string last;
  if (const auto last_error = nccl_entry_points().get_last_error)
    if (const char* t = last_error(nullptr); t && *t) last = t;
  const std::vector<std::string> warns =
      g_log_file.empty() ? std::vector<std::string>{} : last_warn_lines(read_text(g_log_file), 3);
  throw std::runtime_error(nccl_failure_text(what, ncclGetErrorString(r), last, warns, g_log_file));
}
using cuda::check;

ncclDataType_t nccl_type(DType d) {
  switch (d) {
    case DType::int8: return ncclInt8;
    case DType::uint8: return ncclUint8;
    case DType::int32: return ncclInt32;
    case DType::uint32: return ncclUint32;
    case DType::int64: return ncclInt64;
    case DType::uint64: return ncclUint64;
    case DType::half: return ncclFloat16;
    case DType::bfloat16: return ncclBfloat16;
    case DType::float32: return ncclFloat32;
    case DType::float64: return ncclFloat64;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
    case DType::f8e4m3: return ncclFloat8e4m3;
    case DType::f8e5m2: return ncclFloat8e5m2;
#else
    default: break;
#endif
  }
  throw std::logic_error("nccl_type: dtype not supported by this NCCL");
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return ncclSum;
    case ReduceOp::prod: return ncclProd;
    case ReduceOp::max: return ncclMax;
    case ReduceOp::min: return ncclMin;
    case ReduceOp::avg: return ncclAvg;
  }
  return ncclSum;
}

bool same_args(const std::vector<OpArgs>& a, std::span<const OpArgs> b) {
  if (a.size() != b.size()) return false;
  for (std::size_t j = 0; j < a.size(); ++j) {
    const OpArgs &x = a[j], &y = b[j];
    if (x.coll != y.coll || x.rank != y.rank || x.dtype != y.dtype || x.op != y.op || x.root != y.root ||
        x.count != y.count || x.chunk != y.chunk || x.send != y.send || x.recv != y.recv || x.in_place != y.in_place ||
        x.window != y.window)
      return false;
  }
  return true;
}

// A thread that found its communicators aborted by the watchdog thread waits
// here for the process to end (the watchdog exits it within its bound).
[[noreturn]] void park() {
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

void group_start() { check_nccl(ncclGroupStart(), "ncclGroupStart"); }

bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

// ncclMemAlloc (a loaded NCCL >= 2.19) gives buffers NVLS and registration
// can use; older: cudaMalloc. Entry points: nccl_entry_points.hpp.
void* device_alloc(std::size_t bytes) {
  void* p = nullptr;
  if (const auto alloc = nccl_entry_points().mem_alloc) check_nccl(alloc(&p, bytes), "ncclMemAlloc");
  else check(cudaMalloc(&p, bytes), "cudaMalloc");
  return p;
}

void deregister(ncclComm_t comm, void* handle, bool window) {
  // An aborted communicator (nullptr) took its registrations.
  if (!handle || !comm) return;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
  if (window) {
    if (const auto dereg = nccl_entry_points().window_deregister) dereg(comm, static_cast<ncclWindow_t>(handle));
    return;
  }
#endif
  (void)window;
  if (const auto dereg = nccl_entry_points().comm_deregister) dereg(comm, handle);
}

void device_free(void* p) {
  if (const auto free = nccl_entry_points().mem_free) free(p);
  else cudaFree(p);
}

}  // namespace

// --- memory -------------------------------------------------------------------

NcclMemory::~NcclMemory() { release_all(); }

// Once an abort began, what buffer_release allows: never the communicator,
// and the memory only after the abort returned (else it is left to the exit).
void NcclMemory::release_all() {
  const BufferRelease may = buffer_release(backend_.abort_state());
  for (auto& [p, a] : allocations_) {
    if (may.deregister) deregister(backend_.comm(a.local), a.handle, a.window);
    if (may.free) device_free(p);
  }
  allocations_.clear();
}

void* NcclMemory::allocate(std::size_t bytes, int local) {
  check(cudaSetDevice(backend_.device(local)), "cudaSetDevice");
  void* p = device_alloc(bytes == 0 ? 1 : bytes);
  Allocation a{local, nullptr};
  if (backend_.register_buffers()) {
    const auto reg = nccl_entry_points().comm_register;
    ncclResult_t r = ncclInvalidUsage;  // no ncclCommRegister before 2.19, no window before 2.27
    if (backend_.register_buffers() == 1 && reg) r = reg(backend_.comm(local), p, bytes == 0 ? 1 : bytes, &a.handle);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
    // -R 2, as nccl-tests: a symmetric window, registered by every rank in the same order (collective).
    if (const auto win = nccl_entry_points().window_register; backend_.register_buffers() == 2 && win) {
      ncclWindow_t w = nullptr;
      r = win(backend_.comm(local), p, bytes == 0 ? 1 : bytes, &w, NCCL_WIN_COLL_SYMMETRIC);
      a.handle = w;
      a.window = true;
    }
#endif
    if (r == ncclInProgress) {  // a non-blocking communicator: finished by polling
      r = ncclSuccess;
      try {
        backend_.settle(ncclInProgress, "ncclCommRegister", local);
      } catch (const std::exception&) {
        r = ncclInternalError;
      }
    }
    if (r != ncclSuccess) {
      device_free(p);
      check_nccl(r, a.window ? "ncclCommWindowRegister" : "ncclCommRegister");
    }
  }
  allocations_[p] = a;
  return p;
}

void NcclMemory::release(void* p) {
  const auto it = allocations_.find(p);
  if (it == allocations_.end()) return;
  const BufferRelease may = buffer_release(backend_.abort_state());
  if (may.deregister) deregister(backend_.comm(it->second.local), it->second.handle, it->second.window);
  if (may.free) device_free(p);
  allocations_.erase(it);
}

// --- backend ------------------------------------------------------------------

std::string nccl_version() { return nccl_version_text(nccl_loaded_version_code()); }

NcclBackend::NcclBackend(const NcclOptions& options) : options_(options) {
  g_log_file = options_.log_file;
  locals_.resize(options_.devices.size());
  for (std::size_t j = 0; j < locals_.size(); ++j) {
    Local& l = locals_[j];
    l.device = options_.devices[j];
    check(cudaSetDevice(l.device), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&l.stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaEventCreate(&l.start), "cudaEventCreate");
    check(cudaEventCreate(&l.stop), "cudaEventCreate");
  }
  // Several communicators in one process are created inside one group, with
  // the configuration nccl-tests 2.19.6 sets: NVLink-centric scheduling (NCCL
  // >= 2.28), and two P2P peers for sendrecv's ring (NCCL >= 2.30).
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
  config.nvlinkCentricSched = 1;
#endif
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
  if (options_.cta_policy >= 0) config.CTAPolicy = options_.cta_policy;  // -x (checked against the library: cli)
#endif
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 30, 0)
  if (options_.two_p2p_peers) config.maxP2pPeers = 2;
#endif
  const auto init_config = nccl_entry_points().init_rank_config;  // NCCL >= 2.14; before: defaults
  const ncclResult_t end = in_group(group_start, ncclGroupEnd, [&] {
    for (std::size_t j = 0; j < locals_.size(); ++j) {
      check(cudaSetDevice(locals_[j].device), "cudaSetDevice");
      const int rank = options_.first_rank + static_cast<int>(j);
      const ncclResult_t r = init_config ? init_config(&locals_[j].comm, options_.nranks, options_.id, rank, &config)
                                         : ncclCommInitRank(&locals_[j].comm, options_.nranks, options_.id, rank);
      if (r != ncclInProgress) check_nccl(r, "ncclCommInitRankConfig");
    }
  });
  settle(end, "ncclCommInitRankConfig (group)");
}

// In nccl_teardown_steps' order (collectives/nccl/nccl_lifecycle.hpp). An
// abort that did not return in time leaves everything as it is: each step
// would wait on the communicator the abort still holds.
NcclBackend::~NcclBackend() {
  if (abort_state_.load() == AbortState::stuck) return;
  for (const TeardownStep step : nccl_teardown_steps(aborted())) teardown_step(step);
}

// The steps before the buffers (graphs, then issued work): the caller frees
// the buffers it allocated next (Sweep's teardown), so nothing may still
// hold them. Graphs are captured again on demand.
void NcclBackend::quiesce() {
  if (abort_state_.load() == AbortState::stuck) return;
  for (const TeardownStep step : nccl_teardown_steps(aborted())) {
    if (step == TeardownStep::buffers) return;
    teardown_step(step);
  }
}

bool NcclBackend::aborted() {
  std::lock_guard<std::mutex> lock(comm_mu_);
  return aborted_;
}

void NcclBackend::teardown_step(TeardownStep step) {
  switch (step) {
    case TeardownStep::graphs: {
      std::lock_guard<std::mutex> lock(comm_mu_);
      destroy_graphs();
      break;
    }
    case TeardownStep::drain_streams:
      for (auto& l : locals_)
        if (l.stream && cudaSetDevice(l.device) == cudaSuccess) cudaStreamSynchronize(l.stream);
      break;
    case TeardownStep::buffers: memory_.release_all(); break;
    case TeardownStep::communicators:
      for (auto& l : locals_)
        if (l.comm && cudaSetDevice(l.device) == cudaSuccess) {
          ncclCommDestroy(l.comm);
          l.comm = nullptr;
        }
      break;
    case TeardownStep::events_streams:
      for (auto& l : locals_) {
        cudaSetDevice(l.device);
        if (l.start) cudaEventDestroy(l.start);
        if (l.stop) cudaEventDestroy(l.stop);
        for (cudaEvent_t e : l.marks) cudaEventDestroy(e);
        for (cudaEvent_t e : l.timing_marks) cudaEventDestroy(e);
        if (l.stream) cudaStreamDestroy(l.stream);
      }
      break;
  }
}

std::string_view NcclBackend::clock_name() const {
  return "per_iteration: CUDA events on each GPU's stream (cudaEventElapsedTime), max over this process's GPUs";
}

// bf16 (NCCL 2.10) and fp8 (2.24) need both the headers and the library
// loaded at run time (an older one answers ncclInvalidArgument mid-sweep).
std::string NcclBackend::check_dtype(DType d) const {
  const std::string gap = nccl_type_gap(d, nccl_header_version_code(), nccl_loaded_version_code());
  return gap.empty() ? "" : std::string(info(d).name) + ": " + gap;
}

// The lowest compute capability (major x 10 + minor) of the local GPUs.
int NcclBackend::min_compute_capability() const {
  int lowest = 1000;
  for (const auto& l : locals_) {
    int major = 0, minor = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, l.device);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, l.device);
    lowest = std::min(lowest, major * 10 + minor);
  }
  return lowest;
}

std::string NcclBackend::unsupported(const OpArgs& a) const {
  const bool fp8 = a.dtype == DType::f8e4m3 || a.dtype == DType::f8e5m2;
  // ncclAvg is defined for the integer and 16/32/64-bit floating types only:
  // for fp8 NCCL returns ncclInvalidArgument (seen with NCCL 2.28.9 on an H200).
  if (a.coll->reduces && a.op == ReduceOp::avg && fp8) return "NCCL has no avg for fp8 data";
  // NCCL reduces fp8 on compute capability 9.0 (Hopper) and newer only; moving
  // fp8 bytes (all_gather, broadcast, ...) works everywhere.
  if (a.coll->reduces && fp8 && min_compute_capability() < 90)
    return "NCCL reduces fp8 data on compute capability 9.0 or newer only (this GPU is " +
           std::to_string(min_compute_capability() / 10) + "." + std::to_string(min_compute_capability() % 10) + ")";
  return "";
}

std::string NcclBackend::unverifiable(const OpArgs& a) const {
  // nccl-tests runs these in place (one buffer as send and receive) and does
  // not check them: the regions overlap, so NCCL's result is undefined.
  if (a.in_place && (a.coll->id == CollectiveId::alltoall || a.coll->id == CollectiveId::sendrecv))
    return "in-place " + std::string(a.coll->name) +
           " sends from and receives into one buffer, so the result is undefined "
           "(timed as nccl-tests times it, not checked)";
  if (a.coll->reduces && a.op == ReduceOp::avg && info(a.dtype).is_float && !is_power_of_two(options_.nranks))
    return "NCCL's avg of floating-point data multiplies each input by 1/n, which is inexact when n is not a power of "
           "two";
  return "";
}

namespace {

// pingpong, uni_bw, bi_bw between a rank and its pair partner (none: the odd rank out).
void enqueue_pair(const OpArgs& a, int n, int phase, ncclDataType_t type, ncclComm_t comm, cudaStream_t stream) {
  const auto partner = pair_partner(a.rank, n);
  if (!partner) return;
  const bool lower = a.rank < *partner;
  if (a.coll->id == CollectiveId::pingpong) {
    // Phase 0: the lower rank sends; phase 1: it receives the reply.
    if (lower == (phase == 0)) check_nccl(ncclSend(a.send, a.count, type, *partner, comm, stream), "ncclSend");
    else check_nccl(ncclRecv(a.recv, a.count, type, *partner, comm, stream), "ncclRecv");
    return;
  }
  const bool sends = a.coll->id == CollectiveId::bi_bw || lower;
  const bool receives = a.coll->id == CollectiveId::bi_bw || !lower;
  for (int w = 0; w < a.window; ++w) {
    if (sends) check_nccl(ncclSend(a.send, a.count, type, *partner, comm, stream), "ncclSend");
    if (receives) check_nccl(ncclRecv(a.recv, a.count, type, *partner, comm, stream), "ncclRecv");
  }
}

}  // namespace

void NcclBackend::enqueue(const OpArgs& a, const Local& l, int phase) {
  const ncclDataType_t type = nccl_type(a.dtype);
  const ncclRedOp_t op = nccl_op(a.op);
  const std::size_t elem = info(a.dtype).size;
  const int n = options_.nranks, r = a.rank;
  auto* recv = static_cast<char*>(a.recv);
  const auto* send = static_cast<const char*>(a.send);
  const std::size_t chunk_bytes = a.chunk * elem;
  switch (a.coll->id) {
    case CollectiveId::all_reduce:
      check_nccl(ncclAllReduce(a.send, a.recv, a.count, type, op, l.comm, l.stream), "ncclAllReduce");
      break;
    case CollectiveId::all_gather:
      check_nccl(ncclAllGather(a.send, a.recv, a.chunk, type, l.comm, l.stream), "ncclAllGather");
      break;
    case CollectiveId::reduce_scatter:
      check_nccl(ncclReduceScatter(a.send, a.recv, a.chunk, type, op, l.comm, l.stream), "ncclReduceScatter");
      break;
    case CollectiveId::broadcast:
      check_nccl(ncclBroadcast(a.send, a.recv, a.count, type, a.root, l.comm, l.stream), "ncclBroadcast");
      break;
    case CollectiveId::reduce:
      check_nccl(ncclReduce(a.send, a.recv, a.count, type, op, a.root, l.comm, l.stream), "ncclReduce");
      break;
    case CollectiveId::alltoall:
      if (const auto native = nccl_entry_points().alltoall; native && native_rooted_and_alltoall()) {
        check_nccl(native(a.send, a.recv, a.chunk, type, l.comm, l.stream),
                   "ncclAlltoAll");  // as nccl-tests on NCCL >= 2.28
        break;
      }
      for (int j = 0; j < n; ++j) {
        check_nccl(ncclSend(send + j * chunk_bytes, a.chunk, type, j, l.comm, l.stream), "ncclSend");
        check_nccl(ncclRecv(recv + j * chunk_bytes, a.chunk, type, j, l.comm, l.stream), "ncclRecv");
      }
      break;
    case CollectiveId::moe_dispatch:
    case CollectiveId::moe_combine:
    case CollectiveId::alltoallv: {  // grouped sends and receives, as nccl-tests' alltoallv_perf
      const TrafficPlan& t = *a.traffic;
      std::size_t sent = 0, received = 0;
      for (int j = 0; j < n; ++j) {
        const std::size_t out = t.at(r, j), in = t.at(j, r);
        if (out > 0) check_nccl(ncclSend(send + sent * elem, out, type, j, l.comm, l.stream), "ncclSend");
        if (in > 0) check_nccl(ncclRecv(recv + received * elem, in, type, j, l.comm, l.stream), "ncclRecv");
        sent += out, received += in;
      }
      break;
    }
    case CollectiveId::gather:
      if (const auto native = nccl_entry_points().gather; native && native_rooted_and_alltoall()) {
        check_nccl(native(a.send, a.recv, a.chunk, type, a.root, l.comm, l.stream),
                   "ncclGather");  // as nccl-tests on NCCL >= 2.28
        break;
      }
      if (r == a.root)
        for (int j = 0; j < n; ++j)
          if (!(a.in_place && j == r))
            check_nccl(ncclRecv(recv + j * chunk_bytes, a.chunk, type, j, l.comm, l.stream), "ncclRecv");
      if (!(a.in_place && r == a.root))
        check_nccl(ncclSend(a.send, a.chunk, type, a.root, l.comm, l.stream), "ncclSend");
      break;
    case CollectiveId::scatter:
      if (const auto native = nccl_entry_points().scatter; native && native_rooted_and_alltoall()) {
        check_nccl(native(a.send, a.recv, a.chunk, type, a.root, l.comm, l.stream),
                   "ncclScatter");  // as nccl-tests on NCCL >= 2.28
        break;
      }
      if (r == a.root)
        for (int j = 0; j < n; ++j)
          if (!(a.in_place && j == r))
            check_nccl(ncclSend(send + j * chunk_bytes, a.chunk, type, j, l.comm, l.stream), "ncclSend");
      if (!(a.in_place && r == a.root))
        check_nccl(ncclRecv(a.recv, a.chunk, type, a.root, l.comm, l.stream), "ncclRecv");
      break;
    case CollectiveId::sendrecv:
      check_nccl(ncclSend(a.send, a.count, type, (r + 1) % n, l.comm, l.stream), "ncclSend");
      check_nccl(ncclRecv(a.recv, a.count, type, (r + n - 1) % n, l.comm, l.stream), "ncclRecv");
      break;
    case CollectiveId::pingpong:
    case CollectiveId::uni_bw:
    case CollectiveId::bi_bw: enqueue_pair(a, n, phase, type, l.comm, l.stream); break;
  }
}

// One group of every local rank's part, inside the gate abort() closes.
void NcclBackend::issue(std::span<const OpArgs> args, int phase) {
  if (!gate_.enter()) park();  // the watchdog is aborting: never call NCCL beside it
  ncclResult_t end = ncclSuccess;
  try {
    end = in_group(group_start, ncclGroupEnd, [&] {
      for (std::size_t j = 0; j < args.size(); ++j) enqueue(args[j], locals_[j], phase);
    });
  } catch (...) {
    gate_.leave();
    throw;
  }
  gate_.leave();
  settle(end, "ncclGroupEnd");
}

// --- waiting: polls, so that async errors and the watchdog's heartbeats get through ---

// l's communicator's state (ncclCommGetAsyncError), under the lock abort()
// takes; after the watchdog aborted the communicators this thread parks.
ncclResult_t NcclBackend::async_state(const Local& l) {
  std::unique_lock<std::mutex> lock(comm_mu_);
  if (aborted_) {
    lock.unlock();
    park();
  }
  ncclResult_t state = ncclSuccess;
  check_nccl(ncclCommGetAsyncError(l.comm, &state), "ncclCommGetAsyncError");
  return state;
}

void NcclBackend::settle(ncclResult_t r, const char* what, int local) {
  if (r != ncclInProgress) return check_nccl(r, what);
  for (std::size_t j = 0; j < locals_.size(); ++j) {
    if (local >= 0 && static_cast<int>(j) != local) continue;
    ncclResult_t state = ncclInProgress;
    while (state == ncclInProgress) state = async_state(locals_[j]);
    check_nccl(state, what);
  }
}

// An asynchronous error on l's communicator (a peer or the network failed):
// the communicators are aborted and the error names this rank and its GPU.
void NcclBackend::check_async(Local& l) {
  const ncclResult_t state = async_state(l);
  if (state == ncclSuccess || state == ncclInProgress) return;
  std::string detail = ncclGetErrorString(state);
  if (const auto last_error = nccl_entry_points().get_last_error)
    if (const char* last = last_error(l.comm); last && *last) detail += std::string(": ") + last;
  const int rank = options_.first_rank + static_cast<int>(&l - locals_.data());
  const std::string aborted = abort();
  throw std::runtime_error("NCCL reported an asynchronous error on rank " + std::to_string(rank) + " (GPU " +
                           std::to_string(l.device) + "): " + detail + " (" + aborted + ")");
}

// Polls `done` (a cudaStreamQuery or cudaEventQuery) until it succeeds,
// reaping completion marks and checking the communicator between polls.
template <class Query>
void NcclBackend::wait_until(Local& l, Query done, const char* what) {
  for (;;) {
    const cudaError_t e = done();
    if (completed_) reap(l);
    if (e == cudaSuccess) return;
    if (e != cudaErrorNotReady) check(e, what);
    check_async(l);
    std::this_thread::yield();  // NCCL's proxy thread may share this core (a --bind core)
  }
}

// Every few operations (1 at >= 64 MiB, 8 at >= 1 MiB, else 64: where one
// operation is short the host's cost of an event stays below the noise), an
// event on each stream; its completion is the watchdog's heartbeat.
unsigned long NcclBackend::mark_stride(const OpArgs& a) {
  const std::size_t bytes = a.count * info(a.dtype).size;
  return bytes >= (std::size_t{64} << 20) ? 1 : bytes >= (std::size_t{1} << 20) ? 8 : 64;
}

// A full ring waits for its oldest mark (MarkRing::claim): the host stays at
// most kMarks marks ahead, and every heartbeat is completed work.
void NcclBackend::mark(unsigned long stride) {
  if (++issued_ % stride != 0) return;
  for (auto& l : locals_) {
    if (l.marks.empty()) {
      check(cudaSetDevice(l.device), "cudaSetDevice");
      l.marks.resize(l.ring.capacity());
      for (auto& e : l.marks) check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    }
    reap(l);
    const auto done = [&](std::size_t slot) { return cudaEventQuery(l.marks[slot]) == cudaSuccess; };
    const std::size_t slot = l.ring.claim(
        done, [this] { completed_(); },
        [&](std::size_t oldest) {
          wait_until(
              l, [&] { return cudaEventQuery(l.marks[oldest]); }, "NCCL operation");
        });
    check(cudaEventRecord(l.marks[slot], l.stream), "cudaEventRecord");
  }
}

void NcclBackend::reap(Local& l) {
  l.ring.reap([&](std::size_t slot) { return cudaEventQuery(l.marks[slot]) == cudaSuccess; }, [this] { completed_(); });
}

bool NcclBackend::stall(int j) {
  const Local& l = locals_.at(static_cast<std::size_t>(j));
  check(cudaSetDevice(l.device), "cudaSetDevice");
  cuda::never_ending_kernel(l.stream);
  return true;
}

// Every graph holding NCCL kernels (under comm_mu_): a graph destroyed while
// it runs is freed when it completes (cudaGraphExecDestroy).
void NcclBackend::destroy_graphs() {
  destroy_graph(&Local::graph);
  destroy_graph(&Local::loop);
}

// One graph of every local GPU (under comm_mu_); the per-operation one
// forgets its arguments.
void NcclBackend::destroy_graph(cudaGraphExec_t Local::*exec) {
  for (auto& l : locals_)
    if (l.*exec) {
      cudaSetDevice(l.device);
      cudaGraphExecDestroy(l.*exec);
      l.*exec = nullptr;
    }
  if (exec == &Local::graph) graph_args_.clear();
}

// Launches l's graph unless the watchdog thread aborted (and destroyed it).
void NcclBackend::launch_graph(Local& l, cudaGraphExec_t Local::*exec) {
  std::unique_lock<std::mutex> lock(comm_mu_);
  if (aborted_) {
    lock.unlock();
    park();
  }
  check(cudaSetDevice(l.device), "cudaSetDevice");
  check(cudaGraphLaunch(l.*exec, l.stream), "cudaGraphLaunch");
}

// Every local rank's part of one operation (pingpong: both phases).
void NcclBackend::issue_all(std::span<const OpArgs> args) {
  const int phases = args.front().coll->id == CollectiveId::pingpong ? 2 : 1;
  for (int p = 0; p < phases; ++p) issue(args, p);
}

// Stream capture on every local GPU. Thread-local mode, as nccl-tests: NCCL
// may allocate while it connects.
void NcclBackend::begin_capture() {
  for (auto& l : locals_) {
    check(cudaSetDevice(l.device), "cudaSetDevice");
    check(cudaStreamBeginCapture(l.stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  }
}

// Ends the capture and instantiates each GPU's graph into `exec` of its Local.
void NcclBackend::end_capture(cudaGraphExec_t Local::*exec) {
  for (auto& l : locals_) {
    check(cudaSetDevice(l.device), "cudaSetDevice");
    cudaGraph_t graph = nullptr;
    check(cudaStreamEndCapture(l.stream, &graph), "cudaStreamEndCapture");
    check(cudaGraphInstantiate(&(l.*exec), graph, 0), "cudaGraphInstantiate");
    cudaGraphDestroy(graph);
    // The per-operation graph is uploaded now, so that its first timed launch
    // (a per-iteration sample) does not carry the upload. The -G loop is not:
    // nccl-tests' pipelined -G time includes its first launch's upload.
    if (exec == &Local::graph) check(cudaGraphUpload(l.*exec, l.stream), "cudaGraphUpload");
  }
}

// New arguments: the operation runs directly (NCCL may connect peers on
// first use, which cannot happen inside a capture), then it is captured.
void NcclBackend::capture_graph(std::span<const OpArgs> args) {
  drop_graph();
  issue_all(args);
  synchronize();
  begin_capture();
  issue_all(args);
  end_capture(&Local::graph);
  synchronize();  // the upload done before anything is timed or filled
  graph_args_.assign(args.begin(), args.end());
}

// run() and prepare() per the capture plan (graph_action): an operation
// never runs twice, and a timed run() after prepare() is a graph launch.
void NcclBackend::act(std::span<const OpArgs> args, bool preparing) {
  switch (graph_action(options_.graph, capturing_, same_args(graph_args_, args), preparing)) {
    case GraphAction::issue: issue_all(args); break;
    case GraphAction::capture: capture_graph(args); break;
    case GraphAction::launch:
      for (auto& l : locals_) launch_graph(l, &Local::graph);
      break;
    case GraphAction::nothing: break;
  }
}

void NcclBackend::prepare(std::span<const OpArgs> args) { act(args, true); }

void NcclBackend::drop_graph() {
  std::lock_guard<std::mutex> lock(comm_mu_);
  destroy_graph(&Local::graph);
}

void NcclBackend::synchronize() {
  for (auto& l : locals_)
    wait_until(
        l, [&l] { return cudaStreamQuery(l.stream); }, "NCCL operation");
}

Offset NcclBackend::in_place_recv(const Collective& c) const {
  // NCCL's in-place reduce_scatter leaves rank r's chunk where its input's chunk r was.
  return c.id == CollectiveId::reduce_scatter ? Offset::rank_chunk : c.in_place_recv;
}

void NcclBackend::run(std::span<const OpArgs> args) {
  act(args, false);
  if (completed_ && !capturing_) mark(mark_stride(args.front()));  // no event in the -G loop's capture
}

// ncclAlltoAll, ncclGather and ncclScatter exist from NCCL 2.28 (the library
// loaded, not only the header compiled against); before, send/recv groups.
bool NcclBackend::native_rooted_and_alltoall() const {
  static const bool native = [] {
    int version = 0;
    return ncclGetVersion(&version) == ncclSuccess && version >= NCCL_VERSION(2, 28, 0);
  }();
  return native;
}

bool NcclBackend::capture_begin() {
  {
    std::lock_guard<std::mutex> lock(comm_mu_);
    destroy_graph(&Local::loop);
  }
  begin_capture();
  capturing_ = true;
  return true;
}

void NcclBackend::capture_end() {
  capturing_ = false;
  end_capture(&Local::loop);
}

void NcclBackend::capture_launch(int times) {
  for (int t = 0; t < times; ++t) {
    for (auto& l : locals_) launch_graph(l, &Local::loop);
    if (completed_) mark(1);  // each launch is the -n operations
  }
}

void NcclBackend::stream_marks_begin(int slots) {
  for (auto& l : locals_) {
    check(cudaSetDevice(l.device), "cudaSetDevice");
    while (l.timing_marks.size() < static_cast<std::size_t>(slots)) {
      cudaEvent_t e = nullptr;
      check(cudaEventCreate(&e), "cudaEventCreate");
      l.timing_marks.push_back(e);
    }
  }
}

void NcclBackend::stream_mark(int slot) {
  for (auto& l : locals_)
    check(cudaEventRecord(l.timing_marks.at(static_cast<std::size_t>(slot)), l.stream), "cudaEventRecord");
}

std::vector<double> NcclBackend::stream_mark_seconds(const std::vector<std::pair<int, int>>& spans) {
  std::vector<double> out(spans.size(), 0.0);
  for (auto& l : locals_)
    for (std::size_t k = 0; k < spans.size(); ++k) {
      float ms = 0;
      check(cudaEventElapsedTime(&ms, l.timing_marks.at(static_cast<std::size_t>(spans[k].first)),
                                 l.timing_marks.at(static_cast<std::size_t>(spans[k].second))),
            "cudaEventElapsedTime");
      out[k] = std::max(out[k], static_cast<double>(ms) * 1e-3);
    }
  return out;
}

void NcclBackend::start_clock() {
  for (auto& l : locals_) check(cudaEventRecord(l.start, l.stream), "cudaEventRecord");
}

double NcclBackend::stop_clock() {
  for (auto& l : locals_) check(cudaEventRecord(l.stop, l.stream), "cudaEventRecord");
  float most_ms = 0;
  for (auto& l : locals_) {
    wait_until(
        l, [&l] { return cudaEventQuery(l.stop); }, "NCCL operation");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, l.start, l.stop), "cudaEventElapsedTime");
    most_ms = std::max(most_ms, ms);
  }
  return most_ms * 1e-3;
}

// Graphs first (NCCL >= 2.26 waits for them), then ncclCommAbort, the whole
// bounded by kAbortSeconds: an abort that does not return is reported and left
// behind (the destructor then touches nothing). Called by the watchdog thread
// or by the thread that saw an asynchronous error; the first call aborts.
std::string NcclBackend::abort() {
  {
    std::lock_guard<std::mutex> lock(comm_mu_);
    if (aborted_) return "already aborted";
    aborted_ = true;
    abort_state_.store(AbortState::running);
  }
  const auto done = run_with_deadline(
      [this] {
        // A group the measuring thread is enqueuing ends first (it takes
        // microseconds); one stuck in NCCL longer is what the abort is for.
        const bool quiet = gate_.close(std::chrono::milliseconds(kGateGraceMs));
        std::lock_guard<std::mutex> lock(comm_mu_);
        destroy_graphs();
        const int aborted = abort_communicators(locals_, [](ncclComm_t c) { return ncclCommAbort(c) == ncclSuccess; });
        abort_state_.store(AbortState::done);
        return "ncclCommAbort on " + std::to_string(aborted) + " communicator(s)" +
               (quiet ? "" : " (a group was still being enqueued after " + std::to_string(kGateGraceMs) + " ms)");
      },
      kAbortSeconds);
  if (done) return *done;
  abort_state_.store(AbortState::stuck);
  return "ncclCommAbort did not return within " + std::to_string(kAbortSeconds) + " s; left behind";
}

// The lines NCCL added to this process's log since the last read.
void NcclBackend::read_log() {
  if (options_.log_file.empty()) return;
  std::ifstream in(options_.log_file, std::ios::binary);
  if (!in) return;
  in.seekg(log_offset_);
  std::string chunk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  log_offset_ += static_cast<std::streamoff>(chunk.size());
  chunk = log_carry_ + chunk;
  std::size_t start = 0;
  for (std::size_t nl; (nl = chunk.find('\n', start)) != std::string::npos; start = nl + 1)
    parse_nccl_log_line(std::string_view(chunk).substr(start, nl - start), seen_);
  log_carry_ = chunk.substr(start);
}

std::vector<std::string> NcclBackend::chosen_algorithms() {
  if (!options_.tuning_log) return {};  // no tuning lines to read
  read_log();
  std::vector<std::string> chosen(seen_.algorithms.begin(), seen_.algorithms.end());
  seen_.algorithms.clear();
  return chosen;
}

ObservedTransports NcclBackend::observed_transports(const std::set<std::string>& algorithms) {
  read_log();
  if (options_.tuning_log)
    if (const auto used = transports_used_by(seen_, algorithms)) {
      std::set<std::string> classes;
      for (const auto& t : *used) classes.insert(transport_class(t));
      return ObservedTransports{{classes.begin(), classes.end()}, {used->begin(), used->end()}, true};
    }
  return ObservedTransports{
      {seen_.classes.begin(), seen_.classes.end()}, {seen_.transports.begin(), seen_.transports.end()}, false};
}

}  // namespace ccb
