// --bitwise's pure parts (harness/bitwise.hpp): where two results differ, and
// which ranks hold another result than most.
#include <gtest/gtest.h>

#include <vector>

#include "harness/bitwise.hpp"

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

}  // namespace
}  // namespace ccb
