#include "harness/sweep.hpp"
#include "results/nccl_tests_json.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fstream>
#include <mutex>
#include <thread>
#include <memory>
#include <optional>
#include <cstdlib>
#include <map>
#include <vector>

#include "common/environment.hpp"
#include "harness/every_rank_passes.hpp"
#include "harness/backends.hpp"
#include "harness/comm.hpp"
#include "harness/measure.hpp"
#include "common/launcher.hpp"
#include "harness/progress.hpp"
#include "harness/link_probe.hpp"
#include "harness/run_info.hpp"
#include "harness/sweep_sizes.hpp"
#include "harness/bind_rank.hpp"
#include "common/errors.hpp"
#include "harness/stop_signals.hpp"
#include "harness/watchdog.hpp"
#include "results/writers.hpp"
#include "harness/cpu_load.hpp"
#include "harness/run_outputs.hpp"
#include "harness/point_observations.hpp"
#include "harness/run_description.hpp"
#include "harness/split_rule.hpp"
#include "harness/memory_copy.hpp"
#include "analysis/compare/catalogue.hpp"
#include "analysis/compare/expectation.hpp"
#include "results/import/importer.hpp"

namespace ccb {
namespace {

struct Task {
  DType dtype;
  std::optional<ReduceOp> op;
  std::vector<SizePoint> points;
};

std::vector<Task> plan_tasks(const Config& cfg, int nranks) {
  const Collective& c = *cfg.collective;
  const auto requested =
      cfg.sizes.empty() ? sweep_sizes(cfg.min_bytes, cfg.max_bytes, cfg.step_bytes, cfg.step_factor) : cfg.sizes;
  std::vector<Task> tasks;
  for (DType d : cfg.dtypes) {
    auto points = plan_points(requested, c, d, nranks, cfg.strict_sizes);
    if (c.reduces)
      for (ReduceOp op : cfg.ops) tasks.push_back({d, op, points});
    else tasks.push_back({d, std::nullopt, points});
  }
  return tasks;
}

unsigned long long mem_available_bytes() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  unsigned long long kb = 0;
  std::string unit;
  while (f >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return 0;
}

// Throws UsageError for what only the rank count or this host can rule out.
void validate_for_world(const Config& cfg, const Comm& comm, Backend& backend, const std::vector<Task>& tasks,
                        std::size_t send_bytes, std::size_t recv_bytes) {
  const Collective& c = *cfg.collective;
  const int n = backend.ranks();
  for (DType d : cfg.dtypes)
    if (const std::string why = backend.check_dtype(d); !why.empty()) throw UsageError("-d/--datatype " + why);
  if (c.rooted && cfg.root >= n)
    throw UsageError(fmt::format("-r/--root {}: no such rank (allowed: 0 to {})", cfg.root, n - 1));
  if (c.point_to_point && n < 2)
    throw UsageError(
        fmt::format("{} needs at least 2 ranks (pairs r, r+n/2); run it under mpirun -np 2 or more", c.name));
  const unsigned long long need = (static_cast<unsigned long long>(send_bytes) + recv_bytes) * comm.local_size();
  const unsigned long long avail = backend.memory().kind() == "host" ? mem_available_bytes() : 0;
  if (avail > 0 && need > avail) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    throw UsageError(fmt::format(
        "-e/--maxbytes {}: {} needs {:.2f} GiB of buffers per rank x {} ranks on {} = {:.2f} GiB, but only {:.2f} GiB "
        "is available",
        format_size(cfg.max_bytes), c.name, static_cast<double>(send_bytes + recv_bytes) / (1u << 30),
        comm.local_size(), host, static_cast<double>(need) / (1u << 30), static_cast<double>(avail) / (1u << 30)));
  }
  for (const auto& t : tasks)
    for (const auto& p : t.points)
      if (p.count > backend.max_count())
        throw UsageError(
            fmt::format("-e/--maxbytes: {} B of {} is {} elements in one call; the {} backend takes at most {}",
                        p.bytes, info(t.dtype).name, p.count, backend.name(), backend.max_count()));
}

// The table's time (pipelined, combined per -a; else the per-iteration p50)
// and the bandwidths derived from it (algbw = bytes / time, busbw = algbw x factor).
void fill_time_and_bandwidth(const Config& cfg, const Collective& c, int n, PointRecord& rec, Measurement& pl) {
  if (!pl.measured) return;
  static constexpr const char* kCombine[] = {"rank 0", "mean over ranks", "min over ranks", "max over ranks"};
  if (pl.pipelined_us) {
    pl.time_us = *pl.pipelined_us;
    pl.time_source = fmt::format("pipelined, {}", kCombine[static_cast<int>(cfg.aggregation)]);
  } else {
    pl.time_us = pl.per_iteration_us->p50;
    pl.time_source = "per_iteration p50 of the slowest rank";
  }
  const std::size_t bytes = rec.traffic ? rec.traffic->busiest_bytes : rec.bytes;  // alltoallv: nccl-tests'
  pl.algbw_gbps = pl.time_us > 0 ? static_cast<double>(bytes) / pl.time_us / 1e3 : 0.0;
  pl.busbw_gbps = pl.algbw_gbps * bus_factor(c, n);
}

// Every local rank's buffers, released before the backend goes.
struct Buffers {
  Memory& mem;
  std::vector<PointBuffers> local;
  void release() {
    for (auto& b : local) {
      if (b.send) mem.release(b.send);
      if (b.recv) mem.release(b.recv);
    }
    local.clear();
  }
  ~Buffers() { release(); }
};

// The plan and the largest buffers it needs; throws UsageError.
struct Plan {
  std::vector<Task> tasks;
  std::size_t send_max = 0, recv_max = 0, points = 0;
  std::size_t arena = 0;  // --rotate-buffers: bytes of each buffer (0: off)
  std::size_t shift = 0;  // nccl-tests' buffer shift: bytes of each buffer (0: off)
  double weight = 0;      // for the progress estimate
};

Plan make_plan(const Config& cfg, const Comm& comm, Backend& backend) {
  const Collective& c = *cfg.collective;
  Plan plan;
  plan.tasks = plan_tasks(cfg, backend.ranks());
  for (const auto& t : plan.tasks)
    for (const auto& p : t.points) {
      const std::size_t elem = info(t.dtype).size;
      std::size_t send = elements(c.send_extent, p.count, p.chunk) * elem;
      std::size_t recv = elements(c.recv_extent, p.count, p.chunk) * elem;
      if (const auto traffic = plan_traffic(cfg, backend.ranks(), p.count))  // the largest side of any rank
        send = recv = traffic->largest_buffer() * elem;
      plan.send_max = std::max(plan.send_max, send);
      plan.recv_max = std::max({plan.recv_max, recv, send});  // the in-place buffer holds either side
      ++plan.points;
      plan.weight += Progress::weight(p.bytes);
    }
  if (cfg.rotate_buffers) {
    // Twice the cache beyond the largest point, so a slot has left the cache when it comes round.
    // CCBENCH_CACHE_BYTES overrides the cache size the OS reports (VMs often report the host's).
    std::size_t cache = backend.memory().cache_bytes();
    if (const char* env = env_value(EnvVar::cache_bytes)) {
      const auto v = parse_size(env);
      if (!v || *v == 0)
        throw UsageError(fmt::format("CCBENCH_CACHE_BYTES {}", v ? "0: not a cache size" : size_error(env)));
      cache = *v;
    }
    plan.arena = std::max(plan.send_max, plan.recv_max) + 2 * cache;
    plan.send_max = plan.recv_max = plan.arena;
  } else if (cfg.buffer_shift.value_or(backend.name() == "nccl")) {
    // nccl-tests allocates both buffers at -e and shifts each iteration's
    // buffers by its size (steps = maxbytes / size): the same here.
    plan.shift = std::max({plan.send_max, plan.recv_max, cfg.sizes.empty() ? cfg.max_bytes : std::size_t{0}});
    plan.send_max = plan.recv_max = plan.shift;
  }
  if (cfg.sync == SyncMode::window && backend.name() != "mpi")
    throw UsageError(fmt::format("--sync window: needs a host-clock backend (mpi); {} times with {}", backend.name(),
                                 backend.clock_name()));
  validate_for_world(cfg, comm, backend, plan.tasks, plan.send_max, plan.recv_max);
  // -u N: room for N elements of the widest type before each buffer's start.
  plan.send_max += static_cast<std::size_t>(cfg.unalign) * 8;
  plan.recv_max += static_cast<std::size_t>(cfg.unalign) * 8;
  return plan;
}

// The buffers a point of `elem`-byte elements uses: -u N elements past each
// allocation, and what the receive buffer holds from there.
std::vector<PointBuffers> unaligned(const std::vector<PointBuffers>& local, std::size_t elem, int unalign,
                                    std::size_t recv_bytes) {
  std::vector<PointBuffers> out = local;
  const std::size_t skip = static_cast<std::size_t>(unalign) * elem;
  for (PointBuffers& b : out) {
    b.send = static_cast<unsigned char*>(b.send) + skip;
    b.recv = static_cast<unsigned char*>(b.recv) + skip;
    b.recv_capacity_count = (recv_bytes - skip) / elem;
  }
  return out;
}

// The largest send and receive buffers of every local rank; an allocation
// that fails (device memory) is the user's -e.
void allocate_buffers(const Config& cfg, Backend& backend, const Plan& plan, Buffers& buffers) {
  buffers.local.resize(static_cast<std::size_t>(backend.local_ranks()));
  for (std::size_t j = 0; j < buffers.local.size(); ++j) {
    try {
      buffers.local[j].send = backend.memory().allocate(plan.send_max, static_cast<int>(j));
      buffers.local[j].recv = backend.memory().allocate(plan.recv_max, static_cast<int>(j));
      buffers.local[j].arena_bytes = plan.arena;
      buffers.local[j].shift_bytes = plan.shift;
    } catch (const std::exception& e) {
      throw UsageError(fmt::format("-e/--maxbytes {}: cannot allocate {} + {} B of {} memory for rank {}: {}",
                                   format_size(cfg.max_bytes), plan.send_max, plan.recv_max, backend.memory().kind(),
                                   backend.first_rank() + static_cast<int>(j), e.what()));
    }
  }
}

// Rank 0's writers. Every output is checked before any is created, so a bad
// one leaves the others untouched.
std::vector<std::unique_ptr<Writer>> open_writers(const Config& cfg, int rank, const SweepExports* exports) {
  std::vector<std::unique_ptr<Writer>> writers;
  if (rank != 0) return writers;
  check_distinct_paths(
      {{"-J/--json", cfg.json_path}, {"--csv", cfg.csv_path}, {"--history", cfg.history_db}, {"--prom", cfg.prom_path}},
      {});
  if (!cfg.json_path.empty()) check_output_writable("-J/--json", cfg.json_path);
  if (!cfg.csv_path.empty()) check_output_writable("--csv", cfg.csv_path);
  if (exports) exports->check();
  if (cfg.table) writers.push_back(make_table_writer(stdout, cfg.stats_columns));
  if (!cfg.json_path.empty())  // the suffix rule: .json is nccl-tests' document, anything else JSON Lines
    writers.push_back(is_nccl_tests_json_path(cfg.json_path) ? make_nccl_tests_json_writer(cfg.json_path)
                                                             : make_jsonl_writer(cfg.json_path, cfg.append_json));
  if (!cfg.csv_path.empty()) writers.push_back(make_csv_writer(cfg.csv_path));
  if (exports) writers.push_back(exports->open());
  return writers;
}

PointRecord new_record(const Config& cfg, const SplitInfo& split, const Backend& backend, const Task& t,
                       const SizePoint& p) {
  const Collective& c = *cfg.collective;
  PointRecord rec;
  rec.collective = std::string(c.name);
  rec.dtype = std::string(info(t.dtype).name);
  rec.op = t.op ? std::string(name(*t.op)) : "";
  rec.root = c.rooted ? cfg.root : -1;
  rec.ranks = backend.ranks();
  rec.nodes = split.group_nodes;
  rec.groups = split.groups;
  rec.requested_bytes = p.requested_bytes;
  rec.bytes = p.bytes;
  rec.count = p.shown_count();
  rec.iterations = cfg.iters;
  rec.bus_factor = bus_factor(c, backend.ranks());
  rec.busbw_meaningful = true;  // one rank: algbw x the factor (0 for all_reduce), as nccl-tests prints it
  return rec;
}

// Test-only faults that strike before a point (CCBENCH_FAULT: hang, exit,
// stuck, error on the host; gpu_hang on the GPU).
void inject_faults(const Faults& faults, Backend& backend, int first_rank, std::size_t bytes) {
  for (int j = 0; j < backend.local_ranks(); ++j) {
    const int r = first_rank + j;
    inject_before_point(faults, r, bytes);
    if (faults.hangs_gpu(r, bytes)) {
      fmt::print(stderr,
                 "ccbench: rank {}: CCBENCH_FAULT: a kernel that never ends on its GPU before the {} B point "
                 "(test-only)\n",
                 r, bytes);
      std::fflush(stderr);
      backend.stall(j);
    }
  }
}

// --split: this process's group (nullptr without one). Every rank must read
// the same rule (an environment variable can differ between hosts), and
// every group must have as many ranks: a row is one group's size. Throws
// UsageError; collective over comm.
std::unique_ptr<Comm> split_into_groups(const Config& cfg, const Comm& comm, SplitInfo& split) {
  const std::string mine = cfg.split ? fmt::format("{} ({})", cfg.split->text, cfg.split_source) : "none";
  const std::vector<std::string> rules = comm.all_strings(mine);
  for (std::size_t r = 1; r < rules.size(); ++r)
    if (rules[r] != rules.front())
      throw UsageError(fmt::format("ranks read different splits (rank 0: {}; rank {}: {}): give --split to all",
                                   rules.front(), r, rules[r]));
  if (!cfg.split) return nullptr;
  std::unique_ptr<Comm> group = comm.split(cfg.split->color(comm.rank()));
  const std::vector<std::string> sizes = comm.all_strings(std::to_string(group->size()));
  for (std::size_t r = 0; r < sizes.size(); ++r)
    if (sizes[r] != sizes[static_cast<std::size_t>(comm.rank())])
      throw UsageError(
          fmt::format("{} {}: groups of different sizes ({} ranks with rank {}, {} with rank {}): every "
                      "group needs as many ranks",
                      cfg.split_source, cfg.split->text, group->size(), comm.rank(), sizes[r], r));
  const int groups = static_cast<int>(comm.sum(group->rank() == 0 ? 1 : 0));
  split = {groups, group->nodes(), mine};
  return group;
}

// One sweep from its plan to its end record: the state the steps share.
// Its destructor is the teardown, written once for every way a sweep ends:
// the backend quiesced (graphs, issued work), the buffers, then (when the
// sweep owns it) the backend, while the watchdog
// still runs (Watchdog::teardown_begins), so that a teardown that hangs is
// bounded as an operation is.
class Sweep {
 public:
  Sweep(const Config& requested, const Comm& comm, const SplitInfo& split, Backend& backend,
        std::unique_ptr<Backend>* owned, const std::string& nccl_log)
      : cfg_(requested),
        comm_(comm),
        split_(split),
        backend_(backend),
        owned_(owned),
        nccl_log_(nccl_log),
        rank_(comm.rank()),
        first_rank_(comm.rank() * backend.local_ranks()) {
    if (cfg_.warmup_order == WarmUpOrder::automatic)  // nccl-tests' order on nccl, OSU's and IMB's on mpi
      cfg_.warmup_order = backend.name() == "nccl" ? WarmUpOrder::sizes_first : WarmUpOrder::per_point;
  }
  ~Sweep() {
    if (watchdog_) watchdog_->teardown_begins();
    backend_.quiesce();  // graphs and issued work before the buffers they hold (nccl_teardown_steps)
    buffers_.release();
    backend_.on_completion({});  // a kept backend must not call this sweep's watchdog
    if (owned_) owned_->reset();
  }
  Sweep(const Sweep&) = delete;
  Sweep& operator=(const Sweep&) = delete;

