// Host kernel throughput in bytes of buffer per second, with memcpy of the
// same bytes as the baseline in the same run:
//   build/bench/bench_kernels --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "kernels/host_reduce.hpp"
#include "kernels/pattern.hpp"

namespace {
constexpr std::size_t kBytes = std::size_t{32} << 20;  // beyond the last-level cache

void BM_memcpy(benchmark::State& state) {
  std::vector<unsigned char> a(kBytes, 1), b(kBytes, 2);
  for (auto _ : state) {
    std::memcpy(b.data(), a.data(), kBytes);
    benchmark::DoNotOptimize(b.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBytes));
}
BENCHMARK(BM_memcpy)->Unit(benchmark::kMillisecond);

// The dtype a benchmark case runs, its element count in kBytes, and the
// labels every case reports.
struct Case {
  explicit Case(benchmark::State& s)
      : state(s), dtype(static_cast<ccb::DType>(s.range(0))), count(kBytes / ccb::info(dtype).size) {}
  ~Case() {
    state.SetLabel(std::string(ccb::info(dtype).name));
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBytes));
  }
  benchmark::State& state;
  ccb::DType dtype;
  std::size_t count;
};

void BM_reduce(benchmark::State& state) {  // sum
  const Case c(state);
  std::vector<unsigned char> in(kBytes), inout(kBytes);
  const ccb::Pattern p = ccb::make_pattern(c.dtype, ccb::ReduceOp::sum, 2);
  ccb::fill_input(c.dtype, p, 0, in.data(), c.count, 0);
  ccb::fill_input(c.dtype, p, 1, inout.data(), c.count, 0);
  for (auto _ : state) {
    ccb::reduce_into(c.dtype, ccb::ReduceOp::sum, in.data(), inout.data(), c.count);
    benchmark::ClobberMemory();
  }
}

void BM_verify(benchmark::State& state) {
  const Case c(state);
  std::vector<unsigned char> buf(kBytes);
  const ccb::Pattern p = ccb::make_pattern(c.dtype, std::nullopt, 4);
  ccb::fill_input(c.dtype, p, 3, buf.data(), c.count, 0);
  std::size_t wrong = 0;
  for (auto _ : state) benchmark::DoNotOptimize(wrong += ccb::count_wrong_input(c.dtype, p, 3, buf.data(), c.count, 0));
  if (wrong != 0) state.SkipWithError("verification found wrong elements");
}

void BM_fill(benchmark::State& state) {
  const Case c(state);
  std::vector<unsigned char> buf(kBytes);
  const ccb::Pattern p = ccb::make_pattern(c.dtype, std::nullopt, 4);
  for (auto _ : state) {
    ccb::fill_input(c.dtype, p, 3, buf.data(), c.count, 0);
    benchmark::ClobberMemory();
  }
}

void all_dtypes(benchmark::internal::Benchmark* b) {
  for (const auto& t : ccb::all_dtypes()) b->Arg(static_cast<int>(t.id));
  b->Unit(benchmark::kMillisecond);
}
BENCHMARK(BM_reduce)->Apply(all_dtypes);
BENCHMARK(BM_verify)->Apply(all_dtypes);
BENCHMARK(BM_fill)->Apply(all_dtypes);
}  // namespace

BENCHMARK_MAIN();
