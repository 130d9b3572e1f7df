// Result sets generated from a formula, for the scale model's tests: one
// float sum series (all_reduce unless told) (host memory, path auto) per placement, at the
// given rank counts and sizes, times from `time(ranks, bytes)`.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "results/import/result_set.hpp"

namespace ccb::synthetic {

using TimeOf = std::function<double(int ranks, double bytes)>;

struct Shape {
  std::uint64_t from = 1024, to = std::uint64_t{64} << 20, factor = 4;  // sizes
  std::vector<int> placements{0, 1};                                    // out-of-place, in-place
  int ranks_per_node = 1;                                               // 0: one node
  std::string backend = "mpi";
  std::string forced;     // ImportedPoint::forced_algorithm of every point
  std::string library;    // versions.mpi_library ("" : not recorded)
  std::string mpi_calls;  // ImportedPoint::mpi_calls of every point ("" : not recorded)
  std::string collective = "all_reduce";
};

inline ResultSet sweep(const std::vector<int>& counts, const TimeOf& time, const Shape& shape = {}) {
  ResultSet set;
  set.label = "synthetic";
  set.files.push_back("synthetic.jsonl");
  set.formats.push_back("ccbench JSON Lines");
  set.note_env("config.backend", shape.backend);
  if (!shape.library.empty()) set.note_env("versions.mpi_library", shape.library);
  for (int n : counts)
    for (std::uint64_t s = shape.from; s <= shape.to; s *= shape.factor)
      for (int in_place : shape.placements) {
        ImportedPoint p;
        p.collective = shape.collective;
        p.dtype = "float";
        p.op = "sum";
        p.path = "auto";
        p.memory = "host";
        p.ranks = n;
        p.nodes = shape.ranks_per_node > 0 ? n / shape.ranks_per_node : 1;
        p.in_place = in_place;
        p.bytes = s;
        p.forced_algorithm = shape.forced;
        if (!shape.mpi_calls.empty()) p.mpi_calls = shape.mpi_calls;
        p.time_us = time(n, static_cast<double>(s));
        set.points.push_back(p);
      }
  return set;
}

}  // namespace ccb::synthetic
