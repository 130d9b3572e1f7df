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
  EXPECT_EQ(transport_class("NET/gIB/0/GDRDMA"), "rdma");
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

// NCCL 2.2x connects each algorithm at its first operation (runtime connect):
// the connections before a thread's "Connected all rings" are the ring's.
TEST(NcclLog, ConnectionsBelongToTheAlgorithmThatSetThemUp) {
  const NcclTransports t = parse_fixture("runtime_connect_tuning.log");
  EXPECT_EQ(t.algorithms, (Set{"NVLS/Simple/16ch", "RING/LL128/16ch", "TREE/LL/1ch"}));
  EXPECT_EQ(t.by_setup.at("tree"), (Set{"P2P/CUMEM/read"}));
  EXPECT_EQ(t.by_setup.at("ring"), (Set{"NET/IB/0/GDRDMA", "P2P/CUMEM/read"}));  // thread 3396, across 3395's lines
  EXPECT_EQ(t.by_setup.at("nvls"), (Set{"NVLS"}));
  EXPECT_EQ(t.by_setup.at("p2p"), (Set{"NET/IB/0/GDRDMA/Shared", "P2P/CUMEM/read"}));  // connection index 1
  EXPECT_TRUE(t.pending.empty());
  EXPECT_EQ(t.connections, 6);  // "Channel 00/16 :    0   1 ..." lists a ring, it is not a connection
}

TEST(NcclLog, TransportsUsedByAPointsAlgorithms) {
  const NcclTransports t = parse_fixture("runtime_connect_tuning.log");
  EXPECT_EQ(transports_used_by(t, {"TREE/LL/1ch"}), (Set{"P2P/CUMEM/read"}));
  EXPECT_EQ(transports_used_by(t, {"RING/LL128/16ch"}), (Set{"NET/IB/0/GDRDMA", "P2P/CUMEM/read"}));
  EXPECT_EQ(transports_used_by(t, {"NVLS/Simple/16ch", "TREE/LL/1ch"}), (Set{"NVLS", "P2P/CUMEM/read"}));
  EXPECT_EQ(transports_used_by(t, {}), (Set{"NET/IB/0/GDRDMA/Shared", "P2P/CUMEM/read"}));  // point-to-point
  EXPECT_EQ(transports_used_by(t, {"PAT/Simple/1ch"}), Set{});               // never connected, nothing pending: none
  EXPECT_EQ(transports_used_by(t, {"SOMETHING_NEW/LL/1ch"}), std::nullopt);  // an algorithm ccbench cannot place
}

TEST(NcclLog, ConnectionsNotYetAttributedMakeTheAnswerUnknown) {
  NcclTransports t;
  parse_nccl_log_line("h:1:7 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC", t);
  parse_nccl_log_line("h:1:8 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] [send] via NET/Socket/0", t);
  parse_nccl_log_line("h:1:7 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 0", t);
  EXPECT_EQ(transports_used_by(t, {"RING/LL/1ch"}), std::nullopt);  // thread 8's connection may be the ring's too
  EXPECT_EQ(transports_used_by(t, {"TREE/LL/1ch"}), std::nullopt);
  parse_nccl_log_line("h:1:8 [1] NCCL INFO Connected all trees", t);
  EXPECT_EQ(transports_used_by(t, {"RING/LL/1ch"}), (Set{"P2P/IPC"}));
  EXPECT_EQ(transports_used_by(t, {"TREE/LL/1ch"}), (Set{"NET/Socket/0"}));
}

TEST(NcclLog, NvlsTreeAddsItsNetworkConnections) {
  NcclTransports t;
  parse_nccl_log_line("h:1:7 [0] NCCL INFO NVLS comm 0x1 headRank 0 nHeads 4 buffSize 1048576", t);
  parse_nccl_log_line("h:1:7 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA", t);
  parse_nccl_log_line("h:1:7 [0] NCCL INFO Connected NVLS tree", t);
  EXPECT_EQ(transports_used_by(t, {"NVLS/Simple/16ch"}), (Set{"NVLS"}));
  EXPECT_EQ(transports_used_by(t, {"NVLS_TREE/Simple/16ch"}), (Set{"NET/IB/0/GDRDMA", "NVLS"}));
  EXPECT_EQ(t.classes, (Set{"nvls", "rdma"}));
}

