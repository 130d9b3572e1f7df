#include "commands/copy_bench.hpp"
#include "common/redact.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "harness/comm.hpp"
#include "harness/run_info.hpp"
#include "harness/sweep_sizes.hpp"
#include "harness/bind_rank.hpp"
#include "common/errors.hpp"
#include "kernels/cuda/device_kernels.hpp"
#include "kernels/cuda/gpu_info.hpp"
#include "results/writers.hpp"

namespace ccb {
namespace {

using cuda::check;

// Per GPU: two streams (one per direction), events, two buffers of the largest size.
struct Gpu {
  int id = 0;
  cudaStream_t a = nullptr, b = nullptr;
  cudaEvent_t start = nullptr, mid = nullptr, stop = nullptr;
  void* buf[2] = {nullptr, nullptr};
  void** sink = nullptr;
};

struct Resources {
  std::vector<Gpu> gpus;
  void* pinned[2] = {nullptr, nullptr};  // mapped, portable
  std::vector<unsigned char> pageable;
  ~Resources() {
    for (auto& g : gpus) {
      cudaSetDevice(g.id);
      cudaDeviceSynchronize();
      for (void* p : g.buf) cudaFree(p);
      cudaFree(g.sink);
      for (cudaEvent_t e : {g.start, g.mid, g.stop}) cudaEventDestroy(e);
      cudaStreamDestroy(g.a);
      cudaStreamDestroy(g.b);
    }
    for (void* p : pinned) cudaFreeHost(p);
  }
};

// One test case: what one copy (or one pair of opposite copies) issues on
// the timing GPU's streams a and b.
struct Case {
  std::string name, src, dst;
  int gpu = 0;                                  // whose streams and events time it
  double factor = 1;                            // 2 when both directions run at once (bandwidth counts both)
  std::function<void(std::size_t)> on_a, on_b;  // on_b empty: one direction
};

// Seconds per copy: warm-up, then `iters` copies back to back between events.
double time_case(const Case& c, const Gpu& g, std::size_t bytes, int iters, int warmup) {
  check(cudaSetDevice(g.id), "cudaSetDevice");
  for (int w = 0; w < warmup; ++w) {
    c.on_a(bytes);
    if (c.on_b) c.on_b(bytes);
  }
  // Both streams' warm-up ends before the clock starts: the start event only
  // orders stream a, and b's warm-up would otherwise overlap the timed copies.
  check(cudaStreamSynchronize(g.a), "copy warm-up");
  check(cudaStreamSynchronize(g.b), "copy warm-up");
  check(cudaEventRecord(g.start, g.a), "cudaEventRecord");
  if (c.on_b) check(cudaStreamWaitEvent(g.b, g.start), "cudaStreamWaitEvent");
  for (int k = 0; k < iters; ++k) {
    c.on_a(bytes);
    if (c.on_b) c.on_b(bytes);
  }
  if (c.on_b) {
    check(cudaEventRecord(g.mid, g.b), "cudaEventRecord");
    check(cudaStreamWaitEvent(g.a, g.mid), "cudaStreamWaitEvent");
  }
  check(cudaEventRecord(g.stop, g.a), "cudaEventRecord");
  check(cudaEventSynchronize(g.stop), "copy");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, g.start, g.stop), "cudaEventElapsedTime");
  return ms * 1e-3 / iters;
}

std::string gpu_name(int id) { return fmt::format("gpu{}", id); }

void memcpy_on(void* dst, const void* src, std::size_t bytes, cudaStream_t s) {
  check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s), "cudaMemcpyAsync");
}

