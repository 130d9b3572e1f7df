#include <gtest/gtest.h>

#include "collectives/collective.hpp"

namespace ccb {

TEST(Collective, BusFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(bus_factor(*find_collective("all_reduce"), 4), 1.5);
  EXPECT_DOUBLE_EQ(bus_factor(*find_collective("all_gather"), 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_factor(*find_collective("reduce_scatter"), 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_factor(*find_collective("alltoall"), 2), 0.5);
  EXPECT_DOUBLE_EQ(bus_factor(*find_collective("gather"), 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_factor(*find_collective("scatter"), 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_factor(*find_collective("broadcast"), 4), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(*find_collective("reduce"), 4), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(*find_collective("sendrecv"), 4), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(*find_collective("bi_bw"), 4), 2.0);
  EXPECT_DOUBLE_EQ(bus_factor(*find_collective("all_reduce"), 1), 0.0);
}

TEST(Collective, TableIsConsistent) {
  for (const auto& c : all_collectives()) {
    EXPECT_EQ(&collective(c.id), &c);
    EXPECT_EQ(find_collective(c.name), &c);
    // A per-rank chunk on either side only exists for split collectives.
    if (c.send_extent == Extent::chunk || c.recv_extent == Extent::chunk) {
      EXPECT_TRUE(c.split) << c.name;
    }
    // Offsets by rank chunk only make sense when there are chunks.
    if (c.in_place_send == Offset::rank_chunk || c.source_offset == Offset::rank_chunk) {
      EXPECT_TRUE(c.split) << c.name;
    }
    // Reductions take their result from a reduction, nothing else does.
    EXPECT_EQ(c.reduces, c.source == Source::reduction) << c.name;
    EXPECT_EQ(c.point_to_point, c.source == Source::peer) << c.name;
  }
  EXPECT_EQ(find_collective("allreduce"), nullptr);
}

TEST(Collective, PairsFirstHalfWithSecondHalf) {
  EXPECT_EQ(pair_partner(0, 4), 2);
  EXPECT_EQ(pair_partner(3, 4), 1);
  EXPECT_EQ(pair_partner(0, 3), 1);
  EXPECT_EQ(pair_partner(1, 3), 0);
  EXPECT_FALSE(pair_partner(2, 3).has_value());
  EXPECT_FALSE(pair_partner(0, 1).has_value());
}

TEST(Collective, WhoHoldsAResult) {
  const Collective& reduce = *find_collective("reduce");
  EXPECT_TRUE(holds_result(reduce, 2, 4, 2));
  EXPECT_FALSE(holds_result(reduce, 1, 4, 2));
  const Collective& uni = *find_collective("uni_bw");
  EXPECT_FALSE(holds_result(uni, 0, 4, 0));
  EXPECT_TRUE(holds_result(uni, 2, 4, 0));
  EXPECT_TRUE(holds_result(uni, 2, 5, 0));   // receiver paired with 0
  EXPECT_FALSE(holds_result(uni, 4, 5, 0));  // odd count: the last rank has no partner
  EXPECT_FALSE(holds_result(*find_collective("bi_bw"), 2, 3, 0));
  EXPECT_TRUE(holds_result(*find_collective("all_gather"), 2, 3, 0));
}

TEST(Collective, ExtentsAndOffsets) {
  EXPECT_EQ(elements(Extent::count, 12, 4), 12u);
  EXPECT_EQ(elements(Extent::chunk, 12, 4), 4u);
  EXPECT_EQ(offset_elements(Offset::zero, 3, 4), 0u);
  EXPECT_EQ(offset_elements(Offset::rank_chunk, 3, 4), 12u);
}

}  // namespace ccb
