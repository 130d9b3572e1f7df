#include <gtest/gtest.h>

#include "harness/run_info.hpp"
#include "harness/topo/binding.hpp"
#include "commands/topo_command.hpp"
#include "harness/topo/topology.hpp"

namespace ccb {
namespace {

const NodeTopology& dgx() {
  static const NodeTopology t = load_topology(std::string(CCBENCH_FIXTURES) + "/topology/dgx-like.xml");
  return t;
}
const NodeTopology& cloud() {
  static const NodeTopology t = load_topology(std::string(CCBENCH_FIXTURES) + "/topology/cloud-vm.xml");
  return t;
}

using Strings = std::vector<std::string>;

}  // namespace

TEST(Topology, DgxLikeNode) {
  const NodeTopology& t = dgx();
  EXPECT_EQ(t.host, "dgx-like");
  EXPECT_EQ(t.packages, 2);
  EXPECT_EQ(t.cores, 8);
  ASSERT_EQ(t.numa.size(), 2u);
  EXPECT_EQ(t.numa[1].cpus, "4-7");
  ASSERT_EQ(t.gpus.size(), 8u);
  ASSERT_EQ(t.nics.size(), 8u);
  for (int g = 0; g < 8; ++g) EXPECT_EQ(t.gpus[g].numa, g / 4) << g;
  EXPECT_EQ(t.gpus[0].bus_id, "0000:12:00.0");
  EXPECT_EQ(t.gpus[0].model, "GH100 [H200 SXM 141GB]");
  EXPECT_EQ(t.nics[3].name, "mlx5_3");
  EXPECT_EQ(t.nics[3].kind, "rdma");
  EXPECT_EQ(t.nics[3].link_speed, "400 Gb/sec");
}

// What the fixture implies (tests/fixtures/topology/make_fixtures.py): under
// host bridge k, GPU 2k sits on one switch port, GPU 2k+1 and NICs 2k, 2k+1
// behind a second switch; host bridges 0-1 on socket 0, 2-3 on socket 1.
TEST(Topology, DgxLikeDistancesFollowThePciTree) {
  const NodeTopology& t = dgx();
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) EXPECT_EQ(t.gpu_gpu[i][j], i == j ? "X" : "NV18") << i << "," << j;
  for (int g = 0; g < 8; ++g)
    for (int n = 0; n < 8; ++n) {
      std::string want;
      if (g / 2 == n / 2) want = g % 2 == 1 ? "PIX" : "PXB";  // same host bridge
      else if (g / 4 == n / 4) want = "NODE";                 // same socket
      else want = "SYS";
      EXPECT_EQ(t.gpu_nic[g][n], want) << "GPU" << g << " NIC" << n;
    }
}

TEST(Topology, CloudVmIsFlat) {
  const NodeTopology& t = cloud();
  ASSERT_EQ(t.gpus.size(), 8u);
  ASSERT_EQ(t.nics.size(), 4u);
  for (const auto& g : t.gpus) EXPECT_EQ(g.numa, -1);
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) EXPECT_EQ(t.gpu_gpu[i][j], i == j ? "X" : "PHB");
    for (int n = 0; n < 4; ++n) EXPECT_EQ(t.gpu_nic[i][n], "PHB");
  }
  EXPECT_EQ(t.nics[0].kind, "ethernet");
  EXPECT_EQ(t.nics[0].link_speed, "100 Gb/sec");
}

TEST(Topology, ThisMachineLoads) {
  const NodeTopology t = load_topology();
  EXPECT_EQ(t.source, "this machine");
  EXPECT_GE(t.pus, 1);
  EXPECT_GE(t.numa.size(), 1u);
  EXPECT_FALSE(t.host.empty());
  EXPECT_NE(topology_text(t).find("(this machine)"), std::string::npos);
}

TEST(Topology, MissingXmlIsAnError) { EXPECT_THROW(load_topology("/nonexistent/topo.xml"), std::runtime_error); }

TEST(Topology, JsonRoundTripsAndFingerprintsIgnoreTheHost) {
  NodeTopology a = dgx();
  const NodeTopology b = topology_from_json(topology_json(a));
  EXPECT_EQ(topology_json(b), topology_json(a));
  a.host = "another-host";
  EXPECT_EQ(topology_fingerprint(a), topology_fingerprint(dgx()));
  EXPECT_NE(topology_fingerprint(cloud()), topology_fingerprint(dgx()));
}

TEST(Topology, GroupNodesOncePerHost) {
  NodeTopology a = dgx(), b = dgx(), c = cloud();
  a.host = "a";
  b.host = "b";
  c.host = "c";
  const auto groups = group_nodes({a, b, c, a});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].hosts, (Strings{"a", "b"}));
  EXPECT_EQ(groups[1].hosts, (Strings{"c"}));
}

TEST(Topology, CpuLists) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(format_cpu_list({}), "");
  EXPECT_EQ(numa_of_cpus(dgx(), {3, 4}), (std::vector<int>{0, 1}));
}

