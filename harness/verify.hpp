// Filling a point's buffers and counting wrong elements, from the collective's
// row of data (no per-collective code).
#pragma once
#include <cstdint>

#include "collectives/backend.hpp"

namespace ccb {

// The pattern every rank's input follows for this operation.
Pattern input_pattern(const OpArgs& a, int nranks);

// Writes this rank's input into a.send and a sentinel into every element of
// the receive side, so that a result nobody wrote is caught.
void prepare_buffers(Memory& mem, const OpArgs& a, int rank, int nranks, void* recv_base, std::size_t recv_base_count);

// Wrong elements in the result this rank holds (0 when it holds none).
// root_result_in_send: Backend::root_result_in_send(collective) - where an
// out-of-place root's result lies (MPI_Bcast: its send buffer; NCCL copies
// it into the receive buffer, which is then what is checked).
uint64_t count_wrong(Memory& mem, const OpArgs& a, int rank, int nranks, bool root_result_in_send);

// Where this rank's result lives and how long it is (elements); nullptr when none.
struct ResultRegion {
  void* data = nullptr;
  std::size_t count = 0;
};
ResultRegion result_region(const OpArgs& a, int rank, int nranks, bool root_result_in_send);

}  // namespace ccb
