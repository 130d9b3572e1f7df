// --split RULE (and nccl-tests' NCCL_TESTS_SPLIT / NCCL_TESTS_SPLIT_MASK):
// the world's ranks fall into groups by a colour computed from the world rank,
// and every group runs the same collective side by side with the others
// (what the k data-parallel groups of a training step do on shared links).
// The syntax is nccl-tests': OPERATION VALUE, the operation AND, OR, MOD or
// DIV (or &, |, %, /), the value decimal, 0x hexadecimal or 0b binary;
// NCCL_TESTS_SPLIT_MASK=V is "AND V" with V hexadecimal.
#pragma once
#include <string>
#include <string_view>

namespace ccb {

struct SplitRule {
  enum class Op { bit_and, bit_or, mod, div };
  Op op = Op::mod;
  long value = 1;
  std::string text;  // as given ("MOD 2"), for the header and the record
  int color(int world_rank) const;
};

// Throws UsageError naming `source` ("--split", "NCCL_TESTS_SPLIT") when the
// text is not OPERATION VALUE, or MOD / DIV by 0 or less.
SplitRule parse_split(std::string_view text, std::string_view source);
// NCCL_TESTS_SPLIT_MASK's value: hexadecimal, with or without 0x.
SplitRule parse_split_mask(std::string_view hex);

// --split's groups: how many ran side by side, each group's nodes, the rule
// and where it came from ("" without --split).
struct SplitInfo {
  int groups = 1, group_nodes = 1;
  std::string rule;
};

}  // namespace ccb
