// --bitwise N: the same inputs reduced (or moved) N times; every repeat, and
// every rank that holds the same result, must hold identical bits. A
// difference is silent data corruption where the library's algorithm is
// deterministic for a fixed configuration (Open MPI's coll/tuned and NCCL
// pick one algorithm per size and rank count; docs/failures.md says where it
// is not). The first difference is named: rank, host, repeat, element, bit.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harness/comm.hpp"
#include "kernels/memory.hpp"

namespace ccb {

// FNV-1a over the bytes (a repeat's fingerprint).
uint64_t fingerprint(const unsigned char* data, std::size_t bytes);

// The first element (of `elem` bytes) where a and b differ, and the lowest
// differing bit in it (0 = the least significant bit of its first byte).
struct BitDifference {
  std::size_t element = 0;
  int bit = 0;
};
std::optional<BitDifference> first_bit_difference(const unsigned char* a, const unsigned char* b, std::size_t bytes,
                                                  std::size_t elem);

// Of every rank's fingerprint: the ranks that differ from the value most
// ranks hold (ties: rank 0's value is the reference).
std::vector<int> ranks_off_majority(const std::vector<uint64_t>& prints);

struct BitwiseOutcome {
  int repeats = 0;
  bool across_ranks = false;    // every holder's result was also compared with the others'
  std::uint64_t differing = 0;  // elements that differed (over ranks and repeats)
  std::string first;            // the first difference in words ("" when identical)
};

// What one local rank holds (every GPU of a process with -g N is one):
// `data`/`bytes` its result region (nullptr/0: it holds none);
// `flip_at_repeat` >= 1: test-only, one bit of this copy is flipped at that
// repeat (CCBENCH_FAULT=bitflip).
struct BitwiseRegion {
  int rank = 0;  // the world rank
  const void* data = nullptr;
  std::size_t bytes = 0;
  int flip_at_repeat = 0;
};

// One process's part (every process calls it; collective over comm):
// `run_once` fills the inputs and runs the operation once, for every local
// rank; each of `regions` is compared with its own first repeat, and with
// `same_everywhere` (all_reduce, all_gather, broadcast: every holder holds
// the same result) every rank's with every other's, on this process and
// across processes.
BitwiseOutcome check_bitwise(int repeats, const Comm& comm, Memory& mem, const std::function<void()>& run_once,
                             std::span<const BitwiseRegion> regions, std::size_t elem, bool same_everywhere);

}  // namespace ccb
