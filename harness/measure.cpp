#include "harness/measure.hpp"

#include <cstdlib>
#include <string>
#include <vector>

#include "harness/verify.hpp"

namespace ccb {

Faults faults_from_environment() {
  Faults f;
  if (const char* spec = std::getenv("CCBENCH_FAULT")) {
    const std::string s = spec;
    const std::string key = "corrupt:rank=";
    if (s.rfind(key, 0) == 0) f.corrupt_rank = std::atoi(s.c_str() + key.size());
  }
  return f;
}

int ops_per_iteration(const Collective& c, int window) {
  switch (c.id) {
    case CollectiveId::pingpong: return 2;
    case CollectiveId::uni_bw:
    case CollectiveId::bi_bw: return window;
    default: return 1;
  }
}

namespace {

// The OpArgs of every local rank for this placement.
std::vector<OpArgs> local_args(const Backend& backend, const OpArgs& args, std::span<const PointBuffers> buffers) {
  const Collective& c = *args.coll;
  const std::size_t elem = info(args.dtype).size;
  std::vector<OpArgs> out;
  for (std::size_t j = 0; j < buffers.size(); ++j) {
    OpArgs a = args;
    a.rank = backend.first_rank() + static_cast<int>(j);
    if (a.in_place) {
      auto* base = static_cast<unsigned char*>(buffers[j].recv);
      a.send = base + offset_elements(c.in_place_send, a.rank, a.chunk) * elem;
      a.recv = base + offset_elements(backend.in_place_recv(c), a.rank, a.chunk) * elem;
    } else {
      a.send = buffers[j].send;
      a.recv = buffers[j].recv;
    }
    out.push_back(a);
  }
  return out;
}

}  // namespace

void measure_placement(Backend& backend, const Comm& comm, const Config& cfg, const OpArgs& args,
                       std::span<const PointBuffers> buffers, const Faults& faults, Watchdog& watchdog,
                       Placement& out) {
  const int n = backend.ranks();
  const Collective& c = *args.coll;
  Memory& mem = backend.memory();
  const std::size_t elem = info(args.dtype).size;
  const std::vector<OpArgs> locals = local_args(backend, args, buffers);
  if (const std::string why = backend.unsupported(locals.front()); !why.empty()) {
    out.note = "not measured: " + why;
    return;
  }
  const auto prepare = [&] {
    for (std::size_t j = 0; j < locals.size(); ++j) {
      const std::size_t recv_base_count =
          args.in_place ? buffers[j].recv_capacity_count : elements(c.recv_extent, args.count, args.chunk);
      prepare_buffers(mem, locals[j], locals[j].rank, n, buffers[j].recv, recv_base_count);
    }
  };

  // Same count everywhere: rank 0's decides.
  int iters = cfg.iters;
  comm.broadcast(&iters, sizeof iters);
  const double per_op = ops_per_iteration(c, args.window);
  bool active = !c.point_to_point;
  for (const auto& a : locals) active = active || pair_partner(a.rank, n).has_value();

  prepare();
  watchdog.heartbeat(0);  // filling is not an operation: the timeout starts now
  for (int w = 0; w < cfg.warmup; ++w) {
    backend.run(locals);
    watchdog.heartbeat(w);
  }

  out.measured = true;
  if (cfg.timing != TimingMode::per_iteration) {
    comm.barrier();
    backend.start_clock();
    for (int k = 0; k < iters; ++k) {
      backend.run(locals);
      watchdog.heartbeat(k);
    }
    const double seconds = backend.stop_clock() / iters / per_op;
    out.pipelined_us = comm.combine(seconds * 1e6, cfg.aggregation, active);
  }
  if (cfg.timing != TimingMode::pipelined) {
    std::vector<double> samples(static_cast<std::size_t>(iters));
    for (std::size_t k = 0; k < samples.size(); ++k) {
      comm.barrier();
      backend.start_clock();
      backend.run(locals);
      samples[k] = backend.stop_clock() / per_op * 1e6;
      watchdog.heartbeat(static_cast<long>(k));
    }
    comm.max_inplace(samples);  // an iteration lasts until its slowest rank finishes
    out.per_iteration_us = summarize(samples);
    if (cfg.samples && comm.rank() == 0) out.samples_us = samples;
  }

  if (const std::string why = backend.unverifiable(locals.front()); cfg.check > 0 && !why.empty()) {
    out.note = "not checked: " + why;
  } else if (cfg.check > 0) {
    uint64_t wrong = 0;
    for (int k = 0; k < cfg.check; ++k) {
      prepare();
      watchdog.heartbeat(k);
      comm.barrier();
      backend.run(locals);
      backend.synchronize();
      watchdog.heartbeat(k);
      for (const auto& a : locals) {
        if (faults.corrupt_rank == a.rank) {
          const ResultRegion r = result_region(a, a.rank, n);
          if (r.data && r.count > 0) mem.corrupt(r.data, elem, r.count / 2);
        }
        wrong += count_wrong(mem, a, a.rank, n);
      }
    }
    out.wrong = comm.sum(wrong);
  }
}

}  // namespace ccb
