#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

#include "collectives/nccl/nccl_env.hpp"

namespace ccb {

TEST(NcclEnv, PathTable) {
  using V = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(nccl_path_environment(PathRequest::automatic), V{});
  EXPECT_EQ(nccl_path_environment(PathRequest::nvlink), (V{{"NCCL_P2P_LEVEL", "NVL"}}));
  EXPECT_EQ(nccl_path_environment(PathRequest::pcie), (V{{"NCCL_P2P_LEVEL", "PHB"}, {"NCCL_NVLS_ENABLE", "0"}}));
  EXPECT_EQ(nccl_path_environment(PathRequest::shm), (V{{"NCCL_P2P_DISABLE", "1"}, {"NCCL_NVLS_ENABLE", "0"}}));
  EXPECT_EQ(nccl_path_environment(PathRequest::rdma), (V{{"NCCL_IB_DISABLE", "0"}}));  // no plugin named
  EXPECT_EQ(nccl_path_environment(PathRequest::tcp), (V{{"NCCL_NET", "Socket"}, {"NCCL_IB_DISABLE", "1"}}));
}

// --path pcie cannot turn NVLink off: said when the topology has NVLink
// between two GPUs, not for PCIe-only nodes.
TEST(NcclEnv, PcieRequestWarnsWhenGpusHaveNvlink) {
  using M = std::vector<std::vector<std::string>>;
  EXPECT_EQ(pcie_request_warning(M{}), "");
  EXPECT_EQ(pcie_request_warning(M{{"X", "PIX"}, {"PIX", "X"}}), "");
  EXPECT_EQ(pcie_request_warning(M{{"X", "SYS", "PHB"}, {"SYS", "X", "NODE"}, {"PHB", "NODE", "X"}}), "");
  const std::string w = pcie_request_warning(M{{"X", "PIX", "SYS"}, {"PIX", "X", "NV18"}, {"SYS", "NV18", "X"}});
  EXPECT_NE(w.find("GPUs 1 and 2 here are joined by NV18"), std::string::npos) << w;
  EXPECT_NE(w.find("cannot exclude NVLink"), std::string::npos) << w;
}

TEST(NcclEnv, ExpandsHostAndPid) {
  EXPECT_EQ(expand_nccl_debug_file("/x/nccl.%h.%p.log", "node3", 42), "/x/nccl.node3.42.log");
  EXPECT_EQ(expand_nccl_debug_file("plain%", "h", 1), "plain%");
  EXPECT_EQ(expand_nccl_debug_file("%q%h", "h", 1), "%qh");
}

TEST(NcclEnv, RequestSetsPathAndLog) {
  for (const char* v : {"NCCL_NET", "NCCL_IB_DISABLE", "NCCL_DEBUG", "NCCL_DEBUG_FILE"}) unsetenv(v);
  const std::string file = request_nccl_path(PathRequest::tcp, "/tmp");
  EXPECT_STREQ(std::getenv("NCCL_NET"), "Socket");
  EXPECT_STREQ(std::getenv("NCCL_IB_DISABLE"), "1");
  EXPECT_STREQ(std::getenv("NCCL_DEBUG"), "INFO");
  EXPECT_STREQ(std::getenv("NCCL_DEBUG_FILE"), "/tmp/nccl.%h.%p.log");
  EXPECT_NE(file.find("/tmp/nccl."), std::string::npos);
  const std::string pid = std::to_string(getpid());
  EXPECT_NE(file.find(pid), std::string::npos);
  EXPECT_EQ(file.substr(file.size() - 4), ".log");
  // A file the user chose is kept (and expanded the same way).
  setenv("NCCL_DEBUG_FILE", "/tmp/mine.%p", 1);
  EXPECT_EQ(request_nccl_path(PathRequest::automatic, ""), std::string("/tmp/mine.").append(pid));
  for (const char* v : {"NCCL_NET", "NCCL_IB_DISABLE", "NCCL_DEBUG", "NCCL_DEBUG_FILE"}) unsetenv(v);
}

}  // namespace ccb
