#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "collectives/nccl/nccl_log.hpp"

namespace ccb {
namespace {

NcclTransports parse_fixture(const std::string& name) {
  std::ifstream in(std::string(CCBENCH_FIXTURES) + "/nccl_logs/" + name);
  EXPECT_TRUE(in.good()) << name;
  return parse_nccl_log(in);
}

using Set = std::set<std::string>;

}  // namespace

TEST(NcclLog, SingleNodeNvlinkWithNvls) {
  const NcclTransports t = parse_fixture("nvlink_8gpu.log");
  EXPECT_EQ(t.classes, (Set{"nvls", "p2p"}));  // "24 collnet channels" is available, not used
  EXPECT_EQ(t.transports, (Set{"NVLS", "P2P/CUMEM/read"}));
  EXPECT_EQ(t.connections, 3);
}

TEST(NcclLog, TwoNodesOverInfiniband) {
  const NcclTransports t = parse_fixture("ib_2node.log");
  EXPECT_EQ(t.classes, (Set{"p2p", "rdma"}));
  EXPECT_EQ(t.transports, (Set{"NET/IB/1/GDRDMA", "P2P/IPC", "P2P/direct pointer"}));
  EXPECT_EQ(t.network, "IB");
  EXPECT_EQ(t.connections, 4);
}

TEST(NcclLog, SocketFallbackIsTcp) {
  const NcclTransports t = parse_fixture("socket_fallback.log");
  EXPECT_EQ(t.classes, (Set{"shm", "tcp"}));
  EXPECT_EQ(t.network, "Socket");
  EXPECT_EQ(t.connections, 3);  // the WARN line is not a connection
}

TEST(NcclLog, NetworkPlugins) {
  const NcclTransports t = parse_fixture("plugins.log");
  EXPECT_EQ(t.classes, (Set{"collnet", "net", "rdma"}));
  EXPECT_EQ(t.network, "AWS Libfabric");
}

TEST(NcclLog, TransportClasses) {
  EXPECT_EQ(transport_class("P2P/CUMEM"), "p2p");
  EXPECT_EQ(transport_class("SHM/direct/direct"), "shm");
  EXPECT_EQ(transport_class("NET/IB/0/GDRDMA"), "rdma");
  EXPECT_EQ(transport_class("NET/IBext_v8/1"), "rdma");
  EXPECT_EQ(transport_class("NET/Socket/0"), "tcp");
  EXPECT_EQ(transport_class("NET/AWS Libfabric/0"), "rdma");
  EXPECT_EQ(transport_class("NET/FastSock/1"), "net");
  EXPECT_EQ(transport_class("something"), "other");
}

TEST(NcclLog, IgnoresLinesThatAreNotNcclInfo) {
  NcclTransports t;
  parse_nccl_log_line("random text via P2P/IPC", t);
  parse_nccl_log_line("host:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via ", t);
  parse_nccl_log_line("host:1:2 [0] NCCL INFO 16 coll channels, 0 nvls channels, 16 p2p channels", t);
  parse_nccl_log_line("", t);
  EXPECT_TRUE(t.classes.empty());
  EXPECT_EQ(t.connections, 0);
}

TEST(NcclLog, MergeUnitesRanks) {
  NcclTransports a, b;
  parse_nccl_log_line("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC", a);
  parse_nccl_log_line("h:1:2 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[0] [send] via NET/Socket/0", b);
  a.merge(b);
  EXPECT_EQ(a.classes, (Set{"p2p", "tcp"}));
  EXPECT_EQ(a.connections, 2);
}

TEST(NcclLog, PathMismatch) {
  EXPECT_EQ(path_mismatch(PathRequest::automatic, {"tcp"}, 2), "");
  EXPECT_EQ(path_mismatch(PathRequest::rdma, {"rdma", "p2p"}, 2), "");
  EXPECT_EQ(path_mismatch(PathRequest::rdma, {"tcp", "p2p"}, 2),
            "requested rdma, but NCCL used tcp (observed: p2p, tcp)");
  EXPECT_EQ(path_mismatch(PathRequest::rdma, {"p2p"}, 1), "requested rdma, but no connection used it (observed: p2p)");
  EXPECT_EQ(path_mismatch(PathRequest::nvlink, {"p2p", "nvls"}, 1), "");
  EXPECT_EQ(path_mismatch(PathRequest::nvlink, {"shm"}, 1), "requested nvlink, but NCCL used shm (observed: shm)");
  EXPECT_EQ(path_mismatch(PathRequest::nvlink, {"p2p", "rdma"}, 2), "");  // across nodes a network is expected
  EXPECT_EQ(path_mismatch(PathRequest::nvlink, {"p2p", "rdma"}, 1), "requested nvlink, but NCCL used rdma (observed: p2p, rdma)");
  EXPECT_EQ(path_mismatch(PathRequest::shm, {"shm"}, 1), "");
  EXPECT_EQ(path_mismatch(PathRequest::tcp, {"tcp", "shm"}, 2), "");
  EXPECT_EQ(path_mismatch(PathRequest::tcp, {}, 2), "requested tcp, but NCCL reported no connection");
}

}  // namespace ccb
