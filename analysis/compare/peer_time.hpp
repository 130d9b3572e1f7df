// Comparing ccbench with OSU and IMB on the same definition of time. For a
// collective, OSU and IMB print the average over ranks of each rank's mean
// per-call time (a barrier between calls). ccbench's table time is another
// figure: the pipelined time, or the per-iteration median of the slowest rank.
// ccbench records OSU's and IMB's figure too (rank_means, per-iteration
// timing): when a comparison holds an OSU or IMB set, the ccbench points of
// collectives that have it are compared on it instead (busbw and algbw follow
// the time; per-iteration samples, of the other definition, are dropped).
// Point-to-point tests keep their time: OSU and IMB time a loop there, as
// ccbench's pipelined time does.
#pragma once
#include <string>
#include <vector>

#include "results/import/result_set.hpp"

namespace ccb {

// Returns the sentence for the report ("" when no point changed).
std::string match_peer_time_definition(std::vector<ResultSet>& sets);

}  // namespace ccb