  // Plan, faults, binding, buffers, outputs: kExitOk, or kExitUsage on every rank.
  int prepare(Writer* extra, const SweepExports* exports);
  // Every point, then the end record; the exit code.
  int run();

 private:
  void start_watchdog();
  int stop_at_boundary();
  void measure(const Task& t, const SizePoint& p);
  int end();

  Config cfg_;
  const Comm& comm_;
  const SplitInfo split_;
  Backend& backend_;
  std::unique_ptr<Backend>* owned_;
  const std::string& nccl_log_;
  const int rank_;
  const int first_rank_;  // this process's first rank in the world (backend_.first_rank(): in its group)
  Plan plan_;
  Faults faults_;
  PlacedProcess placed_;
  Comm::ClockOffset clock_;
  RunInfo run_;
  std::string nvlink_note_;
  // Rank 0: what the run record says of its path, and its GPU family: each
  // point's busbw limit (analysis/compare/expectation.hpp), once per run.
  PathFacts path_facts_;
  std::string gpu_family_;
  CpuSample cpu_before_;
  std::unique_ptr<RunOutputs> outputs_;  // outlives the watchdog: its last words write here
  std::unique_ptr<Progress> progress_;
  std::size_t noisy_points_ = 0;
  std::size_t straggler_checked_ = 0;            // --stragglers: placements read
  std::map<int, std::size_t> stragglers_named_;  // rank -> placements it was named at
  std::unique_ptr<Watchdog> watchdog_;
  Buffers buffers_{backend_.memory(), {}};
};

int Sweep::prepare(Writer* extra, const SweepExports* exports) {
  const Comm& comm = comm_;
  // -T covers the start-up too: its collectives (the plan, the clock offset,
  // the run's description) can hang as a point can (a wrong interface).
  start_watchdog();
  watchdog_->set_activity("the start-up: planning the sweep");
  if (const int code = exit_code_of_every_rank(comm, [&] { plan_ = make_plan(cfg_, comm, backend_); })) return code;
  if (const int code = exit_code_of_every_rank(comm, [&] {
        faults_ = faults_from_environment();
        if (faults_.kind == Faults::Kind::gpu_hang && backend_.name() != "nccl")
          throw UsageError(
              fmt::format("CCBENCH_FAULT gpu_hang: needs the nccl backend (a GPU stream to hang); this run uses {}",
                          backend_.name()));
      }))
    return code;
  // --bind before the buffers are touched, so that memory lands on the chosen node.
  watchdog_->set_activity("the start-up: binding and the clock offset");
  placed_ = place_process(cfg_.bind, comm, {first_rank_, backend_.ranks() * split_.groups, backend_.devices()});
  clock_ = cfg_.sync == SyncMode::window ? comm.clock_offset(20) : Comm::ClockOffset{};
  placed_.me.clock_offset_us = clock_.offset_s * 1e6;
  placed_.me.clock_offset_rtt_us = clock_.rtt_s * 1e6;
  watchdog_->set_activity("the start-up: allocating buffers");
  if (const int code = exit_code_of_every_rank(comm, [&] { allocate_buffers(cfg_, backend_, plan_, buffers_); }))
    return code;
  std::vector<std::unique_ptr<Writer>> writers;
  watchdog_->set_activity("the start-up: opening the outputs");
  if (const int code = exit_code_of_every_rank(comm, [&] { writers = open_writers(cfg_, rank_, exports); }))
    return code;  // 5 for an output that cannot be written (a full disk, an unreachable --history server)
  outputs_ = std::make_unique<RunOutputs>(rank_, std::move(writers), extra);
  outputs_->set_startup_run(describe_config(cfg_, backend_, plan_.arena, plan_.shift));
  RunOutputs& outputs = *outputs_;
  watchdog_->set_last_words([&outputs](const std::string& status, int code) { outputs.last_words(status, code); });
  return kExitOk;
}

// The watchdog's abort is the backend's; its last words are the end record
// (from when the outputs are open: Sweep::prepare).
void Sweep::start_watchdog() {
  Backend& backend = backend_;
  const Faults& faults = faults_;
  const int first = first_rank_;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  watchdog_ = std::make_unique<Watchdog>(cfg_.timeout_s, rank_, host, [&backend, &faults, first] {
    if (faults.abort_hangs(first, backend.local_ranks())) {
      fmt::print(stderr,
                 "ccbench: rank {}: CCBENCH_FAULT: the abort does not return "
                 "(test-only)\n",
                 faults.rank);
      for (;;) pause();
    }
    return backend.abort();
  });
  Watchdog& watchdog = *watchdog_;
  if (watchdog.enabled()) backend_.on_completion([&watchdog] { watchdog.touch(); });
  else backend_.on_completion({});
  watchdog.set_exit_code(cfg_.timeout_exit_code);
  install_stop_signals();
}

// At a point boundary: SIGINT/SIGTERM/SIGHUP, or an output rank 0 cannot
// write, stop every rank at the same point. -1: go on; else the exit code.
int Sweep::stop_at_boundary() {
  const RunOutputs::Boundary stop = outputs_->at_boundary(comm_, stop_signal());
  if (stop.output_failed) {
    progress_->finish();
    return rank_ == 0 ? outputs_->fail() : kExitOutput;
  }
  if (stop.signal == 0) return -1;
  const int sig = stop.signal;
  progress_->finish();
  std::lock_guard<std::timed_mutex> lock(outputs_->lock());
  EndInfo& end = outputs_->end();
  end.status = fmt::format("interrupted: {}", signal_name(sig));
  end.exit_code = kExitSignal + sig;
  if (rank_ == 0)
    fmt::print(stderr, "ccbench: {} after {} points; results so far are written\n", end.status, end.points);
  outputs_->finish(end);
  return end.exit_code;
}

// One point: both placements measured, its record written. A failure of the
// library or the GPU (an NCCL async error, a CUDA error) ends the record with
// what and where, then throws.
void Sweep::measure(const Task& t, const SizePoint& p) {
  const Collective& c = *cfg_.collective;
  PointRecord rec = new_record(cfg_, split_, backend_, t, p);
  backend_.chosen_algorithms();  // what the warm-ups of other sizes chose is not this point's
  OpArgs args{.coll = &c,
              .dtype = t.dtype,
              .op = t.op.value_or(ReduceOp::sum),
              .root = cfg_.root,
              .count = p.count,
              .chunk = p.chunk,
              .window = cfg_.window};
  const std::optional<TrafficPlan> traffic = plan_traffic(cfg_, backend_.ranks(), p.count);
  args.traffic = traffic ? &*traffic : nullptr;
  if (traffic)
    rec.traffic =
        traffic_point(cfg_.traffic.value_or(TrafficModel{}), *traffic, info(t.dtype).size, p.count, run_.placement);
  const std::vector<PointBuffers> buffers = unaligned(buffers_.local, info(t.dtype).size, cfg_.unalign, plan_.recv_max);
  for (bool in_place : {false, true}) {
    if (in_place && !has_in_place(c)) continue;
    args.in_place = in_place;
    Measurement& pl = in_place ? rec.in_place : rec.out_of_place;
    const std::string doing = fmt::format("{} {} {} {} B {}", c.name, rec.dtype, rec.op.empty() ? "none" : rec.op,
                                          p.bytes, in_place ? "in-place" : "out-of-place");
    watchdog_->set_activity(doing);
    try {
      if (!in_place) inject_faults(faults_, backend_, first_rank_, p.bytes);
      measure_placement(backend_, comm_, cfg_, args, buffers, faults_, *watchdog_, clock_, pl);
    } catch (const std::exception& e) {
      progress_->finish();
      const std::string what = fmt::format("{} during {}", e.what(), doing);
      std::lock_guard<std::timed_mutex> lock(outputs_->lock());
      EndInfo& end = outputs_->end();
      end.status = "failed: " + what;
      end.exit_code = kExitInternal;
      outputs_->finish(end);
      throw std::runtime_error(fmt::format("rank {}: {}", rank_, what));
    }
    fill_time_and_bandwidth(cfg_, c, backend_.ranks(), rec, pl);
    if (!pl.measured) continue;
    if (pl.stragglers) {
      ++straggler_checked_;
      if (split_.groups == 1)  // a group's rank is not the world's: no host then
        pl.stragglers->host = host_of_rank(run_.placement, pl.stragglers->last_rank);
      // Every noise flag naming the host (its ranks share CPUs, it was busy) may explain a straggler.
      for (const std::string& f : run_.noise)
        if (!pl.stragglers->host.empty() && f.ends_with(" of " + pl.stragglers->host))
          pl.stragglers->noise += (pl.stragglers->noise.empty() ? "" : "; ") + f;
      if (pl.stragglers->named) ++stragglers_named_[pl.stragglers->last_rank];
    }
    pl.noise = measurement_noise(pl);
    noisy_points_ += pl.noise.empty() ? 0 : 1;
    {
      std::lock_guard<std::timed_mutex> lock(outputs_->lock());  // the watchdog's last words read these
      outputs_->end().wrong_total += pl.wrong.value_or(0);
    }
    outputs_->measured(pl.busbw_gbps);
  }
  record_transports(cfg_, comm_, backend_, nvlink_note_, rec);
  if (rank_ == 0 && rec.busbw_meaningful)
    rec.busbw_limit_gbps =
        point_ceiling(rec.collective, rec.ranks, rec.nodes, run_.memory_kind, gpu_family_, path_facts_).gbps;
  outputs_->point(rec);
  progress_->update(fmt::format("{} {}{}", c.name, rec.dtype, rec.op.empty() ? "" : " " + rec.op), p.bytes);
}

int Sweep::run() {
  const Collective& c = *cfg_.collective;
  watchdog_->set_activity("the start-up: describing the run (placement, topologies, path) with every rank");
  if (faults_.hangs_startup(rank_)) hang_forever(rank_, "during the start-up, before the run record");
  run_ =
      describe_run(cfg_, comm_, split_, backend_, nccl_log_, placed_.me, placed_.topo_json, plan_.arena, plan_.shift);
  // What threatens the numbers, before the first point (results/noise.hpp).
  cpu_before_ = sample_cpu();
  run_.noise = oversubscription(run_.placement);
  for (std::string& f : host_load_flags(comm_, cpu_before_, false)) run_.noise.push_back(std::move(f));
  if (cfg_.stragglers) {  // a slow link makes no rank late: probed on its own (docs/stragglers.md)
    watchdog_->set_activity("the start-up: the link probe between hosts (--stragglers)");
    const LinkProbe probe = probe_links(comm_, placed_.me.host);
    run_.link_probe_bytes = probe.bytes;
    run_.link_probe_repeats = probe.repeats;
    run_.link_probe = probe.reading;
  }
  // One node's host memory: its copy rate is the limit of busbw (docs/expect.md).
  if (run_.nodes == 1 && run_.memory_kind == "host" && run_.ranks >= 2 && run_.ranks_per_process == 1 &&
      split_.groups == 1) {
    watchdog_->set_activity("the start-up: host memory's copy rate, every rank at once (the limit of busbw)");
    const MemoryCopyRate m = measure_memory_copy(comm_);
    run_.memory_copy_gbps = m.gbps;
    run_.memory_copy_how = m.how;
  }
  nvlink_note_ = nvlink_under_pcie(cfg_, comm_, backend_, placed_.topo_json);
  if (!nvlink_note_.empty()) run_.path_evidence += "; " + nvlink_note_;
  if (rank_ == 0) {
    if (!nvlink_note_.empty()) fmt::print(stderr, "ccbench: warning: {}\n", nvlink_note_);
    for (const auto& p : run_.placement)
      for (const auto& w : p.warnings) fmt::print(stderr, "ccbench: warning: rank {} ({}): {}\n", p.rank, p.host, w);
    for (const auto& d : run_.node_differences) fmt::print(stderr, "ccbench: warning: nodes differ: {}\n", d);
  }
  outputs_->begin(run_);
  if (rank_ == 0) {  // the facts the end record's expectations read too: from the run record as written
    ResultSet set;
    import_text(outputs_->records(), "this run", set, ImportOptions{});
    path_facts_ = path_facts(set, 0, 0);
    gpu_family_ = set_gpu_family(set);
  }
  progress_ = std::make_unique<Progress>(
      rank_ == 0 ? Progress::choose(cfg_.progress, isatty(2), launcher_rank_variable() != nullptr)
                 : Progress::Style::off,
      plan_.points * static_cast<std::size_t>(cfg_.run_cycles),
      plan_.weight * static_cast<double>(cfg_.run_cycles));  // -N 0: no total

  for (const auto& t : plan_.tasks) {
    if (cfg_.warmup_order == WarmUpOrder::sizes_first && cfg_.warmup > 0 && !t.points.empty()) {
      const OpArgs task{
          .coll = &c, .dtype = t.dtype, .op = t.op.value_or(ReduceOp::sum), .root = cfg_.root, .window = cfg_.window};
      std::size_t largest = 0;
      for (const auto& p : t.points) largest = std::max(largest, p.bytes);
      watchdog_->set_activity(fmt::format("the warm-up of every size ({} {}{})", c.name, info(t.dtype).name,
                                          t.op ? " " + std::string(name(*t.op)) : ""));
      warm_up_every_size(backend_, cfg_, task, largest,
                         unaligned(buffers_.local, info(t.dtype).size, cfg_.unalign, plan_.recv_max), *watchdog_);
    }
    // -N: the sizes again, cycle after cycle (0: until a signal stops the run).
    for (long cycle = 0; cfg_.run_cycles == 0 || cycle < cfg_.run_cycles; ++cycle)
      for (const auto& p : t.points) {
        if (const int code = stop_at_boundary(); code >= 0) return code;
        measure(t, p);
      }
  }
  return end();
}

// The end record of a sweep that measured every point.
int Sweep::end() {
  // An output rank 0 could not write at the last point stops every rank here
  // together (rank 0 alone returned, and the others waited in the next
  // collective until -T, or for ever).
  if (outputs_->at_boundary(comm_, 0).output_failed) {
    progress_->finish();
    return rank_ == 0 ? outputs_->fail() : kExitOutput;
  }
  progress_->finish();
  std::vector<std::string> noise = run_.noise;
  for (std::string& f : host_load_flags(comm_, cpu_before_, true)) noise.push_back(std::move(f));
  std::lock_guard<std::timed_mutex> lock(outputs_->lock());
  EndInfo& end = outputs_->end();
  end.noise = std::move(noise);
  end.noisy_measurements = noisy_points_;
  end.straggler_checked = straggler_checked_;
  for (const auto& [rank, count] : stragglers_named_) {
    const std::string host = split_.groups == 1 ? host_of_rank(run_.placement, rank) : "";
    end.stragglers.push_back(fmt::format("rank {}{} named at {}", rank, host.empty() ? "" : " (" + host + ")", count));
  }
  end.exit_code = end.wrong_total > 0 ? kExitWrongData : kExitOk;
  end.status = end.wrong_total > 0 ? "wrong_data" : "completed";
  if (rank_ == 0) {  // each series against its limit and reference, from the records as written
    ResultSet set;
    import_text(outputs_->records(), "this run", set, ImportOptions{});
    end.expectations = expectations(set, path_facts_, reference_catalogue());
    end.expectations_network = path_facts_.basis;
  }
  // nccl-tests' NCCL_TESTS_MIN_BW: the average within 10% of it, else exit 7 (wrong data first).
  end.min_avg_busbw_gbps = cfg_.min_avg_busbw_gbps;
  if (const double avg = outputs_->average_busbw();
      end.exit_code == kExitOk && cfg_.min_avg_busbw_gbps >= 0 && avg >= 0 && avg < 0.9 * cfg_.min_avg_busbw_gbps)
    end.exit_code = kExitBelowMinBw, end.status = "below_min_bw";
  outputs_->finish(end);
  if (rank_ == 0 && !outputs_->error().empty()) {
    fmt::print(stderr, "ccbench: cannot write {} (at the end record)\n", outputs_->error());
    return kExitOutput;
  }
  return end.exit_code;
}

int sweep_with(Backend& backend, std::unique_ptr<Backend>* owned, const Config& cfg, const Comm& comm,
               const SplitInfo& split, const std::string& nccl_log, Writer* extra, const SweepExports* exports) {
  Sweep sweep(cfg, comm, split, backend, owned, nccl_log);
  if (const int code = sweep.prepare(extra, exports); code != kExitOk) return code;
  return sweep.run();
}

}  // namespace

