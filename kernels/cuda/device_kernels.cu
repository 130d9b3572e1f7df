#include "kernels/cuda/device_kernels.hpp"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "kernels/element.hpp"

namespace ccb::cuda {
namespace {

constexpr int kThreads = 512;

// A range split into an unaligned head, 16-byte vectors and a tail, for
// pointers that share their alignment modulo 16 (else everything is head).
struct Split {
  std::size_t head = 0, vectors = 0, tail = 0;
};
template <class T>
Split split(std::size_t count, const void* a, const void* b = nullptr) {
  constexpr std::size_t V = 16 / sizeof(T);
  const auto pa = reinterpret_cast<uintptr_t>(a), pb = b ? reinterpret_cast<uintptr_t>(b) : pa;
  if (((pa ^ pb) & 15u) != 0 || (pa % sizeof(T)) != 0) return {count, 0, 0};
  const std::size_t head = std::min(count, ((16 - pa % 16) % 16) / sizeof(T));
  const std::size_t vectors = (count - head) / V;
  return {head, vectors, count - head - vectors * V};
}

int grid_for(std::size_t work) {
  static thread_local int device = -1, sms = 0;
  int d = 0;
  check(cudaGetDevice(&d), "cudaGetDevice");
  if (d != device) {
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d), "cudaDeviceGetAttribute");
    device = d;
  }
  const std::size_t wanted = (work + kThreads - 1) / kThreads;
  const std::size_t most = static_cast<std::size_t>(sms) * 4;
  return static_cast<int>(std::max<std::size_t>(1, std::min(wanted, most)));
}

// pattern_mix(first + base + j) for j < 16, from one 64-bit split per vector
// (as the host loops do: 32-bit lanes inside).
struct Mix {
  uint32_t lo, hi, sub;
  __device__ explicit Mix(uint64_t i)
      : lo(static_cast<uint32_t>(i)), hi(static_cast<uint32_t>(i >> 8)), sub(static_cast<uint32_t>(i & 255u)) {}
  __device__ uint32_t at(uint32_t j) const { return (lo + j) ^ (hi + ((sub + j) >> 8)); }
};

template <DType D, PatternKind K, bool Result>
__device__ inline element_t<D> expected(const Pattern& p, int rank, uint32_t h) {
  return from_exact_int<D>(Result ? pattern_result<K>(p, h) : pattern_input<K>(p, rank, h));
}

template <class T>
union Vec {
  uint4 raw;
  T e[16 / sizeof(T)];
};

template <DType D, PatternKind K, bool Result>
__global__ void fill_kernel(Pattern p, int rank, element_t<D>* out, Split s, uint64_t first) {
  using T = element_t<D>;
  constexpr uint32_t V = 16 / sizeof(T);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t start = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  auto* vec = reinterpret_cast<uint4*>(out + s.head);
  for (std::size_t v = start; v < s.vectors; v += stride) {
    const Mix m(first + s.head + v * V);
    Vec<T> x;
#pragma unroll
    for (uint32_t j = 0; j < V; ++j) x.e[j] = expected<D, K, Result>(p, rank, m.at(j));
    vec[v] = x.raw;
  }
  const std::size_t tail_start = s.head + s.vectors * V;
  for (std::size_t k = start; k < s.head + s.tail; k += stride) {
    const std::size_t idx = k < s.head ? k : tail_start + (k - s.head);
    out[idx] = expected<D, K, Result>(p, rank, pattern_mix(first + idx));
  }
}

__device__ inline void add_to_counter(uint64_t mine, unsigned long long* counter) {
  for (int offset = 16; offset > 0; offset /= 2) mine += __shfl_down_sync(0xFFFFFFFFu, mine, offset);
  if ((threadIdx.x & 31u) == 0 && mine != 0) atomicAdd(counter, static_cast<unsigned long long>(mine));
}

template <DType D, PatternKind K, bool Result>
__global__ void verify_kernel(Pattern p, int rank, const element_t<D>* in, Split s, uint64_t first,
                              unsigned long long* counter) {
  using T = element_t<D>;
  constexpr uint32_t V = 16 / sizeof(T);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t start = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const auto* vec = reinterpret_cast<const uint4*>(in + s.head);
  uint64_t wrong = 0;
  for (std::size_t v = start; v < s.vectors; v += stride) {
    const Mix m(first + s.head + v * V);
    Vec<T> x;
    x.raw = vec[v];
#pragma unroll
    for (uint32_t j = 0; j < V; ++j) wrong += x.e[j] != expected<D, K, Result>(p, rank, m.at(j));
  }
  const std::size_t tail_start = s.head + s.vectors * V;
  for (std::size_t k = start; k < s.head + s.tail; k += stride) {
    const std::size_t idx = k < s.head ? k : tail_start + (k - s.head);
    wrong += in[idx] != expected<D, K, Result>(p, rank, pattern_mix(first + idx));
  }
  add_to_counter(wrong, counter);
}

