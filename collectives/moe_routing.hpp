// A mixture-of-experts layer's dispatch and combine as alltoallv traffic
// (docs/moe.md): every rank holds T tokens of `hidden` elements; each token
// goes to its top-k experts, experts are spread evenly over the ranks (rank r
// holds experts r*E/n .. (r+1)*E/n - 1), and dispatch sends a token once to
// each rank that holds at least one of its experts (DeepEP's and NCCL EP's
// deduplication); combine sends the same tokens back (the transpose).
//
// Which experts a token picks: each expert has a weight (uniform; hot: the
// hot rank's experts R times the others'; lognormal: exp(SIGMA z) per
// expert), and a token draws k distinct experts in proportion to them, from
// a fixed generator (mt19937_64), so a model and seed repeat exactly. A
// routing file instead gives the tokens per expert per rank (row i, column e:
// tokens of rank i routed to expert e); it carries no token's set of experts,
// so its traffic is not deduplicated (each (token, expert) pair is a copy).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ccb {

enum class MoeSkew { uniform, hot, lognormal, file };

struct MoeRouting {
  int experts = 0, topk = 0;
  std::uint64_t hidden = 0;  // elements per token
  MoeSkew skew = MoeSkew::uniform;
  double value = 1;  // hot R, lognormal SIGMA
  int hot_rank = 0;
  bool combine = false;             // the transpose: expert ranks send the tokens back
  bool direction_given = false;     // :dispatch or :combine was written
  std::string file;                 // routing file: the path, as given
  int file_ranks = 0;               // its rows
  std::vector<double> file_tokens;  // file_ranks x experts, row by row
};

// The fields after "moe:" of --traffic (collectives/traffic.hpp); reads a
// routing file. `seed` is set when the fields give one. UsageError (one line).
MoeRouting parse_moe(const std::vector<std::string_view>& fields, std::string_view spec, std::uint64_t& seed);
// The fields after "moe:", as parse_moe takes them.
std::string moe_text(const MoeRouting& m, std::uint64_t seed);
// A routing file's text: whitespace-separated numbers >= 0, rows of equal
// length (one row per rank, one column per expert), lines starting with '#'
// comments; `name` for messages.
MoeRouting read_routing_file(const std::string& text, const std::string& name);

// tokens[i * n + j]: the tokens rank i sends to rank j when every rank holds
// `tokens_per_rank`. UsageError when the layer does not fit n ranks (experts
// not a multiple of n, a hot rank >= n, a routing file of fewer rows or other
// experts).
std::vector<std::uint64_t> moe_tokens(const MoeRouting& m, int n, std::uint64_t tokens_per_rank, std::uint64_t seed);

}  // namespace ccb
