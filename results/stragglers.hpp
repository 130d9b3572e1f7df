// Stragglers (--stragglers, docs/stragglers.md): from every rank's entry time
// into each timed iteration on the synchronised clock, which rank arrived
// last and how often, and how late it was. A collective lasts until its last
// rank arrives, so the rank that arrives last, again and again, held the
// others up (its CPU, its own work, its process placement). A slow link does
// not show here: every rank of a ring or tree waits for it alike.
//
// Per iteration i: last(i) = the rank with the latest entry; skew(i) = that
// entry minus the median of the other ranks' (with 2 ranks: the other's).
// Per rank: its lateness, the median over iterations of its entry minus the
// median of the others'. A rank is named when
// (a) it arrived last in more iterations than chance allows: with n ranks
// each is last with probability 1/n if none is slow; the binomial tail of
// its count, times n (every rank was a candidate), is below kStragglerAlpha,
// and (b) its median lateness is material: at least kStragglerShare of the
// iteration's median time and kStragglerFloorUs. The barrier before each
// sample releases ranks microseconds apart in a fixed order: that order is
// measured (barriers with nothing after them) and taken out first, so it
// names no healthy rank.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "results/stats.hpp"

namespace ccb {

inline constexpr double kStragglerAlpha = 1e-3;
inline constexpr double kStragglerShare = 0.1;
inline constexpr double kStragglerFloorUs = 20;

struct Stragglers {
  long iterations = 0;
  int last_rank = 0;                // the rank that arrived last most often
  long last_count = 0;              // in that many iterations
  double chance_p = 1;              // the binomial tail of that count under chance, times n
  bool named = false;               // (a) and (b) above
  std::string host;                 // last_rank's (filled by the sweep)
  std::string noise;                // the run's noise flag of that host that may explain it ("oversubscribed: ...")
  Summary skew_us;                  // skew(i) over iterations
  std::vector<double> lateness_us;  // per rank
  std::vector<long> last_counts;    // per rank: iterations it arrived last (its size: the ranks)
};

// entries_s[r][i]: rank r's entry into iteration i (seconds, one clock).
// iteration_p50_us: the point's median iteration time. barrier_order: each
// rank's median lateness out of the barrier alone (barrier_order_s of entries
// right after barriers with no operation between), subtracted first: a
// barrier releases ranks in a fixed order microseconds apart. nullopt with
// fewer than 2 ranks or no iterations.
std::optional<Stragglers> find_stragglers(std::vector<std::vector<double>> entries_s, double iteration_p50_us,
                                          const std::vector<double>& barrier_order = {});
// Per rank: the median over iterations of its entry minus the median of the others' (seconds).
std::vector<double> barrier_order_s(const std::vector<std::vector<double>>& entries_s);

// P(X >= k) for X ~ Binomial(n, p).
double binomial_tail(long n, long k, double p);

}  // namespace ccb