std::vector<Case> bandwidth_cases(Resources& r, bool* peer_missing) {
  std::vector<Case> cases;
  for (auto& g : r.gpus) {
    Gpu* gp = &g;
    void* pin0 = r.pinned[0];
    void* pin1 = r.pinned[1];
    void* page0 = r.pageable.data();
    const std::string d = gpu_name(g.id);
    cases.push_back(
        {"copy_h2d_ce_pinned", "cpu", d, g.id, 1, [=](std::size_t n) { memcpy_on(gp->buf[0], pin0, n, gp->a); }, {}});
    cases.push_back(
        {"copy_d2h_ce_pinned", d, "cpu", g.id, 1, [=](std::size_t n) { memcpy_on(pin0, gp->buf[0], n, gp->a); }, {}});
    cases.push_back({"copy_h2d_ce_pageable",
                     "cpu",
                     d,
                     g.id,
                     1,
                     [=](std::size_t n) { memcpy_on(gp->buf[0], page0, n, gp->a); },
                     {}});
    cases.push_back({"copy_d2h_ce_pageable",
                     d,
                     "cpu",
                     g.id,
                     1,
                     [=](std::size_t n) { memcpy_on(page0, gp->buf[0], n, gp->a); },
                     {}});
    cases.push_back({"copy_bidir_ce_pinned", "cpu", d, g.id, 2,
                     [=](std::size_t n) { memcpy_on(gp->buf[0], pin0, n, gp->a); },
                     [=](std::size_t n) { memcpy_on(pin1, gp->buf[1], n, gp->b); }});
    cases.push_back({"copy_h2d_sm_pinned",
                     "cpu",
                     d,
                     g.id,
                     1,
                     [=](std::size_t n) { cuda::sm_copy(gp->buf[0], pin0, n, gp->a); },
                     {}});
    cases.push_back({"copy_d2h_sm_pinned",
                     d,
                     "cpu",
                     g.id,
                     1,
                     [=](std::size_t n) { cuda::sm_copy(pin0, gp->buf[0], n, gp->a); },
                     {}});
    cases.push_back(
        {"copy_d2d_ce_local", d, d, g.id, 1, [=](std::size_t n) { memcpy_on(gp->buf[1], gp->buf[0], n, gp->a); }, {}});
    cases.push_back({"copy_d2d_sm_local",
                     d,
                     d,
                     g.id,
                     1,
                     [=](std::size_t n) { cuda::sm_copy(gp->buf[1], gp->buf[0], n, gp->a); },
                     {}});
  }
  for (auto& gi : r.gpus)
    for (auto& gj : r.gpus) {
      if (gi.id == gj.id) continue;
      int can = 0;
      cudaDeviceCanAccessPeer(&can, gi.id, gj.id);
      if (!can) {
        *peer_missing = true;
        continue;
      }
      Gpu *i = &gi, *j = &gj;
      const std::string si = gpu_name(gi.id), sj = gpu_name(gj.id);
      cases.push_back(
          {"copy_d2d_ce_peer", si, sj, gi.id, 1, [=](std::size_t n) { memcpy_on(j->buf[0], i->buf[0], n, i->a); }, {}});
      cases.push_back({"copy_d2d_sm_peer",
                       si,
                       sj,
                       gi.id,
                       1,
                       [=](std::size_t n) { cuda::sm_copy(j->buf[0], i->buf[0], n, i->a); },
                       {}});
      cases.push_back({"copy_bidir_ce_peer", si, sj, gi.id, 2,
                       [=](std::size_t n) { memcpy_on(j->buf[0], i->buf[0], n, i->a); },
                       [=](std::size_t n) { memcpy_on(i->buf[1], j->buf[1], n, i->b); }});
    }
  return cases;
}

PointRecord copy_record(const Case& c, std::size_t bytes, int iters, double seconds) {
  PointRecord rec;
  rec.collective = c.name;
  rec.dtype = "uint8";
  rec.ranks = 1;
  rec.bytes = rec.requested_bytes = rec.count = bytes;
  rec.iterations = iters;
  rec.bus_factor = c.factor;
  rec.busbw_meaningful = true;
  rec.src = c.src;
  rec.dst = c.dst;
  Measurement& p = rec.out_of_place;
  p.measured = true;
  p.time_us = seconds * 1e6;
  p.pipelined_us = p.time_us;
  p.time_source = "CUDA events around -n back-to-back copies, divided by -n";
  p.algbw_gbps = static_cast<double>(bytes) / seconds / 1e9;
  p.busbw_gbps = p.algbw_gbps * c.factor;
  return rec;
}