// Arithmetic type and conversions per dtype, as on the host.
template <DType D>
struct Compute {
  using type = element_t<D>;
  __device__ static type load(element_t<D> v) { return v; }
  __device__ static element_t<D> store(type v) { return v; }
};
template <>
struct Compute<DType::half> {
  using type = float;
  __device__ static float load(uint16_t v) { return half_to_float(v); }
  __device__ static uint16_t store(float v) { return float_to_half(v); }
};
template <>
struct Compute<DType::bfloat16> {
  using type = float;
  __device__ static float load(uint16_t v) { return bf16_to_float(v); }
  __device__ static uint16_t store(float v) { return float_to_bf16(v); }
};
template <class F>
struct Fp8Compute {
  using type = float;
  __device__ static float load(uint8_t v) { return fp8_to_float<F>(v); }
  __device__ static uint8_t store(float v) { return float_to_fp8<F>(v); }
};
template <>
struct Compute<DType::f8e4m3> : Fp8Compute<E4M3> {};
template <>
struct Compute<DType::f8e5m2> : Fp8Compute<E5M2> {};

template <ReduceOp Op, class T>
__device__ inline T combine(T a, T b) {
  if constexpr (Op == ReduceOp::sum) return static_cast<T>(a + b);
  else if constexpr (Op == ReduceOp::prod) return static_cast<T>(a * b);
  else if constexpr (Op == ReduceOp::min) return a < b ? a : b;
  else return a > b ? a : b;
}

template <DType D, ReduceOp Op>
__device__ inline element_t<D> reduce_one(element_t<D> a, element_t<D> b) {
  using C = Compute<D>;
  return C::store(combine<Op>(C::load(a), C::load(b)));
}

template <DType D, ReduceOp Op>
__global__ void reduce_kernel(const element_t<D>* in, element_t<D>* inout, Split s) {
  using T = element_t<D>;
  constexpr uint32_t V = 16 / sizeof(T);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t start = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const auto* a = reinterpret_cast<const uint4*>(in + s.head);
  auto* b = reinterpret_cast<uint4*>(inout + s.head);
  for (std::size_t v = start; v < s.vectors; v += stride) {
    Vec<T> x, y;
    x.raw = a[v];
    y.raw = b[v];
#pragma unroll
    for (uint32_t j = 0; j < V; ++j) y.e[j] = reduce_one<D, Op>(x.e[j], y.e[j]);
    b[v] = y.raw;
  }
  const std::size_t tail_start = s.head + s.vectors * V;
  for (std::size_t k = start; k < s.head + s.tail; k += stride) {
    const std::size_t idx = k < s.head ? k : tail_start + (k - s.head);
    inout[idx] = reduce_one<D, Op>(in[idx], inout[idx]);
  }
}

__global__ void copy_kernel(unsigned char* dst, const unsigned char* src, Split s) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t start = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const auto* a = reinterpret_cast<const uint4*>(src + s.head);
  auto* b = reinterpret_cast<uint4*>(dst + s.head);
  for (std::size_t v = start; v < s.vectors; v += stride) b[v] = a[v];
  const std::size_t tail_start = s.head + s.vectors * 16;
  for (std::size_t k = start; k < s.head + s.tail; k += stride) {
    const std::size_t idx = k < s.head ? k : tail_start + (k - s.head);
    dst[idx] = src[idx];
  }
}

__global__ void chase_kernel(void* const* chain, long hops, void** sink) {
  void* const* p = chain;
  for (long k = 0; k < hops; ++k) p = static_cast<void* const*>(*p);
  *sink = const_cast<void**>(p);
}

// Spins until *flag is set: nothing sets it, so the kernel never ends (the
// volatile read keeps the loop from being optimised away).
__global__ void spin_kernel(const volatile int* flag) {
  while (*flag == 0) {}
}

__global__ void chain_kernel(void** chain, std::size_t n, std::size_t stride) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += step)
    chain[i] = &chain[(i + stride) % n];
}

// One counter per device, allocated on first use and kept for the process.
unsigned long long* device_counter() {
  static unsigned long long* counters[64] = {};
  int d = 0;
  check(cudaGetDevice(&d), "cudaGetDevice");
  if (d < 0 || d >= 64) throw std::runtime_error("ccbench supports device ordinals below 64");
  if (!counters[d]) check(cudaMalloc(&counters[d], sizeof(unsigned long long)), "cudaMalloc(counter)");
  return counters[d];
}

// Calls launch(dtype constant, kind constant, split, grid) for the runtime
// dtype and pattern kind: one dispatch for the fill and verify kernels.
template <class Launch>
void for_pattern(DType d, PatternKind kind, std::size_t count, const void* buf, Launch&& launch) {
  visit_dtype(d, [&](auto dt) {
    const Split s = split<element_t<decltype(dt)::value>>(count, buf);
    const int grid = grid_for(s.vectors + s.head + s.tail);
    visit_kind(kind, [&](auto kt) { launch(dt, kt, s, grid); });
  });
}