// The backend's initialisation under -T (issue 54 item 6: NCCL's bootstrap,
// ncclGetUniqueId's broadcast and ncclCommInitRankConfig, stalled on a wrong
// interface or a firewall until the job's time limit): bounded by
// init_bound_s, each rank reporting its own line, exit 4.
std::unique_ptr<Backend> make_backend_bounded(const Config& cfg, const Comm& comm, const std::string& nccl_log,
                                              double bound_s, bool hang) {
  std::unique_ptr<Watchdog> watchdog;
  if (cfg.timeout_s > 0) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    watchdog = std::make_unique<Watchdog>(bound_s, comm.rank(), host, std::function<std::string()>{},
                                          Watchdog::Watches::control_plane);
    watchdog->set_exit_code(kExitTimeout);
    watchdog->set_activity(cfg.backend == BackendKind::nccl
                               ? "the nccl backend's initialisation (ncclGetUniqueId, ncclCommInitRankConfig: "
                                 "NCCL's bootstrap; CCBENCH_INIT_TIMEOUT sets the bound)"
                               : "the backend's initialisation (CCBENCH_INIT_TIMEOUT sets the bound)");
  }
  if (hang) hang_forever(comm.rank(), "in the backend's initialisation");
  return make_backend(cfg, comm, nccl_log);
}

