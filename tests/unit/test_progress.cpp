#include <gtest/gtest.h>

#include "harness/progress.hpp"

namespace ccb {

TEST(Progress, EstimateScalesWithWorkLeft) {
  EXPECT_DOUBLE_EQ(Progress::estimate_left(10, 25, 100), 30);
  EXPECT_DOUBLE_EQ(Progress::estimate_left(10, 0, 100), 0);
  EXPECT_DOUBLE_EQ(Progress::estimate_left(10, 100, 100), 0);
  EXPECT_GT(Progress::weight(0), 0);
  EXPECT_GT(Progress::weight(1 << 20), Progress::weight(1 << 10));
}

}  // namespace ccb