// Nanoseconds per dependent 8-byte load through `chain` from GPU g.
double chase_ns(Gpu& g, void* const* chain, long hops) {
  check(cudaSetDevice(g.id), "cudaSetDevice");
  cuda::pointer_chase(chain, hops / 10, g.sink, g.a);  // warm-up
  check(cudaEventRecord(g.start, g.a), "cudaEventRecord");
  cuda::pointer_chase(chain, hops, g.sink, g.a);
  check(cudaEventRecord(g.stop, g.a), "cudaEventRecord");
  check(cudaEventSynchronize(g.stop), "pointer chase");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, g.start, g.stop), "cudaEventElapsedTime");
  return ms * 1e6 / static_cast<double>(hops);
}

// Every GPU with its streams, events and buffers of `largest` bytes, peer
// access enabled where it exists; pinned and pageable host buffers.
void open_gpus(int devices, std::size_t largest, Resources& r) {
  for (int d = 0; d < devices; ++d) {
    Gpu g;
    g.id = d;
    check(cudaSetDevice(d), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&g.a, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaStreamCreateWithFlags(&g.b, cudaStreamNonBlocking), "cudaStreamCreate");
    for (cudaEvent_t* e : {&g.start, &g.mid, &g.stop}) check(cudaEventCreate(e), "cudaEventCreate");
    for (void*& p : g.buf) check(cudaMalloc(&p, largest), "cudaMalloc");
    check(cudaMalloc(reinterpret_cast<void**>(&g.sink), sizeof(void*)), "cudaMalloc");
    for (int peer = 0; peer < devices; ++peer) {
      int can = 0;
      if (peer != d && cudaDeviceCanAccessPeer(&can, d, peer) == cudaSuccess && can)
        cudaDeviceEnablePeerAccess(peer, 0);
    }
    cudaGetLastError();  // "already enabled" is fine
    r.gpus.push_back(g);
  }
  for (void*& p : r.pinned)
    check(cudaHostAlloc(&p, largest, cudaHostAllocMapped | cudaHostAllocPortable), "cudaHostAlloc");
  r.pageable.assign(largest, 1);
}

// The run record: what a sweep's record says, for the copy tests.
RunInfo copy_run_info(const Config& cfg, const Resources& r) {
  RunInfo run;
  run.argv = cfg.argv;
  run.collective = "copy";
  run.backend = "cuda";
  run.memory_kind = "host+device";
  run.dtypes = {"uint8"};
  run.iterations = cfg.iters;
  run.warmup = cfg.warmup;
  run.warmup_order = "per-point";  // each copy size warmed just before it is timed
  run.min_bytes = cfg.min_bytes;
  run.max_bytes = cfg.max_bytes;
  run.step_bytes = cfg.step_bytes;
  run.step_factor = cfg.step_factor;
  run.timing_modes = "pipelined";
  run.clock = "CUDA events on the copying GPU's stream";
  run.clock_resolution_s = 0.5e-6;
  run.path_requested = "auto";
  run.path_observed = "per test (endpoints)";
  std::vector<int> devices;
  for (const auto& g : r.gpus) devices.push_back(g.id);
  const SoloComm solo;
  const PlacedProcess placed = place_process(BindPolicy::none, solo, {0, 1, devices});
  collect_run_info(solo, placed.me, 1, placed.topo_json, run);
  return run;
}

