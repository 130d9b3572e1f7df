#include "collectives/collective.hpp"

#include <array>

namespace ccb {
namespace {
using enum CollectiveId;
using enum Extent;
using enum Offset;
using enum Source;
using enum Holders;
using enum BusFactor;

// clang-format off
constexpr std::array<Collective, 15> kCollectives{{
  // id              name              summary                                            red    root   split  p2p    factor                  send   recv   ip-send     ip-recv     source         src-off     holders         root-in-send
  {all_reduce,     "all_reduce",     "every rank gets the reduction of all inputs",     true,  false, false, false, two_n_minus_1_over_n, count, count, zero,       zero,       reduction,     zero,       all_ranks,            false},
  {all_gather,     "all_gather",     "every rank gets every rank's chunk",              false, false, true,  false, n_minus_1_over_n,     chunk, count, rank_chunk, zero,       each_rank,     zero,       all_ranks,            false},
  {reduce_scatter, "reduce_scatter", "rank r gets chunk r of the reduction",            true,  false, true,  false, n_minus_1_over_n,     count, chunk, zero,       zero,       reduction,     rank_chunk, all_ranks,            false},
  {alltoall,       "alltoall",       "rank r's chunk j goes to rank j's chunk r",       false, false, true,  false, n_minus_1_over_n,     count, count, zero,       zero,       each_rank,     rank_chunk, all_ranks,            false},
  {alltoallv,      "alltoallv",      "rank r sends its traffic plan's counts to each rank (--traffic)", false, false, true, false, n_minus_1_over_n, count, count, zero, zero,   traffic,       zero,       all_ranks,            false},
  {broadcast,      "broadcast",      "every rank gets the root's buffer",               false, true,  false, false, one,                  count, count, zero,       zero,       root,          zero,       all_ranks,            true},
  {reduce,         "reduce",         "the root gets the reduction of all inputs",       true,  true,  false, false, one,                  count, count, zero,       zero,       reduction,     zero,       root_only,           false},
  {gather,         "gather",         "the root gets every rank's chunk",                false, true,  true,  false, n_minus_1_over_n,     chunk, count, rank_chunk, zero,       each_rank,     zero,       root_only,           false},
  {scatter,        "scatter",        "rank r gets chunk r of the root's buffer",        false, true,  true,  false, n_minus_1_over_n,     count, chunk, zero,       rank_chunk, root,          rank_chunk, all_ranks,            false},
  {sendrecv,       "sendrecv",       "ring shift: rank r sends to r+1, receives from r-1", false, false, false, false, one,                count, count, zero,       zero,       previous_rank, zero,       all_ranks,            false},
  {pingpong,       "pingpong",       "pairs (r, r+n/2) bounce one message; time = half a round trip", false, false, false, true, one,  count, count, zero,       zero,       peer,          zero,       pair_members,   false},
  {uni_bw,         "uni_bw",         "pairs (r, r+n/2): a window of messages r -> r+n/2", false, false, false, true, one,                count, count, zero,       zero,       peer,          zero,       pair_receivers, false},
  {bi_bw,          "bi_bw",          "pairs (r, r+n/2): windows of messages both ways", false, false, false, true,  two,                  count, count, zero,       zero,       peer,          zero,       pair_members,   false},
  {moe_dispatch,   "moe_dispatch",   "MoE dispatch: tokens to their experts' ranks (alltoallv; --traffic moe:...)", false, false, true, false, n_minus_1_over_n, count, count, zero, zero, traffic, zero, all_ranks, false},
  {moe_combine,    "moe_combine",    "MoE combine: the experts' outputs back (alltoallv; --traffic moe:...)", false, false, true, false, n_minus_1_over_n, count, count, zero, zero, traffic, zero, all_ranks, false},
}};
// clang-format on
}  // namespace

std::span<const Collective> all_collectives() { return kCollectives; }

const Collective* find_collective(std::string_view name) {
  for (const auto& c : kCollectives)
    if (c.name == name) return &c;
  return nullptr;
}

const Collective& collective(CollectiveId id) { return kCollectives[static_cast<std::size_t>(id)]; }

double bus_factor(const Collective& c, int nranks) {
  const double n = nranks;
  switch (c.bus_factor) {
    case two_n_minus_1_over_n: return 2.0 * (n - 1) / n;
    case n_minus_1_over_n: return (n - 1) / n;
    case one: return 1.0;
    case two: return 2.0;
  }
  return 1.0;
}

std::size_t elements(Extent e, std::size_t count, std::size_t chunk) { return e == Extent::count ? count : chunk; }

std::size_t offset_elements(Offset o, int rank, std::size_t chunk) {
  return o == Offset::zero ? 0 : static_cast<std::size_t>(rank) * chunk;
}

std::optional<int> pair_partner(int rank, int nranks) {
  const int half = nranks / 2;
  if (rank < half) return rank + half;
  if (rank < 2 * half) return rank - half;
  return std::nullopt;
}

bool has_in_place(const Collective& c) { return !c.point_to_point && c.source != Source::traffic; }

bool holds_result(const Collective& c, int rank, int nranks, int root) {
  switch (c.holders) {
    case Holders::all_ranks: return true;
    case Holders::root_only: return rank == root;
    case Holders::pair_members: return pair_partner(rank, nranks).has_value();
    case Holders::pair_receivers: return rank >= nranks / 2 && pair_partner(rank, nranks).has_value();
  }
  return false;
}

}  // namespace ccb
