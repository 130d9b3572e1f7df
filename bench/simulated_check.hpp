// The check both acceptance benchmarks simulate: all_reduce at 1 MiB with a
// busbw floor of 40 GB/s. The simulator's healthy groups measure 50 (margin
// 25%); a defective node at factor 0.5 gives 25.
#pragma once
#include "analysis/accept/spec.hpp"

inline ccb::Check simulated_check(ccb::GroupPattern p) {
  ccb::Check c;
  c.name = "ar";
  c.collective = ccb::find_collective("all_reduce");
  c.sizes = {1 << 20};
  c.pattern = p;
  ccb::Gate g;
  g.at_bytes = 1 << 20;
  g.min = 40;
  c.gates = {g};
  return c;
}
