#include "harness/measure.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "harness/bitwise.hpp"
#include "kernels/pattern.hpp"
#include "harness/sampling.hpp"
#include "harness/sweep_sizes.hpp"
#include "harness/verify.hpp"

namespace ccb {

int ops_per_iteration(const Collective& c, int window) {
  switch (c.id) {
    case CollectiveId::pingpong: return 2;
    case CollectiveId::uni_bw:
    case CollectiveId::bi_bw: return window;
    default: return 1;
  }
}

namespace {

// The OpArgs of every local rank for this placement, with every buffer moved
// `shift` bytes in (the slot of one iteration), written over `out`.
void local_args(const Backend& backend, const OpArgs& args, std::span<const PointBuffers> buffers, std::size_t shift,
                std::vector<OpArgs>& out) {
  const Collective& c = *args.coll;
  const std::size_t elem = info(args.dtype).size;
  out.resize(buffers.size());
  for (std::size_t j = 0; j < buffers.size(); ++j) {
    OpArgs& a = out[j];
    a = args;
    a.rank = backend.first_rank() + static_cast<int>(j);
    auto* send = static_cast<unsigned char*>(buffers[j].send) + shift;
    auto* recv = static_cast<unsigned char*>(buffers[j].recv) + shift;
    if (a.in_place) {
      a.send = recv + offset_elements(c.in_place_send, a.rank, a.chunk) * elem;
      a.recv = recv + offset_elements(backend.in_place_recv(c), a.rank, a.chunk) * elem;
    } else {
      a.send = send;
      a.recv = recv;
    }
  }
}

// Bytes of the larger of the point's two buffers.
std::size_t point_bytes(const OpArgs& a) { return std::max(send_elements(a), recv_elements(a)) * info(a.dtype).size; }

// Iteration k was issued: a heartbeat where run() returns on completion
// (MPI); an asynchronous backend's completions reach the watchdog through
// Backend::on_completion (set by the sweep).
void issued(const Backend& backend, Watchdog& watchdog, long k) {
  if (backend.asynchronous()) watchdog.issued(k);
  else watchdog.heartbeat(k);
}

}  // namespace

// The timed loop: `next` is the caller's lambda, called directly (no
// std::function indirection between the launches). `iteration_s` (-I 1):
// each iteration's seconds where it ran, max over this process's ranks, as
// nccl-tests times them: from a mark before its launch to the next one's (-z
// 3: to a mark after its completion, before the barrier), on the stream of
// an asynchronous backend, else on the host clock.
template <class Next>
double pipelined_seconds(Backend& backend, const Comm& comm, const Config& cfg, int iters, Watchdog& watchdog,
                         const Next& next, std::vector<double>* iteration_s = nullptr, double* cpu_s = nullptr) {
  using Clock = std::chrono::steady_clock;
  // -G N: the n launches captured as one CUDA graph, launched N times.
  if (cfg.cuda_graph > 0 && backend.capture_begin()) {
    for (int k = 0; k < iters; ++k) backend.run(next(k));
    backend.capture_end();
    comm.barrier();
    watchdog.graph_begins(iters);  // one heartbeat per launch of `iters` operations
    const auto t0 = Clock::now();
    backend.capture_launch(cfg.cuda_graph);
    if (cpu_s)  // nccl-tests divides this by -n alone; per operation it is by n x N
      *cpu_s = std::chrono::duration<double>(Clock::now() - t0).count() / (static_cast<double>(iters) * cfg.cuda_graph);
    backend.synchronize();
    watchdog.graph_ends();
    watchdog.heartbeat(iters);
    return std::chrono::duration<double>(Clock::now() - t0).count() / (static_cast<double>(iters) * cfg.cuda_graph);
  }
  const bool paired = cfg.blocking == 3, on_stream = backend.asynchronous();
  const int slots = iteration_s ? (paired ? 2 * iters : iters + 1) : 0;
  std::vector<Clock::time_point> host(on_stream ? 0 : static_cast<std::size_t>(slots));
  if (slots > 0 && on_stream) backend.stream_marks_begin(slots);
  const auto mark = [&](int slot) {
    if (slot >= slots) return;
    if (on_stream) backend.stream_mark(slot);
    else host[static_cast<std::size_t>(slot)] = Clock::now();
  };
  // -z (nccl-tests): 1 waits for each operation and adds a barrier, 2 only
  // waits, 3 waits and adds a barrier whose time is left out.
  double excluded = 0;
  const auto t0 = Clock::now();
  for (int k = 0; k < iters; ++k) {
    const auto& ops = next(k);
    mark(paired ? 2 * k : k);
    backend.run(ops);
    if (cfg.blocking >= 1) backend.synchronize();
    if (cfg.blocking == 1) comm.barrier();
    if (cfg.blocking == 3) {
      mark(2 * k + 1);
      const auto b0 = Clock::now();
      comm.barrier();
      excluded += std::chrono::duration<double>(Clock::now() - b0).count();
    }
    issued(backend, watchdog, k);
  }
  if (!paired) mark(iters);
  if (cpu_s) *cpu_s = (std::chrono::duration<double>(Clock::now() - t0).count() - excluded) / iters;
  backend.synchronize();
  const double seconds = (std::chrono::duration<double>(Clock::now() - t0).count() - excluded) / iters;
  if (slots > 0) {
    std::vector<std::pair<int, int>> spans;
    for (int k = 0; k < iters; ++k) spans.emplace_back(paired ? 2 * k : k, paired ? 2 * k + 1 : k + 1);
    if (on_stream) {
      *iteration_s = backend.stream_mark_seconds(spans);
    } else {
      iteration_s->clear();
      for (const auto& [from, to] : spans)
        iteration_s->push_back(
            std::chrono::duration<double>(host[static_cast<std::size_t>(to)] - host[static_cast<std::size_t>(from)])
                .count());
    }
  }
  return seconds;
}

namespace {

// -I 1: every process's iteration times (us per operation) on rank 0, and
// per iteration their max, as nccl-tests' i_* (empty elsewhere).
Measurement::InLoop gather_in_loop(const Comm& comm, const std::vector<double>& seconds, double per_op, int skip) {
  std::string mine(seconds.size() * sizeof(double), '\0');
  std::memcpy(mine.data(), seconds.data(), mine.size());
  const std::vector<std::string> all = comm.gather_strings(mine);
  Measurement::InLoop out;
  out.skipped = skip;
  for (const std::string& row : all) {
    std::vector<double> us(row.size() / sizeof(double));
    std::memcpy(us.data(), row.data(), us.size() * sizeof(double));
    for (double& v : us) v = v / per_op * 1e6;
    if (out.times_us.size() < us.size()) out.times_us.resize(us.size(), 0.0);
    for (std::size_t k = 0; k < us.size(); ++k) out.times_us[k] = std::max(out.times_us[k], us[k]);
    if (all.size() > 1) out.per_process_us.push_back(std::move(us));
  }
  return out;
}

}  // namespace

std::optional<TrafficPlan> plan_traffic(const Config& cfg, int n, std::size_t count) {
  if (cfg.collective->source != Source::traffic) return std::nullopt;
  return make_traffic_plan(cfg.traffic.value_or(TrafficModel{}), n, count);
}

void warm_up_every_size(Backend& backend, const Config& cfg, const OpArgs& task, std::size_t largest_bytes,
                        std::span<const PointBuffers> buffers, Watchdog& watchdog) {
  for (const SizePoint& p : warm_up_points(cfg.min_bytes, cfg.max_bytes, cfg.sizes, *task.coll, task.dtype,
                                           backend.ranks(), largest_bytes)) {
    OpArgs a = task;
    a.count = p.count;
    a.chunk = p.chunk;
    const std::optional<TrafficPlan> traffic = plan_traffic(cfg, backend.ranks(), p.count);
    a.traffic = traffic ? &*traffic : nullptr;
    a.in_place = false;
    const BufferSlots slots = buffer_slots(buffers.front(), point_bytes(a));  // shifted as the timed loop is
    std::vector<OpArgs> locals;
    for (int w = 0; w < cfg.warmup; ++w) {
      local_args(backend, a, buffers, slots.offset(w), locals);
      // This size's first use may connect.
      const bool setup = w == 0 && backend.asynchronous() && watchdog.first_use_begins(point_bytes(a));
      backend.run(locals);
      if (setup) {
        backend.synchronize();
        watchdog.setup_ends();
      }
      if (cfg.blocking >= 1) backend.synchronize();
      issued(backend, watchdog, w);
    }
    backend.synchronize();  // as nccl-tests: each size's warm-up completes before the next
    watchdog.heartbeat(cfg.warmup);
  }
}

void measure_placement(Backend& backend, const Comm& comm, const Config& cfg, const OpArgs& args,
                       std::span<const PointBuffers> buffers, const Faults& faults, Watchdog& watchdog,
                       const Comm::ClockOffset& clock, Measurement& out) {
  const int n = backend.ranks();
  const Collective& c = *args.coll;
  Memory& mem = backend.memory();
  const std::size_t elem = info(args.dtype).size;
  // Iteration k's arguments are computed when it is issued, into one vector
  // (harness/buffer_slots.hpp): a sweep to -e 8G has 2^30 slots at 8 B.
  const BufferSlots slots = buffer_slots(buffers.front(), point_bytes(args));
  std::vector<OpArgs> locals, current;
  local_args(backend, args, buffers, 0, locals);
  const auto next = [&](long k) {
    local_args(backend, args, buffers, slots.offset(k), current);
    return std::span<const OpArgs>(current);
  };
  if (const std::string why = backend.unsupported(locals.front()); !why.empty()) {
    out.note = "not measured: " + why;
    return;
  }
  // Fills the first `count` slots (the buffer shift fills and checks slot 0 only).
  const auto prepare = [&](std::size_t count) {
    std::vector<OpArgs> slot;
    for (std::size_t k = 0; k < count; ++k) {
      local_args(backend, args, buffers, slots.offset(static_cast<long>(k)), slot);
      for (std::size_t j = 0; j < slot.size(); ++j) {
        const std::size_t recv_base_count =
            args.in_place ? std::min(buffers[j].recv_capacity_count, slots.slot_bytes / elem) : recv_elements(slot[j]);
        auto* base = static_cast<unsigned char*>(buffers[j].recv) + slots.offset(static_cast<long>(k));
        prepare_buffers(mem, slot[j], slot[j].rank, n, base, recv_base_count);
      }
    }
  };

  // Same count everywhere: rank 0's decides.
  int iters = cfg.iters;
  comm.broadcast(&iters, sizeof iters);
  const double per_op = ops_per_iteration(c, args.window);
  bool active = !c.point_to_point;
  for (const auto& a : locals) active = active || pair_partner(a.rank, n).has_value();

  prepare(slots.shifted ? 1 : slots.slots);
  watchdog.touch();  // filling is not an operation: the timeout starts now
  const int warmup = cfg.warmup_order == WarmUpOrder::per_point ? cfg.warmup : 0;  // else warmed before the sweep
  for (int w = 0; w < warmup; ++w) {
    const bool setup = w == 0 && backend.asynchronous() && watchdog.first_use_begins(point_bytes(args));  // may connect
    backend.run(next(w));
    if (setup) {
      backend.synchronize();
      watchdog.setup_ends();
    }
    if (cfg.blocking >= 1) backend.synchronize();  // -z: each operation waited for, warm-up too
    issued(backend, watchdog, w);
  }
  // nccl-tests: one synchronised operation and a barrier before each placement
  // (with -w 0 this is where connections are set up, outside the timed loop).
  if (backend.asynchronous()) watchdog.first_use_begins(point_bytes(args));
  backend.run(locals);
  backend.synchronize();
  watchdog.setup_ends();
  watchdog.heartbeat(0);

  out.measured = true;
  if (cfg.timing != TimingMode::per_iteration) {
    comm.barrier();
    std::vector<double> iteration_s;
    double cpu_s = 0;
    out.pipelined_us = comm.combine(pipelined_seconds(backend, comm, cfg, iters, watchdog, next,
                                                      cfg.per_iter_timing ? &iteration_s : nullptr, &cpu_s) /
                                        per_op * 1e6,
                                    cfg.aggregation, active);
    if (cfg.report_cputime) out.cputime_us = comm.combine(cpu_s / per_op * 1e6, cfg.aggregation, active);
    if (cfg.per_iter_timing) out.in_loop = gather_in_loop(comm, iteration_s, per_op, cfg.per_iter_skip);
  }
  if (cfg.timing != TimingMode::pipelined)
    sample_per_iteration(backend, comm, cfg, iters, per_op, active, clock, watchdog, next, out,
                         faults.delay_s(locals.front().rank));

  if (const std::string why = backend.unverifiable(locals.front()); cfg.check > 0 && !why.empty()) {
    out.note += (out.note.empty() ? "" : "; ") + std::string("not checked: ") + why;
  } else if (cfg.check > 0) {
    uint64_t wrong = 0;
    const bool root_in_send = backend.root_result_in_send(c);
    for (int k = 0; k < cfg.check; ++k) {
      // -G: the graph is captured (after a direct run that connects) before
      // the inputs are filled, so the run checked is the graph's launch.
      backend.prepare(locals);
      prepare(1);
      watchdog.heartbeat(k);
      comm.barrier();
      backend.run(locals);
      backend.synchronize();
      watchdog.heartbeat(k);
      for (const auto& a : locals) {
        if (faults.corrupts(a.rank)) {
          const ResultRegion r = result_region(a, a.rank, n, root_in_send);
          if (r.data && r.count > 0) mem.corrupt(r.data, elem, r.count / 2);
        }
        wrong += count_wrong(mem, a, a.rank, n, root_in_send);
      }
    }
    out.wrong = comm.sum(wrong);
    if (cfg.bitwise > 0) {  // --bitwise: the same inputs again, compared bit for bit (harness/bitwise.hpp)
      std::vector<BitwiseRegion> regions;  // every local rank's (-g N: every GPU's)
      for (const auto& a : locals) {
        const ResultRegion r = result_region(a, a.rank, n, root_in_send);
        regions.push_back(BitwiseRegion{a.rank, r.data, r.count * elem, faults.flips_at(a.rank)});
      }
      const auto run_once = [&] {
        backend.prepare(locals);
        prepare(1);
        comm.barrier();
        backend.run(locals);
        backend.synchronize();
        watchdog.touch();
      };
      const bool same = c.holders == Holders::all_ranks && c.source_offset == Offset::zero &&
                        (c.source == Source::reduction || c.source == Source::each_rank || c.source == Source::root);
      const BitwiseOutcome b = check_bitwise(cfg.bitwise, comm, mem, run_once, regions, elem, same);
      out.bitwise = Measurement::Bitwise{b.repeats, b.across_ranks, b.differing, b.first};
      *out.wrong += b.differing;
      if (!b.first.empty()) out.note += (out.note.empty() ? "" : "; ") + std::string("bitwise: ") + b.first;
    }
    const OpArgs& a = locals.front();
    if (const std::string blind =
            pattern_blind_spot(a.dtype, c.reduces ? std::optional<ReduceOp>(a.op) : std::nullopt, n);
        !blind.empty())
      out.note += (out.note.empty() ? "" : "; ") + std::string("checked, but ") + blind;
  }
}

}  // namespace ccb
