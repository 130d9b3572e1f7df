// The device loops: fill (inputs and expected results), verify, reduce and copy, over the same pattern
// definitions as the host loops (kernels/pattern_math.hpp). Grid-stride, 16
// bytes per thread and step where the pointers allow it. Each call runs on
// the given stream of the current device; verification counts wrong elements
// on the device and copies back one number.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "kernels/dtype.hpp"
#include "kernels/pattern_math.hpp"

namespace ccb::cuda {

void fill_input(DType d, const Pattern& p, int rank, void* buf, std::size_t count, uint64_t first, cudaStream_t stream);
// The expected result of the reduction (pattern p over all ranks), for tests
// and for checking a result buffer by comparison.
void fill_result(DType d, const Pattern& p, void* buf, std::size_t count, uint64_t first, cudaStream_t stream);
// Blocks until the count is known.
uint64_t count_wrong_input(DType d, const Pattern& p, int rank, const void* buf, std::size_t count, uint64_t first,
                           cudaStream_t stream);
uint64_t count_wrong_result(DType d, const Pattern& p, const void* buf, std::size_t count, uint64_t first,
                            cudaStream_t stream);
// inout[i] = op(in[i], inout[i]); avg is not an elementwise op (sum, then divide).
void reduce_into(DType d, ReduceOp op, const void* in, void* inout, std::size_t count, cudaStream_t stream);
// A copy by the SMs (not the copy engines), `blocks` x 512 threads; 0 = enough to fill the device.
void sm_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream, int blocks = 0);

// Latency: one thread follows a chain of `hops` dependent 8-byte loads
// through `chain` (host-mapped or peer memory is fine), where each element
// holds the address of the next. `sink` (device memory) receives the last
// address so the loads cannot be skipped.
void pointer_chase(void* const* chain, long hops, void** sink, cudaStream_t stream);
// Builds that chain on the device: element i points at element (i + stride) mod n.
void build_chain(void** chain, std::size_t n, std::size_t stride, cudaStream_t stream);

// Test-only (CCBENCH_FAULT=gpu_hang): a one-thread kernel that never ends,
// so that everything after it on `stream` waits forever (a GPU-side hang).
// One flag per process on the device current at the first call.
void never_ending_kernel(cudaStream_t stream);

// Throws std::runtime_error naming `what` and the CUDA error.
void check(cudaError_t err, const char* what);

}  // namespace ccb::cuda
