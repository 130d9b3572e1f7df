// A minimal reference loop in the style of the OSU and IMB benchmarks, written
// independently of ccbench to check its per-iteration numbers:
//   for each iteration: MPI_Barrier; t0 = MPI_Wtime(); <one call>; t = MPI_Wtime() - t0
// The iteration's time is the max over ranks; printed per size: the median
// over iterations (what ccbench's per-iteration p50 reports) and OSU's figure
// (each rank's mean, averaged over ranks). float data, sizes as ccbench's
// (all_gather/alltoall: bytes of all ranks' chunks; pingpong: pairs r, r+n/2,
// half a round trip).
//   mpirun -np N peer_reference COLLECTIVE MIN_BYTES MAX_BYTES FACTOR ITERS WARMUP
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (argc != 7) {
    if (rank == 0) std::fprintf(stderr, "usage: peer_reference COLLECTIVE MIN MAX FACTOR ITERS WARMUP\n");
    MPI_Finalize();
    return 2;
  }
  const char* coll = argv[1];
  const long min_b = std::atol(argv[2]), max_b = std::atol(argv[3]), factor = std::atol(argv[4]);
  const int iters = std::atoi(argv[5]), warmup = std::atoi(argv[6]);
  const bool allreduce = !std::strcmp(coll, "all_reduce"), allgather = !std::strcmp(coll, "all_gather"),
             alltoall = !std::strcmp(coll, "alltoall"), pingpong = !std::strcmp(coll, "pingpong");
  if (!allreduce && !allgather && !alltoall && !pingpong) {
    if (rank == 0) std::fprintf(stderr, "peer_reference: %s: not one of all_reduce all_gather alltoall pingpong\n", coll);
    MPI_Finalize();
    return 2;
  }
  std::vector<float> send(static_cast<std::size_t>(max_b / 4 + n), 1.0f), recv(send.size(), 0.0f);
  const int half = n / 2, peer = rank < half ? rank + half : (rank < 2 * half ? rank - half : -1);
  if (rank == 0) std::printf("# %s, %d ranks: bytes p50_us osu_avg_us\n", coll, n);
  for (long bytes = min_b; bytes <= max_b; bytes *= factor) {
    int count = static_cast<int>(bytes / 4);
    if (allgather || alltoall) count = std::max(1, count / n) * n;  // rounded down as ccbench does
    const int chunk = count / n;
    const auto call = [&] {
      if (allreduce) MPI_Allreduce(send.data(), recv.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      if (allgather) MPI_Allgather(send.data(), chunk, MPI_FLOAT, recv.data(), chunk, MPI_FLOAT, MPI_COMM_WORLD);
      if (alltoall) MPI_Alltoall(send.data(), chunk, MPI_FLOAT, recv.data(), chunk, MPI_FLOAT, MPI_COMM_WORLD);
      if (pingpong && peer >= 0) {
        if (rank < peer) {
          MPI_Send(send.data(), count, MPI_FLOAT, peer, 1, MPI_COMM_WORLD);
          MPI_Recv(recv.data(), count, MPI_FLOAT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
          MPI_Recv(recv.data(), count, MPI_FLOAT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(send.data(), count, MPI_FLOAT, peer, 1, MPI_COMM_WORLD);
        }
      }
    };
    for (int w = 0; w < warmup; ++w) call();
    std::vector<double> t(static_cast<std::size_t>(iters));
    double sum = 0;
    for (int k = 0; k < iters; ++k) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      call();
      t[k] = (MPI_Wtime() - t0) / (pingpong ? 2 : 1) * 1e6;
      sum += t[k];
    }
    MPI_Allreduce(MPI_IN_PLACE, t.data(), iters, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double osu = 0;
    const double mine = sum / iters;
    MPI_Reduce(&mine, &osu, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    std::sort(t.begin(), t.end());
    const double p50 = iters % 2 ? t[iters / 2] : (t[iters / 2 - 1] + t[iters / 2]) / 2;
    if (rank == 0) std::printf("%ld %.4f %.4f\n", static_cast<long>(count) * 4, p50, osu / n);
    if (factor <= 1) break;
  }
  MPI_Finalize();
  return 0;
}