// Results go to stdout (a row each) and to every writer.
struct CopyOutput {
  std::vector<std::unique_ptr<Writer>> writers;
  std::size_t points = 0;
  void point(const PointRecord& rec) {
    for (auto& w : writers) w->point(rec);
    ++points;
  }
  // The first output that could not be written ("" = none).
  std::string error() const {
    for (const auto& w : writers)
      if (const std::string e = w->error(); !e.empty()) return e;
    return "";
  }
};

using AtLargest = std::map<std::string, std::map<std::pair<std::string, std::string>, double>>;

// Bandwidth: every case at every size; GB/s at the largest size kept for the matrices.
void bandwidth_tests(const Config& cfg, Resources& r, const std::vector<std::size_t>& sizes, CopyOutput& out,
                     AtLargest& at_largest) {
  bool peer_missing = false;
  const std::vector<Case> cases = bandwidth_cases(r, &peer_missing);
  if (r.gpus.size() < 2) fmt::print("#  peer tests need 2 or more GPUs; this machine has {}\n", r.gpus.size());
  if (peer_missing) fmt::print("#  some GPU pairs have no peer access: their peer tests are left out\n");
  fmt::print("# {:<22} {:>5} {:>5} {:>12} {:>10} {:>8}\n", "test", "src", "dst", "size (B)", "time (us)", "GB/s");
  for (const Case& c : cases) {
    Gpu& g = r.gpus[static_cast<std::size_t>(c.gpu)];
    for (std::size_t bytes : sizes) {
      const PointRecord rec = copy_record(c, bytes, cfg.iters, time_case(c, g, bytes, cfg.iters, cfg.warmup));
      fmt::print("  {:<22} {:>5} {:>5} {:>12} {} {:8.2f}\n", c.name, c.src, c.dst, bytes,
                 format_time_us(rec.out_of_place.time_us), rec.out_of_place.busbw_gbps);
      out.point(rec);
      if (bytes == sizes.back()) at_largest[c.name][{c.src, c.dst}] = rec.out_of_place.busbw_gbps;
    }
  }
}

// Latency: dependent loads from each GPU into pinned host memory and into
// every GPU's memory it can reach.
void latency_tests(Resources& r, std::size_t largest, CopyOutput& out) {
  const std::size_t stride = 4097;  // 32 KiB + 8 B apart: every load misses the caches
  const std::size_t host_n = largest / sizeof(void*);
  auto** host_chain = static_cast<void**>(r.pinned[0]);
  for (std::size_t i = 0; i < host_n; ++i) host_chain[i] = &host_chain[(i + stride) % host_n];
  for (auto& g : r.gpus) {
    std::vector<std::pair<std::string, void* const*>> targets{{"cpu", host_chain}};
    for (auto& t : r.gpus) {
      int can = t.id == g.id;
      if (t.id != g.id) cudaDeviceCanAccessPeer(&can, g.id, t.id);
      if (!can) continue;
      check(cudaSetDevice(t.id), "cudaSetDevice");
      cuda::build_chain(static_cast<void**>(t.buf[1]), largest / sizeof(void*), stride, t.a);
      check(cudaStreamSynchronize(t.a), "build chain");
      targets.emplace_back(gpu_name(t.id), static_cast<void* const*>(t.buf[1]));
    }
    for (const auto& [where, chain] : targets) {
      const long hops = where == "cpu" ? 20000 : 200000;
      const double ns = chase_ns(g, chain, hops);
      fmt::print("  {:<22} {:>5} {:>5} {:>12} {} {:>8}\n", "latency_sm_chase", gpu_name(g.id), where, 8,
                 format_time_us(ns / 1e3), "-");
      Case c{"latency_sm_chase", gpu_name(g.id), where, g.id, 1, {}, {}};
      PointRecord rec = copy_record(c, 8, static_cast<int>(hops), ns * 1e-9);
      rec.out_of_place.time_source =
          "CUDA events around one thread's chain of dependent 8-byte loads, divided by the loads";
      rec.out_of_place.note = "latency: time per dependent load; bandwidth is not meaningful";
      rec.busbw_meaningful = false;
      out.point(rec);
    }
  }
}

