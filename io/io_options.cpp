#include "io/io_options.hpp"

#include "common/checked_math.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/errors.hpp"
#include "common/sizes.hpp"

namespace ccb {
namespace {

constexpr IoPatternRow kPatterns[] = {
    {IoPattern::seq_read, "seq_read", true, false, false, "read each rank's region front to back"},
    {IoPattern::seq_write, "seq_write", false, true, false, "overwrite each rank's region front to back, then fsync"},
    {IoPattern::rand_read, "rand_read", true, false, true, "read every block of the region once, in random order"},
    {IoPattern::rand_write, "rand_write", false, true, true, "overwrite every block once in random order, then fsync"},
    {IoPattern::mixed, "mixed", true, true, true, "random blocks, each a read or a write (--read-percent), then fsync"},
    {IoPattern::checkpoint, "checkpoint", false, true, false,
     "each rank creates a new file, writes its shard (--file-size) and fsyncs it: time to persist"},
    {IoPattern::dataset, "dataset", true, false, true,
     "--files small files per rank (the block size is the file size), each opened, read whole and closed, in random "
     "order"},
};

}  // namespace

std::span<const IoPatternRow> io_patterns() { return kPatterns; }

const IoPatternRow& row(IoPattern p) {
  for (const auto& r : kPatterns)
    if (r.id == p) return r;
  return kPatterns[0];
}

std::string_view name(IoEngineKind e) { return e == IoEngineKind::io_uring ? "io_uring" : "psync"; }

std::string_view name(IoMemory m) {
  switch (m) {
    case IoMemory::pageable: return "pageable";
    case IoMemory::pinned: return "pinned";
    case IoMemory::device: return "device";
  }
  return "pageable";
}

void validate(const IoOptions& o) {
  if (o.patterns.empty()) throw UsageError("io: no pattern given (see ccbench io --help)");
  if (o.blocks.empty()) throw UsageError("io: no block size in the sweep (-b, -e, -f)");
  for (std::size_t b : o.blocks)
    if (b == 0 || b % kIoSector != 0)
      throw UsageError(
          fmt::format("-b/-e: block size {} is not a whole number of {}-byte sectors (O_DIRECT and the "
                      "data stamps need them): use sizes such as 4K, 64K, 1M",
                      b, kIoSector));
  const std::size_t largest = *std::max_element(o.blocks.begin(), o.blocks.end());
  const bool region =
      std::any_of(o.patterns.begin(), o.patterns.end(), [](IoPattern p) { return p != IoPattern::dataset; });
  if (region && o.file_bytes < largest)
    throw UsageError(
        fmt::format("--file-size {}: below the largest block ({}): each rank's file must hold at least one block",
                    format_size(o.file_bytes), format_size(largest)));
  if (o.engine == IoEngineKind::psync && o.queue_depth > 1)
    throw UsageError(
        fmt::format("--qd {}: the psync engine has one request in flight per thread (as fio's psync); "
                    "use --engine io_uring or more --threads",
                    o.queue_depth));
  if (o.read_percent < 0 || o.read_percent > 100)
    throw UsageError(fmt::format("--read-percent {}: out of range (allowed: 0 to 100)", o.read_percent));
  if (o.memory == IoMemory::device &&
      std::any_of(o.patterns.begin(), o.patterns.end(), [](IoPattern p) { return row(p).writes; }))
    throw UsageError("--memory device: only the read patterns (seq_read, rand_read, dataset) go on to a GPU");
}

std::uint64_t bytes_needed(const IoOptions& o, int ranks) {
  const auto has = [&](IoPattern p) { return std::find(o.patterns.begin(), o.patterns.end(), p) != o.patterns.end(); };
  std::uint64_t per_rank = 0;
  if (std::any_of(o.patterns.begin(), o.patterns.end(),
                  [](IoPattern p) { return p != IoPattern::dataset && p != IoPattern::checkpoint; }))
    per_rank = sat_add(per_rank, o.file_bytes);  // the data file (laid out once)
  if (has(IoPattern::checkpoint))
    per_rank = sat_add(per_rank, o.file_bytes);  // a fresh shard, removed after each point
  if (has(IoPattern::dataset))
    per_rank = sat_add(per_rank, sat_mul(static_cast<std::uint64_t>(o.dataset_files),
                                         *std::max_element(o.blocks.begin(), o.blocks.end())));
  return sat_mul(per_rank, static_cast<std::uint64_t>(ranks));
}

std::uint64_t inodes_needed(const IoOptions& o, int ranks) {
  const bool dataset = std::find(o.patterns.begin(), o.patterns.end(), IoPattern::dataset) != o.patterns.end();
  // Per rank: its data file, a checkpoint shard, its dataset folder and files.
  const std::uint64_t per_rank = sat_add(3, dataset ? static_cast<std::uint64_t>(o.dataset_files) : 0);
  return sat_add(sat_mul(per_rank, static_cast<std::uint64_t>(ranks)), 1);  // and the workspace folder
}

}  // namespace ccb
