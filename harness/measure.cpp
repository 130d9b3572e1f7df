#include "harness/measure.hpp"

#include <mpi.h>

#include <cstdlib>
#include <string>

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

void measure_placement(Backend& backend, const Comm& comm, const Config& cfg, OpArgs args,
                       const PointBuffers& buffers, const Faults& faults, Watchdog& watchdog,
                       Placement& out) {
  const int rank = comm.rank(), n = comm.size();
  const Collective& c = *args.coll;
  Memory& mem = backend.memory();
  const std::size_t elem = info(args.dtype).size;
  if (args.in_place) {
    auto* base = static_cast<unsigned char*>(buffers.recv);
    args.send = base + offset_elements(c.in_place_send, rank, args.chunk) * elem;
    args.recv = base + offset_elements(c.in_place_recv, rank, args.chunk) * elem;
  } else {
    args.send = buffers.send;
    args.recv = buffers.recv;
  }
  const std::size_t recv_base_count =
      args.in_place ? buffers.recv_capacity_count : elements(c.recv_extent, args.count, args.chunk);

  // Same count everywhere: rank 0's decides.
  int iters = cfg.iters;
  MPI_Bcast(&iters, 1, MPI_INT, 0, comm.handle());
  const double per_op = ops_per_iteration(c, args.window);
  const bool active = !c.point_to_point || pair_partner(rank, n).has_value();

  prepare_buffers(mem, args, rank, n, buffers.recv, recv_base_count);
  watchdog.heartbeat(0);  // filling is not an operation: the timeout starts now
  for (int w = 0; w < cfg.warmup; ++w) {
    backend.run(args);
    watchdog.heartbeat(w);
  }

  out.measured = true;
  if (cfg.timing != TimingMode::per_iteration) {
    comm.barrier();
    backend.start_clock();
    for (int k = 0; k < iters; ++k) {
      backend.run(args);
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
      backend.run(args);
      samples[k] = backend.stop_clock() / per_op * 1e6;
      watchdog.heartbeat(static_cast<long>(k));
    }
    comm.max_inplace(samples);  // an iteration lasts until its slowest rank finishes
    out.per_iteration_us = summarize(samples);
    if (cfg.samples && rank == 0) out.samples_us = samples;
  }

  if (cfg.check > 0) {
    uint64_t wrong = 0;
    for (int k = 0; k < cfg.check; ++k) {
      prepare_buffers(mem, args, rank, n, buffers.recv, recv_base_count);
      watchdog.heartbeat(k);
      comm.barrier();
      backend.run(args);
      watchdog.heartbeat(k);
      if (faults.corrupt_rank == rank) {
        const ResultRegion r = result_region(args, rank, n);
        if (r.data && r.count > 0) mem.corrupt(r.data, elem, r.count / 2);
      }
      wrong += count_wrong(mem, args, rank, n);
    }
    out.wrong = comm.sum(wrong);
  }
}

}  // namespace ccb