// Matrices at the largest size: rows are sources, columns destinations.
void print_matrices(const AtLargest& at_largest, std::size_t largest) {
  for (const auto& [name, cells] : at_largest) {
    std::vector<std::string> rows, cols;
    for (const auto& [key, v] : cells) {
      if (std::find(rows.begin(), rows.end(), key.first) == rows.end()) rows.push_back(key.first);
      if (std::find(cols.begin(), cols.end(), key.second) == cols.end()) cols.push_back(key.second);
    }
    fmt::print("#\n# {} at {} (GB/s; row = source, column = destination)\n# {:>6}", name, format_size(largest), "");
    for (const auto& c : cols) fmt::print(" {:>8}", c);
    fmt::print("\n");
    for (const auto& row : rows) {
      fmt::print("# {:>6}", row);
      for (const auto& c : cols) {
        const auto it = cells.find({row, c});
        fmt::print(" {:>8}", it == cells.end() ? std::string("-") : fmt::format("{:.1f}", it->second));
      }
      fmt::print("\n");
    }
  }
}

}  // namespace

int run_copy_bench(const Config& cfg) {
  const GpuInfo info = query_gpus();
  if (!info.error.empty() || info.devices == 0) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    fmt::print(stderr, "ccbench: copy: no usable GPU on {} ({})\n", host,
               info.error.empty() ? "the CUDA runtime sees 0 devices" : info.error);
    return kExitUsage;
  }
  const auto sizes = sweep_sizes(cfg.min_bytes, cfg.max_bytes, cfg.step_bytes, cfg.step_factor);
  CopyOutput out;
  try {
    check_distinct_paths({{"-J/--json", cfg.json_path}, {"--csv", cfg.csv_path}}, {});
    if (!cfg.json_path.empty()) check_output_writable("-J/--json", cfg.json_path);
    if (!cfg.csv_path.empty()) check_output_writable("--csv", cfg.csv_path);
  } catch (const UsageError& e) {
    fmt::print(stderr, "ccbench: {}\n", printable_error(e.what()));
    return exit_code_of(e);
  }
  if (!cfg.json_path.empty()) out.writers.push_back(make_jsonl_writer(cfg.json_path));
  if (!cfg.csv_path.empty()) out.writers.push_back(make_csv_writer(cfg.csv_path));

  Resources r;
  open_gpus(info.devices, sizes.back(), r);
  const RunInfo run = copy_run_info(cfg, r);
  for (auto& w : out.writers) w->begin(run);
  fmt::print("# ccbench {} ({}): copy bandwidth and latency, {} GPU(s), CUDA runtime {} driver {}\n", CCBENCH_VERSION,
             CCBENCH_GIT_REVISION, info.devices, info.runtime_version, info.driver_version);
  fmt::print("#  time: us per copy, CUDA events around -n {} back-to-back copies after -w {}; GB/s = 1e9 B/s;\n",
             cfg.iters, cfg.warmup);
  fmt::print("#  bidir tests run both directions at once and count the bytes of both\n");
  AtLargest at_largest;
  bandwidth_tests(cfg, r, sizes, out, at_largest);
  latency_tests(r, sizes.back(), out);
  print_matrices(at_largest, sizes.back());
  EndInfo end;
  end.status = "completed";
  end.points = out.points;
  end.avg_busbw_gbps = -1;
  end.ended_at = utc_now_iso8601();
  for (auto& w : out.writers) w->end(end);
  // A full disk or a closed pipe: said, and not exit 0 (as a sweep: exit 5).
  if (const std::string e = out.error(); !e.empty()) {
    fmt::print(stderr, "ccbench: cannot write {}; the copy results in that file are incomplete\n", e);
    return kExitOutput;
  }
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    fmt::print(stderr, "ccbench: cannot write the copy table to stdout\n");
    return kExitOutput;
  }
  return kExitOk;
}

}  // namespace ccb
