#include "harness/replay_engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <optional>

#include "collectives/mpi/mpi_types.hpp"
#include "common/errors.hpp"
#include "common/sizes.hpp"
#include "harness/faults.hpp"
#include "harness/verify.hpp"
#include "kernels/pattern.hpp"

namespace ccb {
namespace {

constexpr double kProgressEvery_s = 100e-6;

int as_int(std::size_t n) { return static_cast<int>(n); }

// The most instances of each op outstanding at once in one program.
std::vector<int> most_outstanding(const StepProgram& prog, const std::vector<Action>& actions) {
  std::vector<int> live(prog.ops.size(), 0), most(prog.ops.size(), 0);
  std::vector<int> open;  // action indices of started ones
  for (std::size_t i = 0; i < actions.size(); ++i) {
    const Action& a = actions[i];
    if (a.kind == Action::Kind::start) {
      const auto op = static_cast<std::size_t>(a.op);
      most[op] = std::max(most[op], ++live[op]);
      open.push_back(static_cast<int>(i));
    } else if (a.kind == Action::Kind::wait) {
      --live[static_cast<std::size_t>(actions[static_cast<std::size_t>(a.of)].op)];
      std::erase(open, a.of);
    } else if (a.kind == Action::Kind::wait_all) {
      for (int o : open) --live[static_cast<std::size_t>(actions[static_cast<std::size_t>(o)].op)];
      open.clear();
    }
  }
  return most;
}

// The OpArgs verification reads (out of place, group-local rank).
OpArgs args_of(const StepProgram& prog, const CommOp& op, const void* send, void* recv, std::size_t count,
               std::size_t chunk, int group_rank) {
  OpArgs a;
  a.coll = &collective(op.coll);
  a.rank = group_rank;
  a.dtype = prog.dtype;
  a.op = ReduceOp::sum;
  a.count = count, a.chunk = chunk;
  a.send = send, a.recv = recv;
  return a;
}

}  // namespace

ReplayEngine::ReplayEngine(const StepProgram& prog, MPI_Comm world, std::uint64_t max_buffer_bytes) : prog_(prog) {
  comms_.fill(MPI_COMM_NULL);
  mpi::init_types();
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  place_ = place_rank(prog, rank);
  const Faults faults = faults_from_environment();
  corrupt_ = faults.corrupts(rank);
  hang_ = faults.kind == Faults::Kind::hang && faults.on(rank);
  rank_ = rank;
  for (int d = 0; d < kDims; ++d) {
    const std::vector<int>& g = place_.groups[static_cast<std::size_t>(d)];
    const int key = as_int(std::find(g.begin(), g.end(), rank) - g.begin());
    // Every rank takes part in every split (it is collective); groups of one get no communicator use.
    MPI_Comm_split(world, g.front(), key, &comms_[static_cast<std::size_t>(d)]);
    group_rank_[static_cast<std::size_t>(d)] = key;
  }
  const std::size_t elem = info(prog.dtype).size;
  const std::vector<int> most = most_outstanding(prog, prog.stages[static_cast<std::size_t>(place_.p)]);
  ops_.resize(prog.ops.size());
  for (std::size_t i = 0; i < prog.ops.size(); ++i) {
    const CommOp& op = prog.ops[i];
    OpState& s = ops_[i];
    const Collective& c = collective(op.coll);
    const int n = op.p2p != P2p::none ? 1 : prog.group_size(op.dim);
    s.count = op.bytes / elem;
    s.chunk = c.split ? s.count / static_cast<std::size_t>(n) : s.count;
    s.send_elements = op.p2p != P2p::none ? s.count : elements(c.send_extent, s.count, s.chunk);
    s.recv_elements = op.p2p != P2p::none ? s.count : elements(c.recv_extent, s.count, s.chunk);
    if (op.traffic) {  // the MoE model's counts in this rank's ep group
      const int me = group_rank_[static_cast<std::size_t>(op.dim)];
      s.plan = make_traffic_plan(*op.traffic, n, s.count);
      s.send_elements = s.plan->sent(me), s.recv_elements = s.plan->received(me);
      for (int j = 0; j < n; ++j) {
        s.send_counts.push_back(as_int(s.plan->at(me, j)));
        s.send_displs.push_back(as_int(s.plan->send_offset(me, j)));
        s.recv_counts.push_back(as_int(s.plan->at(j, me)));
        s.recv_displs.push_back(as_int(s.plan->recv_offset(me, j)));
      }
    }
    if (most[i] == 0) continue;  // not on this stage
    buffer_bytes_ += (s.send_elements + s.recv_elements * static_cast<std::size_t>(most[i])) * elem;
  }
  if (buffer_bytes_ > max_buffer_bytes)
    throw UsageError(fmt::format(
        "replay: the step needs {} of buffers on this rank (stage {}), more than "
        "--max-buffer {}: scale the workload down or raise --max-buffer",
        format_size(static_cast<double>(buffer_bytes_)), place_.p, format_size(static_cast<double>(max_buffer_bytes))));
  for (std::size_t i = 0; i < prog.ops.size(); ++i) {
    if (most[i] == 0) continue;
    const CommOp& op = prog.ops[i];
    OpState& s = ops_[i];
    const Collective& c = collective(op.coll);
    const bool p2p = op.p2p != P2p::none;
    s.send = mem_.allocate(s.send_elements * elem, 0);
    const int n = p2p ? prog.group_size(Dim::pp) : prog.group_size(op.dim);
    const int me = group_rank_[static_cast<std::size_t>(op.dim)];
    const Pattern pat = make_pattern(prog.dtype, c.reduces ? std::optional<ReduceOp>(ReduceOp::sum) : std::nullopt, n);
    mem_.fill_input(prog.dtype, pat, me, s.send, s.send_elements, 0);
    for (int k = 0; k < most[i]; ++k)
      s.all_recv.push_back(mem_.allocate(std::max<std::size_t>(1, s.recv_elements) * elem, 0));
    s.free_recv = s.all_recv;
  }
}

ReplayEngine::~ReplayEngine() {
  for (OpState& s : ops_) {
    if (s.send) mem_.release(s.send);
    for (void* p : s.all_recv) mem_.release(p);
  }
  for (MPI_Comm& c : comms_)
    if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
  mpi::free_types();
}

void ReplayEngine::issue(int op_index, Started& s, bool verify) {
  const CommOp& op = prog_.ops[static_cast<std::size_t>(op_index)];
  OpState& st = ops_[static_cast<std::size_t>(op_index)];
  s.op = op_index;
  s.recv = st.free_recv.back();
  st.free_recv.pop_back();
  const MPI_Datatype type = mpi::datatype(prog_.dtype);
  const MPI_Op sum = mpi::reduce_op(prog_.dtype, ReduceOp::sum);
  const MPI_Comm comm = comms_[static_cast<std::size_t>(op.dim)];
  if (verify) mem_.fill_sentinel(prog_.dtype, prog_.group_size(op.dim), s.recv, st.recv_elements);
  const int count = as_int(st.count), chunk = as_int(st.chunk);
  switch (op.coll) {
    case CollectiveId::all_reduce: MPI_Iallreduce(st.send, s.recv, count, type, sum, comm, &s.req); return;
    case CollectiveId::all_gather: MPI_Iallgather(st.send, chunk, type, s.recv, chunk, type, comm, &s.req); return;
    case CollectiveId::reduce_scatter:
      MPI_Ireduce_scatter_block(st.send, s.recv, chunk, type, sum, comm, &s.req);
      return;
    case CollectiveId::alltoall: MPI_Ialltoall(st.send, chunk, type, s.recv, chunk, type, comm, &s.req); return;
    case CollectiveId::alltoallv:
      MPI_Ialltoallv(st.send, st.send_counts.data(), st.send_displs.data(), type, s.recv, st.recv_counts.data(),
                     st.recv_displs.data(), type, comm, &s.req);
      return;
    case CollectiveId::sendrecv: {
      const int peer =
          pp_neighbour(group_rank_[static_cast<std::size_t>(Dim::pp)], op.direction, prog_.group_size(Dim::pp));
      // Tag: the direction the message travels (1 towards later stages, 2 towards earlier ones).
      if (op.p2p == P2p::send) MPI_Isend(st.send, count, type, peer, op.direction > 0 ? 1 : 2, comm, &s.req);
      else MPI_Irecv(s.recv, count, type, peer, op.direction < 0 ? 1 : 2, comm, &s.req);
      return;
    }
    default: throw std::logic_error("replay: no MPI call for this collective");
  }
}

std::uint64_t ReplayEngine::check(const Started& s) {
  const CommOp& op = prog_.ops[static_cast<std::size_t>(s.op)];
  const OpState& st = ops_[static_cast<std::size_t>(s.op)];
  if (op.p2p == P2p::send) return 0;
  if (op.p2p == P2p::recv) {
    const int n = prog_.group_size(Dim::pp);
    const int from = pp_neighbour(group_rank_[static_cast<std::size_t>(Dim::pp)], op.direction, n);
    const Pattern pat = make_pattern(prog_.dtype, std::nullopt, n);
    return mem_.count_wrong_input(prog_.dtype, pat, from, s.recv, st.count, 0);
  }
  const int me = group_rank_[static_cast<std::size_t>(op.dim)];
  OpArgs a = args_of(prog_, op, st.send, s.recv, st.count, st.chunk, me);
  a.traffic = st.plan ? &*st.plan : nullptr;
  return count_wrong(mem_, a, me, prog_.group_size(op.dim), a.coll->root_result_in_send);  // MPI's layout
}

void ReplayEngine::finish(Started& s, bool verify, ReplayStepTimes& t) {
  const double t0 = MPI_Wtime();
  MPI_Wait(&s.req, MPI_STATUS_IGNORE);
  t.exposed_s[static_cast<std::size_t>(prog_.ops[static_cast<std::size_t>(s.op)].dim)] += MPI_Wtime() - t0;
  if (watchdog_) watchdog_->heartbeat(++completed_);
  if (verify && corrupt_ && prog_.ops[static_cast<std::size_t>(s.op)].p2p != P2p::send) {
    mem_.corrupt(s.recv, info(prog_.dtype).size, 0);  // CCBENCH_FAULT=corrupt: one wrong element, once
    corrupt_ = false;
  }
  if (verify) wrong_ += check(s);
  ops_[static_cast<std::size_t>(s.op)].free_recv.push_back(s.recv);
  s.op = -1;
}

void ReplayEngine::compute(double seconds, std::vector<MPI_Request>& live) {
  if (seconds <= overrun_s_) {
    overrun_s_ -= seconds;
    return;
  }
  const double start = MPI_Wtime(), target = seconds - overrun_s_, until = start + target;
  for (double now = MPI_Wtime(); now < until; now = MPI_Wtime()) {
    if (!live.empty()) {
      int flag = 0;
      MPI_Testall(as_int(live.size()), live.data(), &flag, MPI_STATUSES_IGNORE);
    }
    if (watchdog_) watchdog_->touch();  // a compute wait ends by itself
    const double nap = std::min(kProgressEvery_s, until - now);
    timespec ts{0, static_cast<long>(nap * 1e9)};
    nanosleep(&ts, nullptr);
  }
  overrun_s_ = MPI_Wtime() - start - target;
}

ReplayStepTimes ReplayEngine::run_step(bool verify) {
  const std::vector<Action>& prog = prog_.stages[static_cast<std::size_t>(place_.p)];
  std::vector<Started> started(prog.size());
  std::vector<std::size_t> open;  // in start order
  std::vector<MPI_Request> live;
  ReplayStepTimes t;
  completed_ = 0;
  if (hang_ && !verify) hang_forever(rank_, "at the first timed step of the replay");
  const double t0 = MPI_Wtime();
  for (std::size_t i = 0; i < prog.size(); ++i) {
    const Action& a = prog[i];
    switch (a.kind) {
      case Action::Kind::compute: {
        // A copy of the outstanding requests: MPI_Testall leaves them alone until all are done.
        live.clear();
        for (std::size_t o : open) live.push_back(started[o].req);
        const double c0 = MPI_Wtime();
        compute(a.seconds, live);
        t.compute_s += MPI_Wtime() - c0;
        // Requests Testall completed are freed: take its results back.
        if (!live.empty() && std::all_of(live.begin(), live.end(), [](MPI_Request r) { return r == MPI_REQUEST_NULL; }))
          for (std::size_t o : open) started[o].req = MPI_REQUEST_NULL;
        break;
      }
      case Action::Kind::start:
        issue(a.op, started[i], verify);
        open.push_back(i);
        break;
      case Action::Kind::wait:
        finish(started[static_cast<std::size_t>(a.of)], verify, t);
        std::erase(open, static_cast<std::size_t>(a.of));
        break;
      case Action::Kind::wait_all:
        for (std::size_t o : open) finish(started[o], verify, t);
        open.clear();
        break;
    }
  }
  t.step_s = MPI_Wtime() - t0;
  return t;
}

}  // namespace ccb
