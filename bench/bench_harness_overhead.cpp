// Per-iteration overhead of ccbench's timed loop: an 8-byte float all_reduce
// through MpiBackend::run (what measure_placement times, watchdog heartbeat
// included) vs a bare MPI_Allreduce loop. The two alternate in rounds in the
// same processes, so machine noise hits both; the median of the per-round
// ratios is printed. Run: scripts/mpirun.sh -np 2 build/bench/bench_harness_overhead
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "collectives/mpi/mpi_backend.hpp"
#include "harness/watchdog.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int iters = argc > 1 ? std::atoi(argv[1]) : 20000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 15;
  {
    ccb::MpiBackend backend(MPI_COMM_WORLD);
    ccb::Watchdog watchdog(3600, rank, "bench");  // armed, as with -T
    float send[2] = {1, 2}, recv[2] = {0, 0};
    const ccb::OpArgs args{.coll = &ccb::collective(ccb::CollectiveId::all_reduce),
                           .rank = rank,
                           .count = 2,
                           .chunk = 2,
                           .send = send,
                           .recv = recv,
                           .window = 64};
    std::vector<double> ratios, bare_us, harness_us;
    for (int r = 0; r < rounds + 1; ++r) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      for (int k = 0; k < iters; ++k) MPI_Allreduce(send, recv, 2, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      const double bare = MPI_Wtime() - t0;
      MPI_Barrier(MPI_COMM_WORLD);
      backend.start_clock();
      for (int k = 0; k < iters; ++k) {
        backend.run({&args, 1});
        watchdog.heartbeat(k);
      }
      const double harness = backend.stop_clock();
      if (r == 0) continue;  // warm-up round
      double both[2] = {bare, harness}, max[2];
      MPI_Allreduce(both, max, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      bare_us.push_back(max[0] / iters * 1e6);
      harness_us.push_back(max[1] / iters * 1e6);
      ratios.push_back(max[1] / max[0]);
    }
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    if (rank == 0)
      std::printf(
          "harness overhead, 8 B float all_reduce, %d iterations x %d rounds: bare MPI_Allreduce %.3f us, "
          "ccbench loop %.3f us, ratio (median of rounds) %.3f\n",
          iters, rounds, median(bare_us), median(harness_us), median(ratios));
  }
  MPI_Finalize();
  return 0;
}
