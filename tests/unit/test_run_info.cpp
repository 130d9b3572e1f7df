#include <gtest/gtest.h>

#include "harness/run_info.hpp"
#include "results/json_records.hpp"

namespace ccb {

TEST(RunInfo, RecordsOnlyRelevantVariables) {
  const char* env[] = {"NCCL_DEBUG=INFO", "HOME=/root", "PATH=/bin", "SLURM_JOB_ID=7", "UCX_TLS=rc", nullptr};
  const auto out = capture_environment(env);
  EXPECT_EQ(out.size(), 3u);
  EXPECT_EQ(out.at("NCCL_DEBUG"), "INFO");
  EXPECT_FALSE(out.contains("HOME"));
}

TEST(RunInfo, PlantedSecretsNeverReachTheRecord) {
  const char* env[] = {"NCCL_IB_TOKEN=s3cr3t-1",
                       "OMPI_MCA_password=s3cr3t-2",
                       "SLURM_AUTH_INFO=s3cr3t-3",
                       "CUDA_API_KEY=s3cr3t-4",
                       "UCX_SESSION_ID=s3cr3t-5",
                       "CCBENCH_COOKIE=s3cr3t-6",
                       "NCCL_CREDENTIALS=s3cr3t-7",
                       "SLURM_SECRET=s3cr3t-8",
                       "OMPI_PASSWD=s3cr3t-9",
                       "NCCL_SOCKET_IFNAME=eth0",
                       nullptr};
  RunInfo r;
  r.environment = capture_environment(env);
  const std::string text = run_to_json(r).dump();
  EXPECT_EQ(text.find("s3cr3t"), std::string::npos) << text;
  EXPECT_NE(text.find("eth0"), std::string::npos);
  EXPECT_EQ(r.environment.at("NCCL_IB_TOKEN"), kRedacted);
}

TEST(RunInfo, SecretLookingNamesAreCaseInsensitive) {
  EXPECT_TRUE(looks_secret("ompi_mca_api_key"));
  EXPECT_TRUE(looks_secret("NCCL_Session"));
  EXPECT_FALSE(looks_secret("NCCL_DEBUG"));
}

TEST(RunInfo, PlacementRoundTrips) {
  RankPlacement p;
  p.rank = 3;
  p.host = "node-7";
  p.pid = 1234;
  p.local_rank = 1;
  p.cpu = 5;
  p.bound_cpus = "4-7";
  p.devices = {2, 3};
  p.bind_policy = "auto";
  p.cpu_numa = {1};
  p.gpus = {"0000:72:00.0"};
  p.warnings = {"w"};
  p.node = "abc";
  const RankPlacement q = placement_from_json(placement_to_json(p));
  EXPECT_EQ(q.rank, 3);
  EXPECT_EQ(q.host, "node-7");
  EXPECT_EQ(q.bound_cpus, "4-7");
  EXPECT_EQ(q.devices, (std::vector<int>{2, 3}));
  EXPECT_EQ(q.bind_policy, "auto");
  EXPECT_EQ(q.cpu_numa, (std::vector<int>{1}));
  EXPECT_EQ(q.gpus, (std::vector<std::string>{"0000:72:00.0"}));
  EXPECT_EQ(q.warnings, (std::vector<std::string>{"w"}));
  EXPECT_EQ(q.node, "abc");
}

TEST(RunInfo, TimestampIsIsoUtc) {
  const std::string t = utc_now_iso8601();
  ASSERT_EQ(t.size(), 24u);
  EXPECT_EQ(t[10], 'T');
  EXPECT_EQ(t.back(), 'Z');
}

}  // namespace ccb
