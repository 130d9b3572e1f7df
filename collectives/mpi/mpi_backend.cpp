#include "collectives/mpi/mpi_backend.hpp"

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <fmt/format.h>

#include <cstring>

#include "collectives/mpi/mpi_types.hpp"
#include "kernels/dtype.hpp"
#include "kernels/host_reduce.hpp"

namespace ccb {
namespace {
void* in_place_or(bool in_place, const void* send) { return in_place ? MPI_IN_PLACE : const_cast<void*>(send); }
}  // namespace

MpiBackend::MpiBackend(MPI_Comm comm, std::unique_ptr<Memory> memory, MpiCalls calls)
    : comm_(comm), calls_(calls), memory_(memory ? std::move(memory) : std::make_unique<HostMemory>()) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  mpi::init_types();
}

MpiBackend::~MpiBackend() { mpi::free_types(); }

int MpiBackend::cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() ? 1 : 0;
#elif defined(MPIX_CUDA_AWARE_SUPPORT)
  return 0;  // built without CUDA support
#else
  return -1;
#endif
}

std::string MpiBackend::unsupported(const OpArgs& a) const {
  if (a.traffic && a.traffic->largest_buffer() > max_count())
    return fmt::format("MPI_Alltoallv takes int counts and displacements; a rank's side holds {} elements",
                       a.traffic->largest_buffer());
  return "";
}

const MpiBackend::VCounts& MpiBackend::vcounts(const OpArgs& a) {
  if (v_.plan == a.traffic && v_.count == a.count && v_.send_counts.size() == static_cast<std::size_t>(size_))
    return v_;
  const TrafficPlan& t = *a.traffic;
  v_.plan = a.traffic;
  v_.count = a.count;
  v_.send_counts.assign(static_cast<std::size_t>(size_), 0);
  v_.send_displs = v_.recv_counts = v_.recv_displs = v_.send_counts;
  int sent = 0, received = 0;  // unsupported() holds every side within an int
  for (int j = 0; j < size_; ++j) {
    v_.send_counts[j] = static_cast<int>(t.at(rank_, j));
    v_.send_displs[j] = sent;
    sent += v_.send_counts[j];
    v_.recv_counts[j] = static_cast<int>(t.at(j, rank_));
    v_.recv_displs[j] = received;
    received += v_.recv_counts[j];
  }
  return v_;
}

void MpiBackend::run(std::span<const OpArgs> args) {
  const OpArgs& a = args.front();  // one rank per process
  const MPI_Datatype type = mpi::datatype(a.dtype);
  const MPI_Op op = mpi::reduce_op(a.dtype, a.op);
  const CollectiveId id = a.coll->id;
  const bool is_root = rank_ == a.root;
  if (id == CollectiveId::pingpong || id == CollectiveId::uni_bw || id == CollectiveId::bi_bw)
    run_point_to_point(a, type, static_cast<int>(a.count));
  else if (calls_ == MpiCalls::nonblocking) run_nonblocking(a, type, op);
  else run_blocking(a, type, op);
  if (a.coll->reduces && a.op == ReduceOp::avg) {
    // The second half of avg: divide the result this rank holds.
    if (id == CollectiveId::all_reduce) divide_by_ranks(a.dtype, a.recv, a.count, size_);
    if (id == CollectiveId::reduce_scatter) divide_by_ranks(a.dtype, a.recv, a.chunk, size_);
    if (id == CollectiveId::reduce && is_root) divide_by_ranks(a.dtype, a.recv, a.count, size_);
  }
}

void MpiBackend::run_blocking(const OpArgs& a, MPI_Datatype type, MPI_Op op) {
  const int count = static_cast<int>(a.count);
  const int chunk = static_cast<int>(a.chunk);
  const bool is_root = rank_ == a.root;
  switch (a.coll->id) {
    case CollectiveId::all_reduce:
      MPI_Allreduce(in_place_or(a.in_place, a.send), a.recv, count, type, op, comm_);
      break;
    case CollectiveId::all_gather:
      MPI_Allgather(in_place_or(a.in_place, a.send), chunk, type, a.recv, chunk, type, comm_);
      break;
    case CollectiveId::reduce_scatter:
      MPI_Reduce_scatter_block(in_place_or(a.in_place, a.send), a.recv, chunk, type, op, comm_);
      break;
    case CollectiveId::alltoall:
      MPI_Alltoall(in_place_or(a.in_place, a.send), chunk, type, a.recv, chunk, type, comm_);
      break;
    case CollectiveId::moe_dispatch:
    case CollectiveId::moe_combine:
    case CollectiveId::alltoallv: {
      const VCounts& v = vcounts(a);
      MPI_Alltoallv(a.send, v.send_counts.data(), v.send_displs.data(), type, a.recv, v.recv_counts.data(),
                    v.recv_displs.data(), type, comm_);
      break;
    }
    case CollectiveId::broadcast:
      MPI_Bcast(is_root ? const_cast<void*>(a.send) : a.recv, count, type, a.root, comm_);
      break;
    case CollectiveId::reduce:
      MPI_Reduce(in_place_or(a.in_place && is_root, a.send), a.recv, count, type, op, a.root, comm_);
      break;
    case CollectiveId::gather:
      MPI_Gather(in_place_or(a.in_place && is_root, a.send), chunk, type, a.recv, chunk, type, a.root, comm_);
      break;
    case CollectiveId::scatter:
      MPI_Scatter(a.send, chunk, type, a.in_place && is_root ? MPI_IN_PLACE : a.recv, chunk, type, a.root, comm_);
      break;
    case CollectiveId::sendrecv: {
      const int next = (rank_ + 1) % size_, prev = (rank_ + size_ - 1) % size_;
      if (a.in_place) MPI_Sendrecv_replace(a.recv, count, type, next, 0, prev, 0, comm_, MPI_STATUS_IGNORE);
      else MPI_Sendrecv(a.send, count, type, next, 0, a.recv, count, type, prev, 0, comm_, MPI_STATUS_IGNORE);
      break;
    }
    default: break;  // point to point: run()
  }
}

