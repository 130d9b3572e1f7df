// alltoallv's traffic: who sends how many elements to whom, from a traffic
// model, as data (docs/alltoallv.md). Every model gives a weight per (sender,
// receiver); a point of S bytes per rank turns them into whole element
// counts. Seeded models draw from their own generator (mt19937_64 and
// Box-Muller, both fixed), so a recorded model and seed repeat a run exactly
// on any machine.
//
//   uniform            every rank sends S/n to every rank (= alltoall)
//   spread:F           nccl-tests' distance-weighted pattern (alltoallv_perf,
//                      NCCL_TESTS_ALLTOALLV_SPREAD=F): (1-F) uniform + F in
//                      proportion to the distance (j - i) mod n; F in [0, 1]
//   hot:R[:rank=K]     every rank sends R times as much to rank K (default
//                      0) as to each other rank: DeepEP's unbalanced ratio
//                      (tokens to the hot rank / mean of the others), R >= 1
//   lognormal:SIGMA[:seed=N]
//                      each receiver's share exp(SIGMA z), z standard
//                      normal drawn per receiver (the load of MoE experts is
//                      log-normal); every sender routes alike; SIGMA in [0, 4]
//   permutations:K[:seed=N]
//                      the sum of K random permutations (rccl-tests' sparse
//                      doubly-stochastic traffic): each rank sends to at most
//                      K ranks and receives as much as it sends; K in 1..64
//   matrix:FILE        nccl-tests' matrix file (NCCL_TESTS_ALLTOALLV_MATRIX_FILE):
//                      row i, column j the bytes rank i sends to rank j;
//                      its shape, scaled so that ranks send S bytes on average
//   moe:experts=E:topk=K:hidden=H[:hot=R[:rank=K]|:lognormal=SIGMA][:seed=N]
//       [:dispatch|:combine][:routing=FILE]
//                      a mixture-of-experts layer's dispatch (or combine) of
//                      S / H tokens of H elements per rank to their top-K of E
//                      experts (collectives/moe_routing.hpp, docs/moe.md)
//
// Every model but matrix and moe sends exactly S from every rank; the size
// column is the bytes a rank sends on average (nccl-tests': the bytes each
// rank sends); for moe it is the bytes of a rank's tokens (T x H elements).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/moe_routing.hpp"

namespace ccb {

// The --traffic grammar, as --help, the parser's errors and moe's say it.
inline constexpr std::string_view kTrafficModels =
    "uniform, spread:F, hot:R[:rank=K], lognormal:SIGMA[:seed=N], permutations:K[:seed=N], matrix:FILE";
// A MoE layer's traffic; a sweep of one collective may add [:dispatch|:combine].
inline constexpr std::string_view kMoeTraffic =
    "moe:experts=E:topk=K:hidden=H[:hot=R[:rank=K]|:lognormal=SIGMA|:routing=FILE][:seed=N]";

enum class TrafficKind { uniform, spread, hot, lognormal, permutations, matrix, moe };

struct TrafficModel {
  TrafficKind kind = TrafficKind::spread;
  double value = 1;  // spread F, hot R, lognormal SIGMA, permutations K
  int hot_rank = 0;
  std::uint64_t seed = 1;
  std::string file;             // matrix: the path, as given
  int dim = 0;                  // matrix: rows (= columns)
  std::vector<double> weights;  // matrix: dim x dim bytes, row by row
  MoeRouting moe;               // moe: the layer and its routing
  std::string from;             // where it was given: "--traffic", "NCCL_TESTS_ALLTOALLV_SPREAD", "default"
  // The model as --traffic takes it ("hot:4:rank=0", "lognormal:1:seed=7").
  std::string text() const;
};

// --traffic SPEC. Reads a matrix file. UsageError (one line) on bad input.
TrafficModel parse_traffic(std::string_view spec);
// Without --traffic: nccl-tests' variables (the matrix file first, then the
// spread), else its default, spread:1. UsageError on a bad value.
TrafficModel traffic_from_environment(const char* matrix_file, const char* spread);
// nccl-tests' matrix file: whitespace-separated non-negative numbers (bytes),
// a square; `name` for messages. UsageError on anything else.
TrafficModel read_traffic_matrix(const std::string& text, const std::string& name);

// One point's counts: counts[i * n + j] elements from rank i to rank j.
struct TrafficPlan {
  int n = 0;
  std::vector<std::uint64_t> counts;
  std::uint64_t at(int from, int to) const { return counts[static_cast<std::size_t>(from) * n + to]; }
  std::uint64_t sent(int rank) const;      // elements `rank` sends (its send buffer)
  std::uint64_t received(int rank) const;  // elements `rank` receives (its receive buffer)
  // Where rank `from`'s elements for `to` start in its send buffer, and where
  // they land in `to`'s receive buffer (senders in rank order).
  std::uint64_t send_offset(int from, int to) const;
  std::uint64_t recv_offset(int to, int from) const;
  // The rank that moves the most (the larger of what it sends and what it
  // receives; the lowest such rank) and that many elements: nccl-tests'
  // alltoallv bandwidth divides them by the time.
  int busiest_rank() const;
  std::uint64_t busiest_elements() const;
  // The same over what crosses a rank's link (its elements to and from
  // itself left out): the rank and that many elements.
  int busiest_remote_rank() const;
  std::uint64_t busiest_remote_elements() const;
  std::uint64_t largest_buffer() const;  // elements: the largest send or receive side of any rank
};

// The counts of a point whose ranks send `per_rank` elements on average, at
// n ranks. UsageError when the model does not fit n (a hot rank >= n, a
// matrix with fewer rows than ranks).
TrafficPlan make_traffic_plan(const TrafficModel& m, int n, std::uint64_t per_rank);

}  // namespace ccb
