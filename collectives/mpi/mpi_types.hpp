// dtype -> MPI_Datatype and op -> MPI_Op, with user-defined ops over the host
// kernels for the 16-bit floats that MPI cannot reduce.
#pragma once
#include <mpi.h>

#include "kernels/dtype.hpp"

namespace ccb::mpi {

// Creates the derived datatypes and user ops; call after MPI_Init.
void init_types();
// Frees them; call before MPI_Finalize.
void free_types();

MPI_Datatype datatype(DType d);
// The MPI op for `op` on `d` (avg maps to sum; the backend divides afterwards).
MPI_Op reduce_op(DType d, ReduceOp op);

}  // namespace ccb::mpi
