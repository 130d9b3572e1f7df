#include "analysis/model/library_rules.hpp"

#include <fmt/format.h>

#include <array>
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
constexpr std::array<OmpiAlgorithm, 6> kOmpiAllreduce{{
    {1, "basic_linear", ModelFamily::linear},
    {2, "nonoverlapping", ModelFamily::tree},
    {3, "recursive_doubling", ModelFamily::recursive_doubling},
    {4, "ring", ModelFamily::ring},
    {5, "segmented_ring", ModelFamily::ring},
    {6, "rabenseifner", ModelFamily::rabenseifner},
}};

// ompi_coll_tuned_allreduce_intra_dec_fixed, commutative ops, Open MPI 4.1.x:
// for communicators below `ranks_below`, the first step whose `bytes_below`
// exceeds the operation's bytes (total_dsize = count x type size) chooses.
constexpr std::uint64_t kAny = std::numeric_limits<std::uint64_t>::max();
struct SizeStep {
  std::uint64_t bytes_below;
  int algorithm;
};
struct RanksRow {
  int ranks_below;
  std::array<SizeStep, 7> steps;  // ends at the first kAny
};
constexpr int kAnyRanks = std::numeric_limits<int>::max();
// clang-format off
constexpr std::array<RanksRow, 11> kOmpi41Allreduce{{
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
}};
// clang-format on

// Open MPI coll/libnbc's iallreduce algorithms (coll_libnbc_iallreduce_algorithm):
// binomial is a binomial-tree reduce to rank 0 then a binomial broadcast
// (ceil(log2 n) levels of the whole buffer each way); rabenseifner and
// recursive_doubling fold as coll/tuned's do (the same schedules). A forced
// rabenseifner with fewer elements than the power of two runs ring.
constexpr std::array<OmpiAlgorithm, 4> kLibnbcIallreduce{{
    {1, "ring", ModelFamily::ring},
    {2, "binomial", ModelFamily::tree},
    {3, "rabenseifner", ModelFamily::rabenseifner},
    {4, "recursive_doubling", ModelFamily::recursive_doubling},
}};

// The table's entry for a forced "PREFIX:N", or nullptr.
template <std::size_t N>
const OmpiAlgorithm* find_forced(std::string_view forced, std::string_view prefix,
                                 const std::array<OmpiAlgorithm, N>& table) {
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
  if (collective == "all_reduce") {
    if (const OmpiAlgorithm* a = find_forced(forced, "ompi:", kOmpiAllreduce))
      return fmt::format("{} (Open MPI {})", a->name, a->id);
    if (const OmpiAlgorithm* a = find_forced(forced, "libnbc:", kLibnbcIallreduce))
      return fmt::format("{} (Open MPI libnbc {})", a->name, a->id);
  }
  if (forced.starts_with("ompi:")) return fmt::format("Open MPI algorithm {}", forced.substr(5));
  if (forced.starts_with("libnbc:")) return fmt::format("Open MPI libnbc algorithm {}", forced.substr(7));
  if (forced.starts_with("nccl:")) return fmt::format("NCCL_ALGO={}", forced.substr(5));
  return std::string(forced);
}

std::optional<ModelFamily> algorithm_family(std::string_view forced, std::string_view collective) {
  if (collective != "all_reduce") return std::nullopt;
  if (const OmpiAlgorithm* a = find_forced(forced, "ompi:", kOmpiAllreduce)) return a->family;
  if (const OmpiAlgorithm* a = find_forced(forced, "libnbc:", kLibnbcIallreduce)) return a->family;
  return std::nullopt;
}

std::optional<RuleChoice> library_choice(const RuleQuery& q) {
  if (q.collective != "all_reduce" || !q.library.starts_with("Open MPI v4.1.") || q.ranks < 1) return std::nullopt;
  if (q.mpi_calls == "nonblocking") return libnbc_allreduce_choice(q);
  const int ranks = q.ranks;
  const std::uint64_t bytes = q.bytes;
  int ranks_from = 1;
  for (const RanksRow& row : kOmpi41Allreduce) {
    if (ranks < row.ranks_below) {
      std::uint64_t bytes_from = 0;
      for (const SizeStep& step : row.steps) {
        if (bytes < step.bytes_below) {
          const std::string size = step.bytes_below == kAny ? fmt::format(">= {} B", bytes_from)
                                   : bytes_from == 0        ? fmt::format("< {} B", step.bytes_below)
                                                     : fmt::format("{} to {} B", bytes_from, step.bytes_below - 1);
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
