// What each collective is, as one row of data: buffer extents, in-place
// layout, where the result lives and where it comes from, bus-bandwidth
// factor. Backends map the id to a call; the harness reads everything else.
#pragma once
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace ccb {

// Messages in flight per iteration of uni_bw / bi_bw (--window), by default.
inline constexpr int kDefaultWindow = 64;

enum class CollectiveId {
  all_reduce,
  all_gather,
  reduce_scatter,
  alltoall,
  alltoallv,
  broadcast,
  reduce,
  gather,
  scatter,
  sendrecv,
  pingpong,
  uni_bw,
  bi_bw,
  moe_dispatch,  // alltoallv under a MoE traffic model (--traffic moe:...), its dispatch
  moe_combine,   // ... and its combine (the transpose); ccbench moe runs both in order
};

// Length of a per-rank buffer, in elements: the whole `count` or count / nranks.
enum class Extent { count, chunk };
// Element offset of a region inside a buffer: 0 or rank * chunk.
enum class Offset { zero, rank_chunk };
// Where the result's elements come from.
enum class Source {
  reduction,      // reduce over all ranks of the inputs at the same index (+ source_offset)
  each_rank,      // chunk j comes from rank j's input (at source_offset of the receiver)
  root,           // from the root's input (at source_offset of the receiver)
  previous_rank,  // from rank (r - 1) mod n
  peer,           // from the paired rank (point-to-point)
  traffic,        // alltoallv: from each rank what its traffic plan sends here (collectives/traffic.hpp)
};
// Which ranks hold a result.
enum class Holders { all_ranks, root_only, pair_members, pair_receivers };
// busbw = algbw * factor (nccl-tests' definitions).
enum class BusFactor { two_n_minus_1_over_n, n_minus_1_over_n, one, two };

struct Collective {
  CollectiveId id;
  std::string_view name;
  std::string_view summary;
  bool reduces;         // takes -o op
  bool rooted;          // takes -r root
  bool split;           // count = nranks * chunk, the size column counts all chunks
  bool point_to_point;  // rank pairs (r, r + n/2); no in-place variant
  BusFactor bus_factor;
  Extent send_extent;
  Extent recv_extent;
  Offset in_place_send;  // where the input sits inside the single in-place buffer
  Offset in_place_recv;  // where the result sits inside it
  Source source;
  Offset source_offset;  // offset into the source rank's input, per receiving rank
  Holders holders;
  bool root_result_in_send;  // out-of-place at root, the result is the (unchanged) send buffer
};

std::span<const Collective> all_collectives();
const Collective* find_collective(std::string_view name);
const Collective& collective(CollectiveId id);

double bus_factor(const Collective& c, int nranks);
std::size_t elements(Extent e, std::size_t count, std::size_t chunk);
std::size_t offset_elements(Offset o, int rank, std::size_t chunk);

// Point-to-point pairing: rank r < n/2 pairs with r + n/2; with an odd rank
// count the last rank has no partner. Returns the partner or nullopt.
std::optional<int> pair_partner(int rank, int nranks);

// Whether the collective has an in-place form here (point-to-point has none;
// alltoallv's counts differ per direction, and nccl-tests does not check it).
bool has_in_place(const Collective& c);

// Does `rank` hold a result for this collective (root: the -r root)?
bool holds_result(const Collective& c, int rank, int nranks, int root);

}  // namespace ccb
