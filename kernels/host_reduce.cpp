#include "kernels/host_reduce.hpp"

#include "kernels/host_kernels.hpp"

namespace ccb {

void reduce_into(DType dtype, ReduceOp op, const void* in, void* inout, std::size_t count) {
  host_kernels().reduce_into(dtype, op, in, inout, count);
}

void divide_by_ranks(DType dtype, void* buf, std::size_t count, int nranks) {
  host_kernels().divide_by_ranks(dtype, buf, count, nranks);
}

}  // namespace ccb
