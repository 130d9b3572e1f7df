// --bitwise's pure parts (harness/bitwise.hpp): where two results differ, and
// which ranks hold another result than most.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "harness/bitwise.hpp"
#include "harness/comm.hpp"
#include "kernels/host_memory.hpp"

namespace ccb {
namespace {

TEST(Bitwise, TheFirstDifferingElementAndBit) {
  std::vector<unsigned char> a(64, 0x33), b = a;
  EXPECT_FALSE(first_bit_difference(a.data(), b.data(), a.size(), 4));
  b[21] ^= 0x08;  // element 5 (4-byte elements), its second byte, bit 3
  const auto d = first_bit_difference(a.data(), b.data(), a.size(), 4);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->element, 5u);
  EXPECT_EQ(d->bit, 8 + 3);
  b[2] ^= 0x80;  // an earlier one wins
  EXPECT_EQ(first_bit_difference(a.data(), b.data(), a.size(), 4)->element, 0u);
  EXPECT_EQ(first_bit_difference(a.data(), b.data(), a.size(), 4)->bit, 16 + 7);
  EXPECT_NE(fingerprint(a.data(), a.size()), fingerprint(b.data(), b.size()));
  EXPECT_EQ(fingerprint(a.data(), a.size()), fingerprint(a.data(), a.size()));
}

TEST(Bitwise, TheOddRankIsNamedByMajority) {
  EXPECT_EQ(ranks_off_majority({7, 7, 9, 7}), (std::vector<int>{2}));
  EXPECT_EQ(ranks_off_majority({9, 7, 7}), (std::vector<int>{0}));  // rank 0 itself is the odd one
  EXPECT_TRUE(ranks_off_majority({5, 5, 5}).empty());
  EXPECT_EQ(ranks_off_majority({1, 2}), (std::vector<int>{1}));  // a tie: rank 0's value is the reference
  EXPECT_TRUE(ranks_off_majority({}).empty());
}

// Issue 69 item 7: with -g N one process holds N ranks' results; every one
// is screened (only local rank 0's was). Three local ranks in one process
// (SoloComm); the third GPU's result differs from the others' at repeat 2,
// then rank 1's copy gets a flipped bit: each is named.
TEST(Bitwise, EveryLocalRankIsScreened) {
  SoloComm comm;
  HostMemory mem;
  constexpr std::size_t kBytes = 64;
  std::vector<std::vector<unsigned char>> result(3, std::vector<unsigned char>(kBytes, 0x11));
  int repeat = 0;
  const auto run_once = [&] {
    ++repeat;
    for (auto& r : result) std::memset(r.data(), 0x11, kBytes);
    if (repeat == 2) result[2][40] = 0x13;  // rank 2 (GPU 2) differs between repeats
  };
  std::vector<BitwiseRegion> regions;
  for (int r = 0; r < 3; ++r)
    regions.push_back(BitwiseRegion{r, result[static_cast<std::size_t>(r)].data(), kBytes, 0});
  BitwiseOutcome b = check_bitwise(3, comm, mem, run_once, regions, 4, true);
  EXPECT_EQ(b.differing, 1u);
  EXPECT_NE(b.first.find("rank 2 ("), std::string::npos) << b.first;
  EXPECT_NE(b.first.find("repeat 2 differs from repeat 1 at element 10, bit 1"), std::string::npos) << b.first;

  // Across local ranks: rank 1's first repeat holds another result (a flipped bit).
  repeat = 10;
  regions[1].flip_at_repeat = 1;
  b = check_bitwise(2, comm, mem, run_once, regions, 4, true);
  EXPECT_TRUE(b.across_ranks);
  EXPECT_NE(b.first.find("rank 1 ("), std::string::npos) << b.first;
  EXPECT_NE(b.first.find("holds another result than the other 2 ranks, first at element 8, bit 0"), std::string::npos)
      << b.first;
  EXPECT_GE(b.differing, 1u);

  // Identical everywhere: nothing said.
  regions[1].flip_at_repeat = 0;
  b = check_bitwise(3, comm, mem, run_once, regions, 4, true);
  EXPECT_EQ(b.differing, 0u);
  EXPECT_EQ(b.first, "");
}

}  // namespace
}  // namespace ccb
