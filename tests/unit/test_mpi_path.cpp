#include <gtest/gtest.h>

#include <cstdlib>

#include "harness/mpi_path.hpp"
#include "common/errors.hpp"

namespace ccb {

TEST(MpiPath, ParsesProcNetDev) {
  const std::string text =
      "Inter-|   Receive                                                |  Transmit\n"
      " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier "
      "compressed\n"
      "    lo: 1000      10    0    0    0     0          0         0     2000      20    0    0    0     0       0    "
      "      0\n"
      "  eth0: 5000      50    0    0    0     0          0         0     7000      70    0    0    0     0       0    "
      "      0\n"
      "veth1:300 3 0 0 0 0 0 0 400 4 0 0 0 0 0 0\n";
  const NetCounters c = parse_proc_net_dev(text);
  EXPECT_EQ(c.loopback_tx, 2000u);
  EXPECT_EQ(c.other_tx, 7400u);
}

TEST(MpiPath, RequestSetsOpenMpiParameters) {
  unsetenv("OMPI_MCA_pml");
  unsetenv("OMPI_MCA_btl");
  request_mpi_path(PathRequest::tcp);
  EXPECT_STREQ(std::getenv("OMPI_MCA_pml"), "ob1");
  EXPECT_STREQ(std::getenv("OMPI_MCA_btl"), "self,tcp");
  request_mpi_path(PathRequest::shm);
  EXPECT_STREQ(std::getenv("OMPI_MCA_btl"), "self,vader");
  unsetenv("OMPI_MCA_pml");
  unsetenv("OMPI_MCA_btl");
  request_mpi_path(PathRequest::automatic);
  EXPECT_EQ(std::getenv("OMPI_MCA_pml"), nullptr);
}

TEST(MpiPath, RdmaWithoutDevicesIsAUsageError) {
  if (std::system("test -d /sys/class/infiniband && test -n \"$(ls /sys/class/infiniband)\"") == 0)
    GTEST_SKIP() << "this host has RDMA devices";
  EXPECT_THROW(request_mpi_path(PathRequest::rdma), UsageError);
}

}  // namespace ccb