std::unique_ptr<Backend> agreed_backend(const Config& cfg, const Comm& comm, const std::string& nccl_log,
                                        const Comm* group) {
  // The default backend is chosen per process (does it see a GPU?): all must agree.
  const std::vector<std::string> chosen =
      comm.all_strings(std::string(setting_name(cfg.backend)) + "\n" + cfg.backend_reason);
  double bound = 0;
  bool hang = false;
  if (!every_rank_passes(comm, [&] {
        bound = cfg.timeout_s > 0 ? init_bound_s(cfg.timeout_s, env_value(EnvVar::init_timeout)) : 0;
        hang = faults_from_environment().hangs_init(comm.rank());
        for (std::size_t r = 0; r < chosen.size(); ++r)
          if (chosen[r] != chosen.front())
            throw UsageError(fmt::format("ranks chose different backends (rank 0: {}; rank {}: {}): give --backend",
                                         chosen.front().substr(0, chosen.front().find('\n')), r,
                                         chosen[r].substr(0, chosen[r].find('\n'))));
      }))
    return nullptr;
  if (!group) return make_backend_bounded(cfg, comm, nccl_log, bound, hang);
  std::unique_ptr<Backend> backend = make_backend_bounded(cfg, *group, nccl_log, bound, hang);  // its group printed why
  if (!comm.agree_error(backend ? "" : "no backend").empty()) return nullptr;
  return backend;
}

int run_sweep(const Config& cfg, const Comm& comm, const std::string& nccl_log, Writer* extra,
              const SweepExports* exports) {
  SplitInfo split{1, comm.nodes(), ""};
  std::unique_ptr<Comm> group;
  if (const int code = exit_code_of_every_rank(comm, [&] { group = split_into_groups(cfg, comm, split); })) return code;
  std::unique_ptr<Backend> backend = agreed_backend(cfg, comm, nccl_log, group.get());
  if (!backend) return kExitUsage;
  Backend& b = *backend;
  return sweep_with(b, &backend, cfg, comm, split, nccl_log, extra, exports);
}

int run_sweep_on(Backend& backend, const Config& cfg, const Comm& comm, const std::string& nccl_log, Writer* extra) {
  return sweep_with(backend, nullptr, cfg, comm, SplitInfo{1, comm.nodes(), ""}, nccl_log, extra, nullptr);
}

}  // namespace ccb
