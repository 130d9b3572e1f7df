// Alignment: the points of a result set grouped into series (every key field
// but the size) and, within a series, sorted by size with repeated sizes
// merged. Which key fields count is a bit mask: fields a set does not record
// and fields the user ignores are left out.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "results/import/result_set.hpp"

namespace ccb {

enum KeyField : unsigned {
  kKeyDtype = 1u << 0,
  kKeyOp = 1u << 1,
  kKeyRanks = 1u << 2,
  kKeyNodes = 1u << 3,
  kKeyInPlace = 1u << 4,
  kKeyPath = 1u << 5,
  kKeyMemory = 1u << 6,
  kKeyAll = (1u << 7) - 1,
};

// "dtype,op,ranks" -> mask; nullopt naming the bad field otherwise.
std::optional<unsigned> parse_key_fields(std::string_view list, std::string* bad);
std::string_view key_field_name(unsigned field);  // "dtype", ...
// "dtype, op, ranks" (collective and size always come first).
std::string key_fields_text(unsigned fields);
// "dtype, op" (only the fields in the mask).
std::string key_field_list(unsigned fields);
// Fields that every point of the set records.
unsigned recorded_fields(const ResultSet& set);

// One size of a series. Repeated points of the same key (several runs in one
// folder) are merged: median time, median busbw, samples pooled.
struct SeriesPoint {
  std::uint64_t bytes = 0;
  double time_us = kNaN, busbw_gbps = kNaN;
  const ImportedPoint* first = nullptr;  // the first point merged here
  std::uint32_t merged = 1;
  std::vector<double> pooled_samples;  // only when merged > 1
  std::span<const double> samples() const {
    return merged > 1 ? std::span<const double>(pooled_samples) : std::span<const double>(first->samples_us);
  }
};

struct Series {
  // The key values that count (others are empty / 0 / -1).
  Symbol collective, dtype, op, path, memory;
  int ranks = 0, nodes = 0, in_place = -1;
  int groups = 1;  // side by side (--split): always part of the key
  Symbol
      mpi_calls;  // nonblocking (--mpi-calls) is a key of its own; blocking and "" (OSU, IMB, NCCL) share one: the first point's
  std::vector<SeriesPoint> points;  // ascending bytes, one per size
  // "all_reduce float sum, 8 ranks, 1 node, out-of-place, path auto, host" (", 2 groups side by side" after the
  // nodes, ", nonblocking MPI calls" after the placement)
  std::string label() const;
};

// Orders series keys (collective first); used to join two tables.
int compare_keys(const Series& a, const Series& b);

struct SeriesTable {
  unsigned fields = 0;
  std::vector<Series> series;     // ordered by compare_keys
  std::size_t merged_points = 0;  // points merged into an existing size
};

SeriesTable build_series(const ResultSet& set, unsigned fields);

}  // namespace ccb
