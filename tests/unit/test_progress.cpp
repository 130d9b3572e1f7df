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

TEST(Progress, TheLastPointRaisesTheEstimate) {
  // 2 s spent on 25 of 100 weight, the last point 1.5 s for 10 of it: the
  // last rate (0.15 s per unit) predicts 75 x 0.15 = 11.25 s, the average 6.
  EXPECT_DOUBLE_EQ(Progress::estimate_left(2, 25, 100, 1.5, 10), 11.25);
  EXPECT_DOUBLE_EQ(Progress::estimate_left(2, 25, 100, 0.1, 10), 6);
}

TEST(Progress, AutoIsLiveOnATerminalAndLinesUnderALauncher) {
  EXPECT_EQ(Progress::choose(ProgressMode::automatic, true, false), Progress::Style::live);
  EXPECT_EQ(Progress::choose(ProgressMode::automatic, false, true), Progress::Style::lines);
  EXPECT_EQ(Progress::choose(ProgressMode::automatic, false, false), Progress::Style::off);
  EXPECT_EQ(Progress::choose(ProgressMode::on, false, false), Progress::Style::live);
  EXPECT_EQ(Progress::choose(ProgressMode::off, true, true), Progress::Style::off);
}

}  // namespace ccb