TEST(Binding, NearestNic) {
  for (int g = 0; g < 8; ++g) EXPECT_EQ(nearest_nic(dgx(), g, 0), g) << g;  // PIX/PXB pairs, taking turns
  EXPECT_EQ(nearest_nic(cloud(), 5, 0), 1);                                 // all PHB: GPU mod NICs
  EXPECT_EQ(nearest_nic(dgx(), -1, 9), 1);                                  // no GPU: round robin
}

TEST(Binding, AutoGoesNearTheGpu) {
  const std::vector<int> gpus{0, 1, 2, 3, 4, 5, 6, 7};
  const BindPlan p = plan_binding(dgx(), BindPolicy::automatic, 5, gpus, {0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(p.numa, 1);
  EXPECT_EQ(p.cpus, "4-7");
  EXPECT_EQ(p.reason, "near GPU5");
  // A launcher binding already inside that node is kept.
  const BindPlan kept = plan_binding(dgx(), BindPolicy::automatic, 5, gpus, {5});
  EXPECT_EQ(kept.cpus, "");
  // numa rebinds anyway; core takes one core per rank placed on the node.
  EXPECT_EQ(plan_binding(dgx(), BindPolicy::numa, 5, gpus, {5}).cpus, "4-7");
  EXPECT_EQ(plan_binding(dgx(), BindPolicy::core, 5, gpus, {}).cpus, "5");
  EXPECT_EQ(plan_binding(dgx(), BindPolicy::core, 2, gpus, {}).cpus, "2");
  EXPECT_EQ(plan_binding(dgx(), BindPolicy::none, 5, gpus, {}).cpus, "");
}

TEST(Binding, WithoutGpuLocalityNicThenSpread) {
  // Cloud VM: GPUs and NICs have no NUMA node: ranks spread over the nodes.
  const std::vector<int> gpus{0, 1, 2};
  EXPECT_EQ(plan_binding(cloud(), BindPolicy::automatic, 0, gpus, {}).cpus, "0-3");
  EXPECT_EQ(plan_binding(cloud(), BindPolicy::automatic, 1, gpus, {}).cpus, "4-7");
  EXPECT_EQ(plan_binding(cloud(), BindPolicy::automatic, 1, gpus, {}).reason, "spread across NUMA nodes");
  // DGX without GPUs: the rank's NIC decides (round robin, NIC 6 on socket 1).
  const BindPlan p = plan_binding(dgx(), BindPolicy::automatic, 6, {-1, -1, -1, -1, -1, -1, -1}, {});
  EXPECT_EQ(p.reason, "near NIC mlx5_6");
  EXPECT_EQ(p.numa, 1);
}

TEST(Binding, WrongBindingIsWarned) {
  const auto w = binding_warnings(dgx(), {0, 1, 2, 3}, 1, 6);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0], "GPU6 (0000:a2:00.0) is on NUMA node 1, but the rank's cores 0-3 are on NUMA node 0");
  EXPECT_EQ(w[1], "memory is bound to NUMA node 1, but the rank's cores 0-3 are on NUMA node 0");
  EXPECT_TRUE(binding_warnings(dgx(), {4, 5}, 1, 6).empty());
  EXPECT_TRUE(binding_warnings(cloud(), {0}, -1, 6).empty());  // no locality to contradict
}

TEST(Binding, PlanTextShowsTheWarnings) {
  const std::string none = binding_plan_text(dgx(), BindPolicy::none, 8, {0, 1, 2, 3});
  EXPECT_NE(none.find("WARNING: rank 7: GPU7"), std::string::npos) << none;
  EXPECT_EQ(none.find("WARNING: rank 3"), std::string::npos) << none;
  const std::string fixed = binding_plan_text(dgx(), BindPolicy::automatic, 8, {0, 1, 2, 3});
  EXPECT_EQ(fixed.find("WARNING"), std::string::npos) << fixed;
}

TEST(Binding, Policies) {
  EXPECT_EQ(parse_setting<BindPolicy>("core"), BindPolicy::core);
  EXPECT_FALSE(parse_setting<BindPolicy>("socket").has_value());
  EXPECT_EQ(setting_name(BindPolicy::automatic), "auto");
}

TEST(Provenance, NodeDifferences) {
  const NodeRecord a{"fa", {"a"}, topology_json(dgx()).dump()};
  const NodeRecord c{"fc", {"c"}, topology_json(cloud()).dump()};
  RankPlacement pa, pc;
  pa.host = "a";
  pc.host = "c";
  pa.versions = pc.versions = "cuda driver 12080 runtime 13000, nccl 2.28.9";
  EXPECT_TRUE(node_differences({a}, {pa}).empty());
  const auto d = node_differences({a, c}, {pa, pc});
  ASSERT_EQ(d.size(), 1u);  // same GPU model and count; NIC speeds differ
  EXPECT_EQ(d[0], "NIC link speed differs: 4x 100 Gb/sec on 1 host(s) (first c); 8x 400 Gb/sec on 1 host(s) (first a)");
  pc.versions = "cuda driver 12020 runtime 13000, nccl 2.21.5";
  EXPECT_EQ(node_differences({a, c}, {pa, pc}).size(), 2u);
}

}  // namespace ccb