void MpiBackend::run_nonblocking(const OpArgs& a, MPI_Datatype type, MPI_Op op) {
  const int count = static_cast<int>(a.count);
  const int chunk = static_cast<int>(a.chunk);
  const bool is_root = rank_ == a.root;
  MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  switch (a.coll->id) {
    case CollectiveId::all_reduce:
      MPI_Iallreduce(in_place_or(a.in_place, a.send), a.recv, count, type, op, comm_, req);
      break;
    case CollectiveId::all_gather:
      MPI_Iallgather(in_place_or(a.in_place, a.send), chunk, type, a.recv, chunk, type, comm_, req);
      break;
    case CollectiveId::reduce_scatter:
      MPI_Ireduce_scatter_block(in_place_or(a.in_place, a.send), a.recv, chunk, type, op, comm_, req);
      break;
    case CollectiveId::alltoall:
      MPI_Ialltoall(in_place_or(a.in_place, a.send), chunk, type, a.recv, chunk, type, comm_, req);
      break;
    case CollectiveId::moe_dispatch:
    case CollectiveId::moe_combine:
    case CollectiveId::alltoallv: {
      const VCounts& v = vcounts(a);
      MPI_Ialltoallv(a.send, v.send_counts.data(), v.send_displs.data(), type, a.recv, v.recv_counts.data(),
                     v.recv_displs.data(), type, comm_, req);
      break;
    }
    case CollectiveId::broadcast:
      MPI_Ibcast(is_root ? const_cast<void*>(a.send) : a.recv, count, type, a.root, comm_, req);
      break;
    case CollectiveId::reduce:
      MPI_Ireduce(in_place_or(a.in_place && is_root, a.send), a.recv, count, type, op, a.root, comm_, req);
      break;
    case CollectiveId::gather:
      MPI_Igather(in_place_or(a.in_place && is_root, a.send), chunk, type, a.recv, chunk, type, a.root, comm_, req);
      break;
    case CollectiveId::scatter:
      MPI_Iscatter(a.send, chunk, type, a.in_place && is_root ? MPI_IN_PLACE : a.recv, chunk, type, a.root, comm_, req);
      break;
    case CollectiveId::sendrecv: {
      // In place: what arrives lands in a copy first (MPI_Sendrecv_replace does the same inside).
      const int next = (rank_ + 1) % size_, prev = (rank_ + size_ - 1) % size_;
      const std::size_t bytes = a.count * info(a.dtype).size;
      if (a.in_place && replace_.size() < bytes) replace_.resize(bytes);
      void* into = a.in_place ? static_cast<void*>(replace_.data()) : a.recv;
      MPI_Irecv(into, count, type, prev, 0, comm_, &req[0]);
      MPI_Isend(a.in_place ? a.recv : a.send, count, type, next, 0, comm_, &req[1]);
      MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
      if (a.in_place) std::memcpy(a.recv, replace_.data(), bytes);  // host memory (harness/backends.cpp)
      return;
    }
    default: return;  // point to point: run()
  }
  MPI_Wait(req, MPI_STATUS_IGNORE);
}

void MpiBackend::run_point_to_point(const OpArgs& a, MPI_Datatype type, int n) {
  const auto partner = pair_partner(rank_, size_);
  if (!partner) return;
  const int peer = *partner;
  const bool lower = rank_ < peer;
  void* recv = a.recv;
  void* send = const_cast<void*>(a.send);
  switch (a.coll->id) {
    case CollectiveId::pingpong:
      if (lower) {
        MPI_Send(send, n, type, peer, 1, comm_);
        MPI_Recv(recv, n, type, peer, 1, comm_, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(recv, n, type, peer, 1, comm_, MPI_STATUS_IGNORE);
        MPI_Send(send, n, type, peer, 1, comm_);
      }
      break;
    case CollectiveId::uni_bw: {
      requests_.resize(static_cast<std::size_t>(a.window));
      for (auto& r : requests_) {
        if (lower) MPI_Isend(send, n, type, peer, 2, comm_, &r);
        else MPI_Irecv(recv, n, type, peer, 2, comm_, &r);
      }
      MPI_Waitall(a.window, requests_.data(), MPI_STATUSES_IGNORE);
      // The receiver acknowledges the window, as osu_bw does.
      if (lower) MPI_Recv(nullptr, 0, MPI_BYTE, peer, 3, comm_, MPI_STATUS_IGNORE);
      else MPI_Send(nullptr, 0, MPI_BYTE, peer, 3, comm_);
      break;
    }
    case CollectiveId::bi_bw: {
      requests_.resize(2 * static_cast<std::size_t>(a.window));
      for (int w = 0; w < a.window; ++w) MPI_Irecv(recv, n, type, peer, 4, comm_, &requests_[w]);
      for (int w = 0; w < a.window; ++w) MPI_Isend(send, n, type, peer, 4, comm_, &requests_[a.window + w]);
      MPI_Waitall(2 * a.window, requests_.data(), MPI_STATUSES_IGNORE);
      break;
    }
    default: break;
  }
}

}  // namespace ccb
