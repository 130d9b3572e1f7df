// The host loops (fill, verify, reduce), compiled once per instruction-set
// level and chosen at run time: the baseline x86-64 build runs everywhere, the
// x86-64-v3 build (AVX2, F16C, FMA) where the CPU has it. CCBENCH_HOST_ISA=
// baseline forces the portable loops. Results are bit-identical either way.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kernels/dtype.hpp"
#include "kernels/pattern_math.hpp"

namespace ccb {

struct HostKernels {
  std::string_view isa;
  void (*fill_input)(DType, const Pattern&, int rank, void* buf, std::size_t count, uint64_t first);
  std::size_t (*count_wrong_input)(DType, const Pattern&, int rank, const void* buf, std::size_t count, uint64_t first);
  std::size_t (*count_wrong_result)(DType, const Pattern&, const void* buf, std::size_t count, uint64_t first);
  void (*reduce_into)(DType, ReduceOp, const void* in, void* inout, std::size_t count);
  void (*divide_by_ranks)(DType, void* buf, std::size_t count, int nranks);
};

const HostKernels& host_kernels_baseline();
// nullptr when this build or this CPU has no x86-64-v3 loops.
const HostKernels* host_kernels_x86_64_v3();
// The loops in use: the best this CPU runs, unless CCBENCH_HOST_ISA=baseline.
const HostKernels& host_kernels();

}  // namespace ccb
