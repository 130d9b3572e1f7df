#include <gtest/gtest.h>

#include "harness/backends.hpp"
#include "common/errors.hpp"

namespace ccb {

TEST(Backends, DevicesAreConsecutiveBlocksPerLocalRank) {
  EXPECT_EQ(choose_devices(0, 8, 1, 8, "h"), (std::vector<int>{0}));
  EXPECT_EQ(choose_devices(5, 8, 1, 8, "h"), (std::vector<int>{5}));
  EXPECT_EQ(choose_devices(1, 2, 4, 8, "h"), (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(choose_devices(0, 1, 8, 8, "h"), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(Backends, LauncherIsolatedGpusAreUsedAsSeen) {
  // srun --gpus-per-task=1: each rank sees only its own GPU, as device 0.
  EXPECT_EQ(choose_devices(3, 8, 1, 1, "h"), (std::vector<int>{0}));
  EXPECT_EQ(choose_devices(1, 4, 2, 2, "h"), (std::vector<int>{0, 1}));
}

TEST(Backends, TooFewGpusIsAUsageError) {
  try {
    choose_devices(0, 4, 2, 6, "node9");
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "-g/--ngpus 2: 4 processes on node9 need 8 GPUs, but 6 are visible to each");
  }
}

// nccl-tests' NCCL_TESTS_DEVICE: every process starts at that GPU.
TEST(Backends, NcclTestsDeviceSetsTheFirstGpu) {
  EXPECT_EQ(choose_devices(3, 4, 2, 8, "h", 4), (std::vector<int>{4, 5}));
  EXPECT_EQ(first_device_from(nullptr), std::nullopt);
  EXPECT_EQ(first_device_from("2"), 2);
  EXPECT_THROW(first_device_from("gpu1"), UsageError);
  EXPECT_THROW(first_device_from("-1"), UsageError);
  try {
    choose_devices(0, 1, 2, 4, "node3", 3);
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "NCCL_TESTS_DEVICE=3 with -g/--ngpus 2: GPU 4 requested, but 4 are visible on node3");
  }
}

}  // namespace ccb
