#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "collectives/nccl/nccl_env.hpp"
#include "collectives/nccl/nccl_log.hpp"
#include "common/errors.hpp"

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

// Issue 54 item 4: a NCCL_DEBUG the user set (WARN) is left alone and no
// log file is set, so NCCL's warnings reach them; INFO/TRACE is kept.
TEST(NcclEnv, AUsersDebugLevelIsRespected) {
  for (const char* v : {"NCCL_DEBUG", "NCCL_DEBUG_FILE"}) unsetenv(v);
  setenv("NCCL_DEBUG", "WARN", 1);
  EXPECT_EQ(request_nccl_path(PathRequest::automatic, "/tmp"), "");
  EXPECT_STREQ(std::getenv("NCCL_DEBUG"), "WARN");
  EXPECT_EQ(std::getenv("NCCL_DEBUG_FILE"), nullptr);
  setenv("NCCL_DEBUG", "TRACE", 1);
  EXPECT_NE(request_nccl_path(PathRequest::automatic, "/tmp"), "");
  EXPECT_STREQ(std::getenv("NCCL_DEBUG"), "TRACE");
  for (const char* v : {"NCCL_DEBUG", "NCCL_DEBUG_FILE"}) unsetenv(v);
}

// Issue 54 item 7: one log folder per user and job, 0700, checked before init.
TEST(NcclEnv, TheLogFolderIsPerUserAndJob) {
  EXPECT_EQ(nccl_log_folder(nullptr, 1000, "4711", "prterun-x-1"), "/tmp/ccbench-nccl-1000/4711");
  EXPECT_EQ(nccl_log_folder("/scratch", 0, nullptr, "prterun-node1-99@1"),
            "/scratch/ccbench-nccl-0/prterun-node1-99_1");
  EXPECT_EQ(nccl_log_folder("", 5, "", nullptr), "/tmp/ccbench-nccl-5/local");
  namespace fs = std::filesystem;
  const std::string base = testing::TempDir() + "ccb-nccl-logs";
  fs::remove_all(base);
  fs::create_directories(base);
  const std::string mine = nccl_log_folder(base.c_str(), ::geteuid(), "42", nullptr);
  prepare_nccl_log_folder(mine, true);
  struct stat st {};
  ASSERT_EQ(::stat(fs::path(mine).parent_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_TRUE(fs::is_directory(mine));
  prepare_nccl_log_folder(mine, true);  // there already: fine
  // A link planted at the user's folder is refused, not followed.
  const std::string other = base + "/elsewhere";
  fs::create_directories(other);
  const std::string planted = base + "/ccbench-nccl-" + std::to_string(::geteuid() + 1);
  fs::create_directory_symlink(other, planted);
  EXPECT_THROW(prepare_nccl_log_folder(planted + "/42", true), UsageError);
  if (::geteuid() == 0) {  // another user's folder (root can make one)
    const std::string theirs = base + "/theirs";
    fs::create_directories(theirs + "/7");
    ASSERT_EQ(::chown(theirs.c_str(), 65534, 65534), 0);
    EXPECT_THROW(prepare_nccl_log_folder(theirs + "/7", true), UsageError);
  }
  fs::remove_all(base);
}

// A failing NCCL call carries NCCL's own words (issue 54 item 4).
TEST(NcclLog, AFailureSaysWhatNcclSaid) {
  const std::string log =
      "n1:12:12 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
      "n1:12:40 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.0.0.2<41221> failed : "
      "Connection refused\n"
      "n1:12:40 [0] NCCL INFO misc/socket.cc:565 -> 2\n"
      "n1:12:40 [0] bootstrap.cc:77 NCCL WARN Bootstrap : no socket interface found\r\n";
  const auto w = last_warn_lines(log, 3);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[1], "Bootstrap : no socket interface found");
  EXPECT_EQ(last_warn_lines(log, 1).size(), 1u);
  EXPECT_TRUE(last_warn_lines("", 3).empty());
  EXPECT_EQ(nccl_failure_text("ncclCommInitRankConfig", "unhandled system error", "", w, "/tmp/l.log"),
            "ncclCommInitRankConfig: unhandled system error; NCCL WARN socketStartConnect: Connect to "
            "10.0.0.2<41221> failed : Connection refused; NCCL WARN Bootstrap : no socket interface found "
            "(NCCL's log: /tmp/l.log)");
}

}  // namespace ccb
