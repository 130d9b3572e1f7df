#include "collectives/mpi/mpi_types.hpp"

#include <array>

#include "kernels/host_reduce.hpp"

namespace ccb::mpi {
namespace {

MPI_Datatype g_half = MPI_DATATYPE_NULL;
MPI_Datatype g_bf16 = MPI_DATATYPE_NULL;
std::array<MPI_Op, 4> g_ops{MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};

template <ReduceOp Op>
void user_reduce(void* in, void* inout, int* len, MPI_Datatype* type) {
  const DType d = *type == g_bf16 ? DType::bfloat16 : DType::half;
  reduce_into(d, Op, in, inout, static_cast<std::size_t>(*len));
}

}  // namespace

void init_types() {
  MPI_Type_dup(MPI_UINT16_T, &g_half);
  MPI_Type_dup(MPI_UINT16_T, &g_bf16);
  MPI_Type_commit(&g_half);
  MPI_Type_commit(&g_bf16);
  MPI_Op_create(&user_reduce<ReduceOp::sum>, 1, &g_ops[0]);
  MPI_Op_create(&user_reduce<ReduceOp::prod>, 1, &g_ops[1]);
  MPI_Op_create(&user_reduce<ReduceOp::max>, 1, &g_ops[2]);
  MPI_Op_create(&user_reduce<ReduceOp::min>, 1, &g_ops[3]);
}

void free_types() {
  for (auto& op : g_ops)
    if (op != MPI_OP_NULL) MPI_Op_free(&op);
  if (g_half != MPI_DATATYPE_NULL) MPI_Type_free(&g_half);
  if (g_bf16 != MPI_DATATYPE_NULL) MPI_Type_free(&g_bf16);
}

MPI_Datatype datatype(DType d) {
  switch (d) {
    case DType::int8: return MPI_INT8_T;
    case DType::uint8: return MPI_UINT8_T;
    case DType::int32: return MPI_INT32_T;
    case DType::uint32: return MPI_UINT32_T;
    case DType::int64: return MPI_INT64_T;
    case DType::uint64: return MPI_UINT64_T;
    case DType::half: return g_half;
    case DType::bfloat16: return g_bf16;
    case DType::float32: return MPI_FLOAT;
    case DType::float64: return MPI_DOUBLE;
  }
  return MPI_BYTE;
}

MPI_Op reduce_op(DType d, ReduceOp op) {
  const bool user = d == DType::half || d == DType::bfloat16;
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg: return user ? g_ops[0] : MPI_SUM;
    case ReduceOp::prod: return user ? g_ops[1] : MPI_PROD;
    case ReduceOp::max: return user ? g_ops[2] : MPI_MAX;
    case ReduceOp::min: return user ? g_ops[3] : MPI_MIN;
  }
  return MPI_SUM;
}

}  // namespace ccb::mpi
