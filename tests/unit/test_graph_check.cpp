// Issue 69 item 1: with -G the correctness check must verify a launched
// graph, as nccl-tests does, not the direct run that precedes a capture.
// The backend here follows NcclBackend's capture plan (graph_action, the same
// pure function) on host memory, one rank: a capture runs the operation
// directly (NCCL connects on first use) and then records it; a launch
// replays it. Its direct runs leave a mark in the result (one element off),
// so a check that reads a direct run counts a wrong element, and one that
// reads a launch counts none. Per-iteration samples on shifted buffers
// capture graphs of other arguments in between, as on a GPU.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "collectives/nccl/nccl_lifecycle.hpp"
#include "harness/comm.hpp"
#include "harness/measure.hpp"
#include "kernels/host_memory.hpp"

namespace ccb {
namespace {

class GraphPlanBackend final : public Backend {
 public:
  int direct_runs = 0, launches = 0;
  std::string_view name() const override { return "graph-plan"; }
  std::string_view clock_name() const override { return "host steady clock"; }
  bool blocking() const override { return true; }
  Memory& memory() override { return mem_; }
  int ranks() const override { return 1; }
  int first_rank() const override { return 0; }
  std::size_t max_count() const override { return std::size_t{1} << 30; }
  void start_clock() override { t0_ = std::chrono::steady_clock::now(); }
  double stop_clock() override { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }
  double clock_resolution_s() const override { return 1e-9; }
  bool capture_begin() override { return capturing_ = true; }
  void capture_end() override { capturing_ = false; }
  void prepare(std::span<const OpArgs> args) override { act(args, true); }
  void run(std::span<const OpArgs> args) override { act(args, false); }

 private:
  void act(std::span<const OpArgs> args, bool preparing) {
    const bool same = !graph_args_.empty() && graph_args_.front().send == args.front().send &&
                      graph_args_.front().recv == args.front().recv && graph_args_.front().count == args.front().count;
    switch (graph_action(true, capturing_, same, preparing)) {
      case GraphAction::issue: break;  // inside the -G loop's capture: recorded, run by its launches
      case GraphAction::capture:
        execute(args.front(), true);
        graph_args_.assign(args.begin(), args.end());
        break;
      case GraphAction::launch: execute(args.front(), false); break;
      case GraphAction::nothing: break;
    }
  }
  // One rank's all_reduce (sum) is its input; a direct run marks element 0.
  void execute(const OpArgs& a, bool direct) {
    std::memmove(a.recv, a.send, a.count * sizeof(float));
    if (direct) {
      ++direct_runs;
      static_cast<float*>(a.recv)[0] += 1.0f;
    } else {
      ++launches;
    }
  }
  HostMemory mem_;
  bool capturing_ = false;
  std::vector<OpArgs> graph_args_;
  std::chrono::steady_clock::time_point t0_;
};

TEST(GraphCheck, TheCheckVerifiesTheLaunchedGraph) {
  GraphPlanBackend backend;
  SoloComm comm;
  Config cfg;
  cfg.cuda_graph = 1;
  cfg.timing = TimingMode::both;
  cfg.iters = 4;
  cfg.warmup = 0;
  cfg.check = 1;
  const std::size_t count = 256, bytes = count * sizeof(float);
  Memory& mem = backend.memory();
  PointBuffers buffers;
  buffers.send = mem.allocate(4 * bytes, 0);
  buffers.recv = mem.allocate(4 * bytes, 0);
  buffers.recv_capacity_count = 4 * count;
  buffers.shift_bytes = 4 * bytes;  // the buffer shift: samples on other arguments in between
  OpArgs args;
  args.coll = &collective(CollectiveId::all_reduce);
  args.dtype = DType::float32;
  args.op = ReduceOp::sum;
  args.count = args.chunk = count;
  Watchdog watchdog(0, 0, "test");
  Measurement out;
  measure_placement(backend, comm, cfg, args, {&buffers, 1}, Faults{}, watchdog, Comm::ClockOffset{}, out);
  ASSERT_TRUE(out.wrong.has_value()) << out.note;
  EXPECT_EQ(*out.wrong, 0u) << "the check read a direct run (" << backend.direct_runs << " direct, " << backend.launches
                            << " launches)";
  EXPECT_GT(backend.launches, 0);
  mem.release(buffers.send);
  mem.release(buffers.recv);
}

}  // namespace
}  // namespace ccb
