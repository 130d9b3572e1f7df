#include "results/model/library_rules.hpp"

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

const OmpiAlgorithm* ompi_allreduce(std::string_view forced) {
  if (!forced.starts_with("ompi:")) return nullptr;
  for (const OmpiAlgorithm& a : kOmpiAllreduce)
    if (forced.substr(5) == std::to_string(a.id)) return &a;
  return nullptr;
}

}  // namespace

std::string algorithm_label(std::string_view forced, std::string_view collective) {
  if (collective == "all_reduce")
    if (const OmpiAlgorithm* a = ompi_allreduce(forced)) return fmt::format("{} (Open MPI {})", a->name, a->id);
  if (forced.starts_with("ompi:")) return fmt::format("Open MPI algorithm {}", forced.substr(5));
  if (forced.starts_with("nccl:")) return fmt::format("NCCL_ALGO={}", forced.substr(5));
  return std::string(forced);
}

std::optional<ModelFamily> algorithm_family(std::string_view forced, std::string_view collective) {
  if (collective == "all_reduce")
    if (const OmpiAlgorithm* a = ompi_allreduce(forced)) return a->family;
  return std::nullopt;
}

std::optional<RuleChoice> library_choice(std::string_view library, std::string_view collective, int ranks,
                                         std::uint64_t bytes) {
  if (collective != "all_reduce" || !library.starts_with("Open MPI v4.1.")) return std::nullopt;
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
