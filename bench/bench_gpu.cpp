// GPU performance figures, each side by side with its baseline in one run:
//  1. fill and verify kernels vs a device-to-device cudaMemcpy of the same
//     buffer (bytes counted as the kernel touches them: fill writes, verify
//     reads, the copy reads and writes, as nvbandwidth counts it), ratio =
//     kernel / copy; target >= 0.8;
//  2. per-iteration timing overhead: ccbench's NCCL backend timing a 1-rank
//     all_reduce with CUDA events per iteration vs a bare ncclAllReduce loop
//     timed the same way, alternating in rounds; ratio target <= 1.05.
// Without a usable GPU it says so and exits 0 (nothing to measure).
// --enforce (scripts/dev/gpu-check.sh): exit 1 when a target is missed or
// there is no GPU, each miss named on one line.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/cuda/device_kernels.hpp"
#include "kernels/cuda/gpu_info.hpp"
#include "kernels/pattern.hpp"
#if CCBENCH_HAVE_NCCL
#include <nccl.h>

#include "collectives/nccl/nccl_backend.hpp"
#endif

namespace {
using ccb::cuda::check;

int missed = 0;  // targets missed, each printed as "MISSED: ..."
void target(bool met, const std::string& what) {
  if (met) return;
  ++missed;
  std::printf("MISSED: %s\n", what.c_str());
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Seconds of one call of f on the default stream, median of `reps` timings of `iters` calls.
template <class F>
double time_device(F&& f, int iters = 10, int reps = 5) {
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "cudaEventCreate");
  check(cudaEventCreate(&b), "cudaEventCreate");
  f();
  std::vector<double> s;
  for (int r = 0; r < reps; ++r) {
    check(cudaEventRecord(a, nullptr), "cudaEventRecord");
    for (int k = 0; k < iters; ++k) f();
    check(cudaEventRecord(b, nullptr), "cudaEventRecord");
    check(cudaEventSynchronize(b), "kernels");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    s.push_back(ms * 1e-3 / iters);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return median(s);
}

void kernels_vs_copy() {
  const std::size_t bytes = std::size_t{1} << 30;
  void *x = nullptr, *y = nullptr;
  check(cudaMalloc(&x, bytes), "cudaMalloc");
  check(cudaMalloc(&y, bytes), "cudaMalloc");
  const double copy_s =
      time_device([&] { check(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice, nullptr), "copy"); });
  const double copy_gbps = 2.0 * bytes / copy_s / 1e9;  // read + write
  std::printf("%-28s %-9s %10s %9s\n", "kernel (1 GiB)", "dtype", "GB/s", "x copy");
  std::printf("%-28s %-9s %10.1f %9.2f\n", "cudaMemcpy D2D (read+write)", "-", copy_gbps, 1.0);
  for (ccb::DType d :
       {ccb::DType::int8, ccb::DType::bfloat16, ccb::DType::float32, ccb::DType::float64, ccb::DType::f8e4m3}) {
    const std::size_t count = bytes / ccb::info(d).size;
    const ccb::Pattern p = ccb::make_pattern(d, ccb::ReduceOp::sum, 8);
    const double fill_s = time_device([&] { ccb::cuda::fill_input(d, p, 3, x, count, 0, nullptr); });
    const double verify_s = time_device([&] { ccb::cuda::count_wrong_input(d, p, 3, x, count, 0, nullptr); }, 5, 3);
    const double fill_gbps = bytes / fill_s / 1e9, verify_gbps = bytes / verify_s / 1e9;
    std::printf("%-28s %-9s %10.1f %9.2f\n", "fill (write)", std::string(ccb::info(d).name).c_str(), fill_gbps,
                fill_gbps / copy_gbps);
    std::printf("%-28s %-9s %10.1f %9.2f\n", "verify (read, sync + copy 8 B)", std::string(ccb::info(d).name).c_str(),
                verify_gbps, verify_gbps / copy_gbps);
    const std::string name(ccb::info(d).name);
    target(fill_gbps / copy_gbps >= 0.8, "fill " + name + " at " + std::to_string(fill_gbps / copy_gbps) + " x copy");
    target(verify_gbps / copy_gbps >= 0.8,
           "verify " + name + " at " + std::to_string(verify_gbps / copy_gbps) + " x copy");
  }
  cudaFree(x);
  cudaFree(y);
}

#if CCBENCH_HAVE_NCCL
void nccl_timing_overhead() {
  ccb::NcclOptions o;
  ncclGetUniqueId(&o.id);
  o.devices = {0};
  ccb::NcclBackend backend(o);
  const std::size_t count = 2;  // 8 B: the overhead shows most at small sizes
  void* buf = backend.memory().allocate(count * 4, 0);
  const ccb::OpArgs args{.coll = &ccb::collective(ccb::CollectiveId::all_reduce),
                         .count = count,
                         .chunk = count,
                         .send = buf,
                         .recv = buf,
                         .in_place = true,
                         .window = 64};
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "cudaEventCreate");
  check(cudaEventCreate(&b), "cudaEventCreate");
  const int iters = 2000, rounds = 11;
  std::vector<double> ratios, bare_us, harness_us;
  for (int r = 0; r < rounds + 1; ++r) {
    double bare = 0, harness = 0;
    for (int k = 0; k < iters; ++k) {  // bare: event, ncclAllReduce, event, wait
      check(cudaEventRecord(a, stream), "cudaEventRecord");
      ncclAllReduce(buf, buf, count, ncclFloat32, ncclSum, backend.comm(0), stream);
      check(cudaEventRecord(b, stream), "cudaEventRecord");
      check(cudaEventSynchronize(b), "allreduce");
      float ms = 0;
      cudaEventElapsedTime(&ms, a, b);
      bare += ms * 1e-3;
    }
    for (int k = 0; k < iters; ++k) {  // ccbench's per-iteration path
      backend.start_clock();
      backend.run({&args, 1});
      harness += backend.stop_clock();
    }
    if (r == 0) continue;
    bare_us.push_back(bare / iters * 1e6);
    harness_us.push_back(harness / iters * 1e6);
    ratios.push_back(harness / bare);
  }
  std::printf(
      "per-iteration CUDA-event timing, 8 B float all_reduce on 1 GPU, %d iterations x %d rounds:\n"
      "  bare ncclAllReduce %.2f us, ccbench %.2f us, ratio %.3f (median of rounds; target <= 1.05)\n",
      iters, rounds, median(bare_us), median(harness_us), median(ratios));
  target(median(ratios) <= 1.05, "per-iteration timing overhead ratio " + std::to_string(median(ratios)));
  backend.memory().release(buf);
}
#endif

}  // namespace

int main(int argc, char** argv) {
  const bool enforce = argc > 1 && std::string(argv[1]) == "--enforce";
  const ccb::GpuInfo g = ccb::query_gpus();
  if (!g.error.empty() || g.devices == 0) {
    std::printf("bench_gpu: skipped, no usable GPU (%s)\n", g.error.empty() ? "0 devices" : g.error.c_str());
    return enforce ? 1 : 0;
  }
  kernels_vs_copy();
#if CCBENCH_HAVE_NCCL
  nccl_timing_overhead();
#endif
  if (missed > 0) std::printf("bench_gpu: %d target(s) missed\n", missed);
  return enforce && missed > 0 ? 1 : 0;
}
