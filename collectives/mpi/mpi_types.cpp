#include "collectives/mpi/mpi_types.hpp"

#include <array>

#include "kernels/host_reduce.hpp"

namespace ccb::mpi {
namespace {

// The dtypes MPI has no type for: a duplicate of an unsigned integer type of
// the same size each, reduced by user-defined ops over the host kernels.
struct UserType {
  DType dtype;
  MPI_Datatype base;
  MPI_Datatype type = MPI_DATATYPE_NULL;
};
std::array<UserType, 4> g_types{{{DType::half, MPI_UINT16_T},
                                 {DType::bfloat16, MPI_UINT16_T},
                                 {DType::f8e4m3, MPI_UINT8_T},
                                 {DType::f8e5m2, MPI_UINT8_T}}};
std::array<MPI_Op, 4> g_ops{MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};

const UserType* user_type(DType d) {
  for (const auto& t : g_types)
    if (t.dtype == d) return &t;
  return nullptr;
}

template <ReduceOp Op>
void user_reduce(void* in, void* inout, int* len, MPI_Datatype* type) {
  for (const auto& t : g_types)
    if (t.type == *type) reduce_into(t.dtype, Op, in, inout, static_cast<std::size_t>(*len));
}

}  // namespace

void init_types() {
  for (auto& t : g_types) {
    MPI_Type_dup(t.base, &t.type);
    MPI_Type_commit(&t.type);
  }
  MPI_Op_create(&user_reduce<ReduceOp::sum>, 1, &g_ops[0]);
  MPI_Op_create(&user_reduce<ReduceOp::prod>, 1, &g_ops[1]);
  MPI_Op_create(&user_reduce<ReduceOp::max>, 1, &g_ops[2]);
  MPI_Op_create(&user_reduce<ReduceOp::min>, 1, &g_ops[3]);
}

void free_types() {
  for (auto& op : g_ops)
    if (op != MPI_OP_NULL) MPI_Op_free(&op);
  for (auto& t : g_types)
    if (t.type != MPI_DATATYPE_NULL) MPI_Type_free(&t.type);
}

MPI_Datatype datatype(DType d) {
  if (const UserType* t = user_type(d)) return t->type;
  switch (d) {
    case DType::int8: return MPI_INT8_T;
    case DType::uint8: return MPI_UINT8_T;
    case DType::int32: return MPI_INT32_T;
    case DType::uint32: return MPI_UINT32_T;
    case DType::int64: return MPI_INT64_T;
    case DType::uint64: return MPI_UINT64_T;
    case DType::float32: return MPI_FLOAT;
    case DType::float64: return MPI_DOUBLE;
    default: break;
  }
  return MPI_BYTE;
}

MPI_Op reduce_op(DType d, ReduceOp op) {
  const bool user = user_type(d) != nullptr;
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
