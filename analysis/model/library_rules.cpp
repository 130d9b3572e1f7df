#include "analysis/model/library_rules.hpp"

#include <fmt/format.h>

#include <array>
#include <span>
#include <limits>

namespace ccb {
namespace {

// Open MPI coll/tuned's all_reduce algorithms (coll_tuned_allreduce_algorithm)
// and the family whose steps describe each on the critical path:
// basic_linear reduces to rank 0 and broadcasts one by one; nonoverlapping is
// a reduce then a broadcast (trees); recursive_doubling and rabenseifner fold
// a non-power-of-two count into the largest power of two first (family_steps).
struct OmpiAlgorithm {
  int id;
  std::string_view name;
  ModelFamily family;
};
constexpr OmpiAlgorithm kOmpiAllreduce[] = {
    {1, "basic_linear", ModelFamily::linear},
    {2, "nonoverlapping", ModelFamily::tree},
    {3, "recursive_doubling", ModelFamily::recursive_doubling},
    {4, "ring", ModelFamily::ring},
    {5, "segmented_ring", ModelFamily::ring},
    {6, "rabenseifner", ModelFamily::rabenseifner},
};
// coll_tuned_allgather_algorithm: ceil(log2 n) exchanges moving (n-1)/n of
// the result for bruck, recursive_doubling (bruck's at a non-power-of-two
// count) and two_proc (its one exchange at 2 ranks); neighbor exchange n/2
// (ring's n-1 at an odd count); linear gathers to rank 0 then broadcasts.
constexpr OmpiAlgorithm kOmpiAllgather[] = {
    {1, "linear", ModelFamily::linear},
    {2, "bruck", ModelFamily::halving_doubling},
    {3, "recursive_doubling", ModelFamily::halving_doubling},
    {4, "ring", ModelFamily::ring},
    {5, "neighbor", ModelFamily::neighbor_exchange},
    {6, "two_proc", ModelFamily::halving_doubling},
};
// coll_tuned_reduce_scatter_block_algorithm: basic_linear is a reduce of the
// whole buffer to rank 0 then a scatter (a tree of the whole buffer, as
// all_reduce's nonoverlapping); recursive_doubling exchanges the whole
// buffer log2 n times; recursive_halving and butterfly halve it each step.
constexpr OmpiAlgorithm kOmpiReduceScatterBlock[] = {
    {1, "basic_linear", ModelFamily::tree},
    {2, "recursive_doubling", ModelFamily::tree},
    {3, "recursive_halving", ModelFamily::halving_doubling},
    {4, "butterfly", ModelFamily::halving_doubling},
};

// ompi_coll_tuned_<collective>_intra_dec_fixed, commutative ops, Open MPI
// 4.1.x: for communicators below `ranks_below`, the first step whose
// `bytes_below` exceeds the operation's bytes chooses. The bytes are
// all_reduce's whole buffer (total_dsize = count x type size); all_gather's
// and reduce_scatter's are one rank's block (scount, rcount x type size:
// the size column / ranks).
constexpr std::uint64_t kAny = std::numeric_limits<std::uint64_t>::max();
struct SizeStep {
  std::uint64_t bytes_below;
  int algorithm;
};
struct RanksRow {
  int ranks_below;
  std::array<SizeStep, 9> steps;  // ends at the first kAny
};
constexpr int kAnyRanks = std::numeric_limits<int>::max();
// clang-format off
constexpr RanksRow kOmpi41Allreduce[] = {
    {4,         {{{8, 4}, {4096, 3}, {8192, 4}, {16384, 3}, {65536, 4}, {262144, 5}, {kAny, 6}}}},
    {8,         {{{16, 4}, {8192, 3}, {kAny, 6}}}},
    {16,        {{{8192, 3}, {kAny, 6}}}},
    {32,        {{{64, 5}, {4096, 3}, {kAny, 6}}}},
    {64,        {{{128, 5}, {kAny, 6}}}},
    {128,       {{{262144, 3}, {kAny, 6}}}},
    {256,       {{{131072, 2}, {262144, 3}, {kAny, 6}}}},
    {512,       {{{4096, 2}, {kAny, 6}}}},
    {2048,      {{{2048, 2}, {16384, 3}, {kAny, 6}}}},
    {4096,      {{{2048, 2}, {4096, 5}, {16384, 3}, {kAny, 6}}}},
    {kAnyRanks, {{{2048, 2}, {16384, 5}, {32768, 3}, {kAny, 6}}}},
};
// ompi_coll_tuned_allgather_intra_dec_fixed (MPI_Allgather).
constexpr RanksRow kOmpi41Allgather[] = {
    {2,         {{{kAny, 3}}}},
    {3,         {{{kAny, 6}}}},
    {32,        {{{kAny, 3}}}},
    {64,        {{{1024, 3}, {65536, 5}, {kAny, 4}}}},
    {128,       {{{512, 3}, {65536, 5}, {kAny, 4}}}},
    {256,       {{{512, 3}, {131072, 5}, {524288, 4}, {1048576, 5}, {kAny, 4}}}},
    {512,       {{{32, 3}, {128, 2}, {1024, 3}, {131072, 5}, {524288, 4}, {1048576, 5}, {kAny, 4}}}},
    {1024,      {{{64, 3}, {256, 2}, {2048, 3}, {kAny, 5}}}},
    {2048,      {{{4, 3}, {8, 2}, {16, 3}, {32, 2}, {256, 3}, {512, 2}, {4096, 3}, {kAny, 5}}}},
    {4096,      {{{32, 2}, {128, 3}, {512, 2}, {4096, 3}, {kAny, 5}}}},
    {kAnyRanks, {{{2, 3}, {8, 2}, {16, 3}, {512, 2}, {4096, 3}, {kAny, 5}}}},
};
// ompi_coll_tuned_reduce_scatter_block_intra_dec_fixed (MPI_Reduce_scatter_block).
constexpr RanksRow kOmpi41ReduceScatterBlock[] = {
    {4,         {{{4, 2}, {8, 4}, {16, 3}, {128, 4}, {256, 3}, {4096, 4}, {8192, 3}, {131072, 4}, {kAny, 1}}}},
    {8,         {{{8, 3}, {32, 2}, {256, 4}, {8192, 3}, {16384, 4}, {1048576, 3}, {kAny, 1}}}},
    {16,        {{{4, 1}, {32, 3}, {128, 4}, {524288, 3}, {4194304, 1}, {kAny, 4}}}},
    {32,        {{{32, 1}, {524288, 3}, {2097152, 1}, {4194304, 3}, {kAny, 4}}}},
    {kAnyRanks, {{{4, 3}, {16, 1}, {65536, 4}, {262144, 1}, {kAny, 4}}}},
};
// clang-format on

// Open MPI coll/libnbc's iallreduce algorithms (coll_libnbc_iallreduce_algorithm):
// binomial is a binomial-tree reduce to rank 0 then a binomial broadcast
// (ceil(log2 n) levels of the whole buffer each way); rabenseifner and
// recursive_doubling fold as coll/tuned's do (the same schedules). A forced
// rabenseifner with fewer elements than the power of two runs ring.
constexpr OmpiAlgorithm kLibnbcIallreduce[] = {
    {1, "ring", ModelFamily::ring},
    {2, "binomial", ModelFamily::tree},
    {3, "rabenseifner", ModelFamily::rabenseifner},
    {4, "recursive_doubling", ModelFamily::recursive_doubling},
};

// What Open MPI 4.1 knows of one collective: coll/tuned's algorithms and
// fixed rules, coll/libnbc's algorithms (empty: its choice not tabulated).
struct CollectiveRules {
  std::string_view collective;
  std::span<const OmpiAlgorithm> tuned;
  std::span<const RanksRow> rules;
  bool per_rank_bytes;  // the rules read one rank's block, not the whole buffer
  std::span<const OmpiAlgorithm> libnbc;
};
const CollectiveRules kOmpi41[] = {
    {"all_reduce", kOmpiAllreduce, kOmpi41Allreduce, false, kLibnbcIallreduce},
    {"all_gather", kOmpiAllgather, kOmpi41Allgather, true, {}},
    {"reduce_scatter", kOmpiReduceScatterBlock, kOmpi41ReduceScatterBlock, true, {}},
};
const CollectiveRules* rules_of(std::string_view collective) {
  for (const CollectiveRules& r : kOmpi41)
    if (r.collective == collective) return &r;
  return nullptr;
}

// The table's entry for a forced "PREFIX:N", or nullptr.
const OmpiAlgorithm* find_forced(std::string_view forced, std::string_view prefix,
                                 std::span<const OmpiAlgorithm> table) {
  if (!forced.starts_with(prefix)) return nullptr;
  for (const OmpiAlgorithm& a : table)
    if (forced.substr(prefix.size()) == std::to_string(a.id)) return &a;
  return nullptr;
}

// coll/libnbc's default selection in nbc_iallreduce.c, commutative ops (4.1.4's
// emulated-cluster curves follow it: docs/workload.md "Beyond the measured scale").
RuleChoice libnbc_allreduce_choice(const RuleQuery& q) {
  constexpr std::string_view kRules = "Open MPI 4.1 libnbc rules (nonblocking calls)";
  if (q.ranks < 4) return {"libnbc:2", fmt::format("{}: ranks < 4", kRules)};
  if (q.bytes < 65536) return {"libnbc:2", fmt::format("{}: < 65536 B", kRules)};
  if (q.in_place) return {"libnbc:2", fmt::format("{}: in place", kRules)};
  std::uint64_t pof2 = 1;
  while (pof2 * 2 <= static_cast<std::uint64_t>(q.ranks)) pof2 *= 2;
  if ((q.count == 0 ? q.bytes : q.count) >= pof2)
    return {"libnbc:3", fmt::format("{}: ranks >= 4, >= 65536 B, out of place", kRules)};
  return {"libnbc:1", fmt::format("{}: fewer elements than {} (a power of two <= ranks)", kRules, pof2)};
}

}  // namespace

std::string algorithm_label(std::string_view forced, std::string_view collective) {
  if (const CollectiveRules* r = rules_of(collective)) {
    if (const OmpiAlgorithm* a = find_forced(forced, "ompi:", r->tuned))
      return fmt::format("{} (ompi:{})", a->name, a->id);  // the forced setting as runs record it: not a version
    if (const OmpiAlgorithm* a = find_forced(forced, "libnbc:", r->libnbc))
      return fmt::format("{} (libnbc:{})", a->name, a->id);
  }
  if (forced.starts_with("ompi:")) return fmt::format("Open MPI algorithm {}", forced.substr(5));
  if (forced.starts_with("libnbc:")) return fmt::format("Open MPI libnbc algorithm {}", forced.substr(7));
  if (forced.starts_with("nccl:")) return fmt::format("NCCL_ALGO={}", forced.substr(5));
  return std::string(forced);
}

std::optional<ModelFamily> algorithm_family(std::string_view forced, std::string_view collective) {
  const CollectiveRules* r = rules_of(collective);
  if (!r) return std::nullopt;
  if (const OmpiAlgorithm* a = find_forced(forced, "ompi:", r->tuned)) return a->family;
  if (const OmpiAlgorithm* a = find_forced(forced, "libnbc:", r->libnbc)) return a->family;
  return std::nullopt;
}

std::optional<RuleChoice> library_choice(const RuleQuery& q) {
  const CollectiveRules* r = rules_of(q.collective);
  if (!r || !q.library.starts_with("Open MPI v4.1.") || q.ranks < 1) return std::nullopt;
  if (q.mpi_calls == "nonblocking")
    return q.collective == "all_reduce" ? std::optional(libnbc_allreduce_choice(q)) : std::nullopt;
  const int ranks = q.ranks;
  const std::uint64_t bytes = r->per_rank_bytes ? q.bytes / static_cast<std::uint64_t>(ranks) : q.bytes;
  const std::string_view unit = r->per_rank_bytes ? " per rank" : "";
  int ranks_from = 1;
  for (const RanksRow& row : r->rules) {
    if (ranks < row.ranks_below) {
      std::uint64_t bytes_from = 0;
      for (const SizeStep& step : row.steps) {
        if (bytes < step.bytes_below) {
          const std::string size = step.bytes_below == kAny && bytes_from == 0 ? std::string("any size")
                                   : step.bytes_below == kAny ? fmt::format(">= {} B{}", bytes_from, unit)
                                   : bytes_from == 0
                                       ? fmt::format("< {} B{}", step.bytes_below, unit)
                                       : fmt::format("{} to {} B{}", bytes_from, step.bytes_below - 1, unit);
          const std::string count = row.ranks_below == kAnyRanks
                                        ? fmt::format("ranks >= {}", ranks_from)
                                        : fmt::format("{} <= ranks < {}", ranks_from, row.ranks_below);
          return RuleChoice{fmt::format("ompi:{}", step.algorithm),
                            fmt::format("Open MPI 4.1 fixed rules: {}, {}", count, size)};
        }
        bytes_from = step.bytes_below;
      }
    }
    ranks_from = row.ranks_below;
  }
  return std::nullopt;
}

}  // namespace ccb
