// Host reduction kernels: inout[k] = in[k] (op) inout[k], for every dtype.
// The MPI backend uses them as user-defined MPI ops where MPI has no built-in
// reduction (half, bfloat16); fp16/bf16 are computed in float and rounded to
// nearest even, as NCCL does.
#pragma once
#include <cstddef>

#include "kernels/dtype.hpp"

namespace ccb {

// op must be sum, prod, min or max (avg is sum followed by divide_by_ranks).
void reduce_into(DType dtype, ReduceOp op, const void* in, void* inout, std::size_t count);

// buf[k] /= nranks (integer division for integer dtypes): the second half of avg.
void divide_by_ranks(DType dtype, void* buf, std::size_t count, int nranks);

}  // namespace ccb