template <bool Result>
void fill(DType d, const Pattern& p, int rank, void* buf, std::size_t count, uint64_t first, cudaStream_t stream) {
  if (count == 0) return;
  for_pattern(d, p.kind, count, buf, [&](auto dt, auto kt, const Split& s, int grid) {
    using T = element_t<decltype(dt)::value>;
    fill_kernel<decltype(dt)::value, decltype(kt)::value, Result>
        <<<grid, kThreads, 0, stream>>>(p, rank, static_cast<T*>(buf), s, first);
  });
  check(cudaGetLastError(), "fill kernel launch");
}

template <bool Result>
uint64_t count_wrong(DType d, const Pattern& p, int rank, const void* buf, std::size_t count, uint64_t first,
                     cudaStream_t stream) {
  if (count == 0) return 0;
  unsigned long long* counter = device_counter();
  check(cudaMemsetAsync(counter, 0, sizeof *counter, stream), "cudaMemsetAsync(counter)");
  for_pattern(d, p.kind, count, buf, [&](auto dt, auto kt, const Split& s, int grid) {
    using T = element_t<decltype(dt)::value>;
    verify_kernel<decltype(dt)::value, decltype(kt)::value, Result>
        <<<grid, kThreads, 0, stream>>>(p, rank, static_cast<const T*>(buf), s, first, counter);
  });
  check(cudaGetLastError(), "verify kernel launch");
  unsigned long long wrong = 0;
  check(cudaMemcpyAsync(&wrong, counter, sizeof wrong, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync(counter)");
  check(cudaStreamSynchronize(stream), "verify kernel");
  return wrong;
}

}  // namespace

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
}

void fill_input(DType d, const Pattern& p, int rank, void* buf, std::size_t count, uint64_t first,
                cudaStream_t stream) {
  fill<false>(d, p, rank, buf, count, first, stream);
}

void fill_result(DType d, const Pattern& p, void* buf, std::size_t count, uint64_t first, cudaStream_t stream) {
  fill<true>(d, p, 0, buf, count, first, stream);
}

uint64_t count_wrong_input(DType d, const Pattern& p, int rank, const void* buf, std::size_t count, uint64_t first,
                           cudaStream_t stream) {
  return count_wrong<false>(d, p, rank, buf, count, first, stream);
}

uint64_t count_wrong_result(DType d, const Pattern& p, const void* buf, std::size_t count, uint64_t first,
                            cudaStream_t stream) {
  return count_wrong<true>(d, p, 0, buf, count, first, stream);
}

void reduce_into(DType d, ReduceOp op, const void* in, void* inout, std::size_t count, cudaStream_t stream) {
  if (op == ReduceOp::avg) throw std::logic_error("cuda::reduce_into: avg is sum followed by a division");
  if (count == 0) return;
  visit_dtype(d, [&](auto dt) {
    constexpr DType D = decltype(dt)::value;
    using T = element_t<D>;
    const Split s = split<T>(count, in, inout);
    const int grid = grid_for(s.vectors + s.head + s.tail);
    const auto* a = static_cast<const T*>(in);
    auto* b = static_cast<T*>(inout);
    switch (op) {
      case ReduceOp::sum: reduce_kernel<D, ReduceOp::sum><<<grid, kThreads, 0, stream>>>(a, b, s); break;
      case ReduceOp::prod: reduce_kernel<D, ReduceOp::prod><<<grid, kThreads, 0, stream>>>(a, b, s); break;
      case ReduceOp::min: reduce_kernel<D, ReduceOp::min><<<grid, kThreads, 0, stream>>>(a, b, s); break;
      case ReduceOp::max: reduce_kernel<D, ReduceOp::max><<<grid, kThreads, 0, stream>>>(a, b, s); break;
      case ReduceOp::avg: break;
    }
  });
  check(cudaGetLastError(), "reduce kernel launch");
}

void sm_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream, int blocks) {
  if (bytes == 0) return;
  const Split s = split<unsigned char>(bytes, dst, src);
  const int grid = blocks > 0 ? blocks : grid_for(s.vectors + s.head + s.tail);
  copy_kernel<<<grid, kThreads, 0, stream>>>(static_cast<unsigned char*>(dst), static_cast<const unsigned char*>(src),
                                             s);
  check(cudaGetLastError(), "copy kernel launch");
}

void pointer_chase(void* const* chain, long hops, void** sink, cudaStream_t stream) {
  chase_kernel<<<1, 1, 0, stream>>>(chain, hops, sink);
  check(cudaGetLastError(), "pointer-chase kernel launch");
}

void never_ending_kernel(cudaStream_t stream) {
  static int* flag = nullptr;  // one zeroed int per process, never freed: the kernel reads it forever
  if (!flag) {
    check(cudaMalloc(&flag, sizeof(int)), "cudaMalloc");
    check(cudaMemset(flag, 0, sizeof(int)), "cudaMemset");
  }
  spin_kernel<<<1, 1, 0, stream>>>(flag);
  check(cudaGetLastError(), "spin kernel launch");
}

void build_chain(void** chain, std::size_t n, std::size_t stride, cudaStream_t stream) {
  chain_kernel<<<grid_for(n), kThreads, 0, stream>>>(chain, n, stride);
  check(cudaGetLastError(), "chain kernel launch");
}

}  // namespace ccb::cuda
