#include "harness/verify.hpp"

#include <optional>

#include "kernels/pattern.hpp"

namespace ccb {

Pattern input_pattern(const OpArgs& a, int nranks) {
  return make_pattern(a.dtype, a.coll->reduces ? std::optional<ReduceOp>(a.op) : std::nullopt, nranks);
}

void prepare_buffers(Memory& mem, const OpArgs& a, int rank, int nranks, void* recv_base, std::size_t recv_base_count) {
  mem.fill_sentinel(a.dtype, nranks, recv_base, recv_base_count);
  const std::size_t send_count = send_elements(a);
  mem.fill_input(a.dtype, input_pattern(a, nranks), rank, const_cast<void*>(a.send), send_count, 0);
}

ResultRegion result_region(const OpArgs& a, int rank, int nranks, bool root_result_in_send) {
  const Collective& c = *a.coll;
  if (!holds_result(c, rank, nranks, a.root)) return {};
  void* data = a.recv;
  if (!a.in_place && root_result_in_send && rank == a.root) data = const_cast<void*>(a.send);
  return {data, recv_elements(a)};
}

uint64_t count_wrong(Memory& mem, const OpArgs& a, int rank, int nranks, bool root_result_in_send) {
  const Collective& c = *a.coll;
  const ResultRegion region = result_region(a, rank, nranks, root_result_in_send);
  if (!region.data) return 0;
  const Pattern p = input_pattern(a, nranks);
  const uint64_t first = offset_elements(c.source_offset, rank, a.chunk);
  const std::size_t elem = info(a.dtype).size;
  auto* base = static_cast<const unsigned char*>(region.data);
  switch (c.source) {
    case Source::reduction: return mem.count_wrong_result(a.dtype, p, region.data, region.count, first);
    case Source::each_rank: {
      uint64_t wrong = 0;
      for (int j = 0; j < nranks; ++j)
        wrong +=
            mem.count_wrong_input(a.dtype, p, j, base + static_cast<std::size_t>(j) * a.chunk * elem, a.chunk, first);
      return wrong;
    }
    case Source::root: return mem.count_wrong_input(a.dtype, p, a.root, region.data, region.count, first);
    case Source::previous_rank:
      return mem.count_wrong_input(a.dtype, p, (rank + nranks - 1) % nranks, region.data, region.count, first);
    case Source::peer:
      return mem.count_wrong_input(a.dtype, p, *pair_partner(rank, nranks), region.data, region.count, first);
    case Source::traffic: {  // from rank j: its elements for this rank, where its send buffer holds them
      const TrafficPlan& t = *a.traffic;
      uint64_t wrong = 0, at = 0;
      for (int j = 0; j < nranks; ++j) {
        const std::uint64_t k = t.at(j, rank);
        if (k > 0) wrong += mem.count_wrong_input(a.dtype, p, j, base + at * elem, k, t.send_offset(j, rank));
        at += k;
      }
      return wrong;
    }
  }
  return 0;
}

}  // namespace ccb