TEST(NcclLog, TuningLines) {
  NcclTransports t;
  parse_nccl_log_line(
      "h:1:2 [0] NCCL INFO AllGather: 4096 Bytes -> Algo PAT proto Simple channel{Lo..Hi}={2..5} comm 0x1", t);
  parse_nccl_log_line("h:1:2 [0] NCCL INFO Broadcast: 64 Bytes -> Algo RING proto LL", t);  // no channel range
  parse_nccl_log_line("h:1:2 [0] NCCL INFO 37756928 Bytes -> Algo", t);                     // cut short
  EXPECT_EQ(t.algorithms, (Set{"PAT/Simple/4ch", "RING/LL"}));
}

TEST(NcclLog, DebugSubsystemsWithTuning) {
  const std::pair<const char*, const char*> with_tuning[] = {{nullptr, "INIT,BOOTSTRAP,ENV,TUNING"},
                                                             {"", "INIT,BOOTSTRAP,ENV,TUNING"},
                                                             {"INIT,NET", "INIT,NET,TUNING"},
                                                             {"init,tuning", "init,tuning"},
                                                             {"ALL", "ALL"},
                                                             {"^PROXY", "^PROXY"},
                                                             {"^TUNING,proxy", "^PROXY"},
                                                             {"^tuning", "ALL"}};
  for (const auto& [given, expected] : with_tuning) {
    EXPECT_EQ(nccl_subsys_with_tuning(given), expected) << (given ? given : "unset");
    EXPECT_TRUE(nccl_subsys_logs_tuning(expected)) << expected;
  }
  for (const char* without : {(const char*)nullptr, "", "INIT,NET", "^ALL", "^Tuning,NET"})
    EXPECT_FALSE(nccl_subsys_logs_tuning(without)) << (without ? without : "unset");
  EXPECT_TRUE(nccl_subsys_logs_tuning("INIT,Tuning"));
}

TEST(NcclLog, PathMismatch) {
  EXPECT_EQ(path_mismatch(PathRequest::automatic, {"tcp"}, 2), "");
  EXPECT_EQ(path_mismatch(PathRequest::rdma, {"rdma", "p2p"}, 2), "");
  EXPECT_EQ(path_mismatch(PathRequest::rdma, {"tcp", "p2p"}, 2),
            "requested rdma, but NCCL used tcp (observed: p2p, tcp)");
  EXPECT_EQ(path_mismatch(PathRequest::rdma, {"p2p"}, 1), "requested rdma, but no connection used it (observed: p2p)");
  // A plugin of unknown name is allowed, and no evidence of RDMA.
  EXPECT_EQ(path_mismatch(PathRequest::rdma, {"net", "p2p"}, 2),
            "requested rdma, but no connection used it (observed: net, p2p)");
  EXPECT_EQ(path_mismatch(PathRequest::nvlink, {"p2p", "nvls"}, 1), "");
  EXPECT_EQ(path_mismatch(PathRequest::nvlink, {"shm"}, 1), "requested nvlink, but NCCL used shm (observed: shm)");
  EXPECT_EQ(path_mismatch(PathRequest::nvlink, {"p2p", "rdma"}, 2), "");  // across nodes a network is expected
  EXPECT_EQ(path_mismatch(PathRequest::nvlink, {"p2p", "rdma"}, 1),
            "requested nvlink, but NCCL used rdma (observed: p2p, rdma)");
  EXPECT_EQ(path_mismatch(PathRequest::shm, {"shm"}, 1), "");
  EXPECT_EQ(path_mismatch(PathRequest::tcp, {"tcp", "shm"}, 2), "");
  EXPECT_EQ(path_mismatch(PathRequest::tcp, {}, 2), "requested tcp, but NCCL reported no connection");
}

}  // namespace ccb
