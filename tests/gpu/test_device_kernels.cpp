// Device kernels against the host kernels: the same bytes for every dtype and
// pattern, the same counts of wrong elements, the same reductions. Each test
// skips, saying why, when no GPU is usable; with CCBENCH_REQUIRE_GPU=1 (the GPU
// check) it fails instead, so a run that tested nothing cannot pass.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <optional>
#include <vector>

#include "kernels/cuda/device_kernels.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/gpu_info.hpp"
#include "kernels/host_reduce.hpp"
#include "kernels/pattern.hpp"

namespace ccb {
namespace {

bool gpu_required() {
  const char* v = std::getenv("CCBENCH_REQUIRE_GPU");
  return v && std::string(v) == "1";
}

#define REQUIRE_GPU()                                                                        \
  do {                                                                                       \
    const GpuInfo g = query_gpus();                                                          \
    if (!g.error.empty() || g.devices == 0) {                                                \
      const std::string why = "no usable GPU: " + (g.error.empty() ? "0 devices" : g.error); \
      if (gpu_required()) FAIL() << why << " (CCBENCH_REQUIRE_GPU=1)";                       \
      GTEST_SKIP() << why;                                                                   \
    }                                                                                        \
  } while (0)

// A device buffer with a host mirror.
struct DeviceBuffer {
  void* ptr = nullptr;
  std::size_t bytes;
  explicit DeviceBuffer(std::size_t b) : bytes(b) { cuda::check(cudaMalloc(&ptr, b), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(ptr); }
  std::vector<unsigned char> to_host() const {
    std::vector<unsigned char> h(bytes);
    cuda::check(cudaMemcpy(h.data(), ptr, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    return h;
  }
  void from_host(const std::vector<unsigned char>& h) {
    cuda::check(cudaMemcpy(ptr, h.data(), h.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
};

std::vector<std::optional<ReduceOp>> patterns() {
  std::vector<std::optional<ReduceOp>> out{std::nullopt};
  for (const auto& o : all_ops()) out.emplace_back(o.id);
  return out;
}

// Counts and offsets that exercise the unaligned head, the vectors and the tail.
constexpr std::size_t kCount = 100003;
constexpr std::size_t kOffsetElements = 3;
constexpr uint64_t kFirst = (uint64_t{1} << 33) + 250;  // index mix across the 2^32 boundary

}  // namespace

TEST(DeviceKernels, FillMatchesHostForEveryDtypeAndPattern) {
  REQUIRE_GPU();
  for (const auto& t : all_dtypes())
    for (auto op : patterns()) {
      const Pattern p = make_pattern(t.id, op, 5);
      DeviceBuffer d((kCount + kOffsetElements) * t.size);
      auto* at = static_cast<unsigned char*>(d.ptr) + kOffsetElements * t.size;
      cuda::fill_input(t.id, p, 3, at, kCount, kFirst, nullptr);
      cuda::check(cudaDeviceSynchronize(), "fill");
      std::vector<unsigned char> host(kCount * t.size);
      fill_input(t.id, p, 3, host.data(), kCount, kFirst);
      const auto dev = d.to_host();
      ASSERT_EQ(std::memcmp(dev.data() + kOffsetElements * t.size, host.data(), host.size()), 0)
          << t.name << " " << (op ? std::string(name(*op)) : "copy");
    }
}

TEST(DeviceKernels, VerifyCountsExactlyTheCorruptedElements) {
  REQUIRE_GPU();
  for (const auto& t : all_dtypes())
    for (auto op : patterns()) {
      const Pattern p = make_pattern(t.id, op, 4);
      DeviceBuffer d(kCount * t.size);
      cuda::fill_input(t.id, p, 2, d.ptr, kCount, kFirst, nullptr);
      EXPECT_EQ(cuda::count_wrong_input(t.id, p, 2, d.ptr, kCount, kFirst, nullptr), 0u) << t.name;
      EXPECT_GT(cuda::count_wrong_input(t.id, p, 1, d.ptr, kCount, kFirst, nullptr), 0u)
          << "another rank's input must not pass as this rank's: " << t.name;
      auto h = d.to_host();
      for (std::size_t k : {std::size_t{0}, std::size_t{17}, kCount / 2, kCount - 1}) h[k * t.size] ^= 0x5A;
      d.from_host(h);
      EXPECT_EQ(cuda::count_wrong_input(t.id, p, 2, d.ptr, kCount, kFirst, nullptr), 4u) << t.name;
    }
}

TEST(DeviceKernels, ResultCheckAcceptsTheHostReduction) {
  REQUIRE_GPU();
  const int n = 3;
  for (const auto& t : all_dtypes())
    for (const auto& o : all_ops()) {
      if (o.id == ReduceOp::avg) continue;  // a sum plus a division, checked by the collective tests
      const Pattern p = make_pattern(t.id, o.id, n);
      std::vector<unsigned char> acc(kCount * t.size), in(kCount * t.size);
      fill_input(t.id, p, 0, acc.data(), kCount, kFirst);
      for (int r = 1; r < n; ++r) {
        fill_input(t.id, p, r, in.data(), kCount, kFirst);
        reduce_into(t.id, o.id, in.data(), acc.data(), kCount);
      }
      DeviceBuffer d(acc.size());
      d.from_host(acc);
      EXPECT_EQ(cuda::count_wrong_result(t.id, p, d.ptr, kCount, kFirst, nullptr), 0u) << t.name << " " << o.name;
      cuda::fill_result(t.id, p, d.ptr, kCount, kFirst, nullptr);  // the closed form gives the same bytes
      cuda::check(cudaDeviceSynchronize(), "fill_result");
      EXPECT_EQ(d.to_host(), acc) << t.name << " " << o.name;
    }
}

TEST(DeviceKernels, ReduceMatchesHostBitForBit) {
  REQUIRE_GPU();
  for (const auto& t : all_dtypes())
    for (const auto& o : all_ops()) {
      if (o.id == ReduceOp::avg) continue;
      const Pattern p = make_pattern(t.id, o.id, 2);
      std::vector<unsigned char> a(kCount * t.size), b(kCount * t.size);
      fill_input(t.id, p, 0, a.data(), kCount, 0);
      fill_input(t.id, p, 1, b.data(), kCount, 0);
      DeviceBuffer da(a.size()), db(b.size());
      da.from_host(a);
      db.from_host(b);
      cuda::reduce_into(t.id, o.id, da.ptr, db.ptr, kCount, nullptr);
      cuda::check(cudaDeviceSynchronize(), "reduce");
      reduce_into(t.id, o.id, a.data(), b.data(), kCount);
      EXPECT_EQ(db.to_host(), b) << t.name << " " << o.name;
    }
}

TEST(DeviceKernels, SmCopyCopiesUnalignedRanges) {
  REQUIRE_GPU();
  std::vector<unsigned char> src(1 << 20);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7 + 1);
  DeviceBuffer a(src.size()), b(src.size());
  a.from_host(src);
  cuda::check(cudaMemset(b.ptr, 0, b.bytes), "cudaMemset");
  for (std::size_t off : {0, 1, 5}) {
    const std::size_t len = src.size() - 64 - off;
    cuda::sm_copy(static_cast<char*>(b.ptr) + off, static_cast<char*>(a.ptr) + off, len, nullptr);
    cuda::check(cudaDeviceSynchronize(), "copy");
    const auto out = b.to_host();
    EXPECT_EQ(std::memcmp(out.data() + off, src.data() + off, len), 0) << off;
  }
}

TEST(DeviceKernels, DeviceMemoryThroughTheInterface) {
  REQUIRE_GPU();
  DeviceMemory mem;
  const Pattern p = make_pattern(DType::bfloat16, ReduceOp::sum, 4);
  void* buf = mem.allocate(kCount * 2, 0);
  mem.fill_sentinel(DType::bfloat16, 4, buf, kCount);
  EXPECT_GT(mem.count_wrong_result(DType::bfloat16, p, buf, kCount, 0), 0u);  // a sentinel is never a result
  mem.fill_input(DType::bfloat16, p, 1, buf, kCount, 0);
  EXPECT_EQ(mem.count_wrong_input(DType::bfloat16, p, 1, buf, kCount, 0), 0u);
  mem.corrupt(buf, 2, 99);
  EXPECT_EQ(mem.count_wrong_input(DType::bfloat16, p, 1, buf, kCount, 0), 1u);
  mem.release(buf);
}

}  // namespace ccb
