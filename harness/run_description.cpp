#include "harness/run_description.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <vector>

#include "collectives/nccl/nccl_env.hpp"
#include "harness/run_info.hpp"
#if CCBENCH_HAVE_MPI
#include "harness/mpi_path.hpp"
#endif

namespace ccb {

RunInfo describe_config(const Config& cfg, Backend& backend, std::size_t arena_bytes, std::size_t shift_bytes) {
  const Collective& c = *cfg.collective;
  RunInfo run;
  run.argv = cfg.argv;
  run.collective = std::string(c.name);
  run.backend = std::string(backend.name());
  run.backend_reason = cfg.backend_reason;
  run.memory_kind = std::string(backend.memory().kind());
  for (DType d : cfg.dtypes) run.dtypes.emplace_back(info(d).name);
  if (c.reduces)
    for (ReduceOp o : cfg.ops) run.ops.emplace_back(name(o));
  run.root = c.rooted ? cfg.root : -1;
  run.iterations = cfg.iters;
  run.warmup = cfg.warmup;
  run.warmup_order = std::string(setting_name(cfg.warmup_order));
  run.check_iterations = cfg.check;
  run.aggregation = static_cast<int>(cfg.aggregation);
  run.blocking = backend.blocking();
  run.blocking_requested = cfg.blocking;
  if (run.backend == "mpi") run.mpi_calls = std::string(setting_name(cfg.mpi_calls));
  run.window = cfg.window;
  run.precision = cfg.precision;
  run.time_per_size = cfg.time_per_size;
  run.max_time_per_size = cfg.max_time_per_size;
  run.max_iters = cfg.max_iters;
  run.sync = std::string(setting_name(cfg.sync));
  run.rotate_buffers = cfg.rotate_buffers;
  run.rotate_arena_bytes = arena_bytes;
  run.buffer_shift_bytes = shift_bytes;
  run.ranks_per_process = backend.local_ranks();
  run.link_rate = cfg.link_rate;
  run.link_rate_gbps = cfg.link_rate_gbps;
  run.nics_per_node = cfg.nics_per_node;
  run.cuda_graph = cfg.cuda_graph;
  run.per_iter_timing = cfg.per_iter_timing;
  run.per_iter_skip = cfg.per_iter_skip;
  run.report_cputime = cfg.report_cputime;
  run.unalign = cfg.unalign;
  run.report_timestamps = cfg.report_timestamps;
  run.register_buffers = cfg.register_buffers;
  run.min_bytes = cfg.min_bytes;
  run.max_bytes = cfg.max_bytes;
  run.step_bytes = cfg.step_bytes;
  run.step_factor = cfg.step_factor;
  run.strict_sizes = cfg.strict_sizes;
  run.timing_modes = std::string(setting_name(cfg.timing));
  if (c.source == Source::traffic) {
    const TrafficModel m = cfg.traffic.value_or(TrafficModel{});
    run.traffic = m.text();
    run.traffic_from = m.from.empty() ? "default" : m.from;
  }
  // Pipelined: nccl-tests' definition on every backend (harness/measure.cpp).
  const std::string pipelined =
      "pipelined: host steady clock around -n launches and one final synchronisation, after one "
      "synchronised operation and a barrier; ";
  run.clock =
      cfg.sync == SyncMode::window
          ? fmt::format("{}{} on every process; per_iteration starts at common times on rank 0's clock (window sync)",
                        pipelined, backend.clock_name())
          : fmt::format("{}{} on every process, barrier outside the timed region for per_iteration", pipelined,
                        backend.clock_name());
  run.clock_resolution_s = backend.clock_resolution_s();
  run.path_requested = std::string(setting_name(cfg.path));
  run.started_at = utc_now_iso8601();
  return run;
}

RunInfo describe_run(const Config& cfg, const Comm& comm, const SplitInfo& split, Backend& backend,
                     const std::string& nccl_log, const RankPlacement& me, const std::string& topo_json,
                     std::size_t arena_bytes, std::size_t shift_bytes) {
  RunInfo run = describe_config(cfg, backend, arena_bytes, shift_bytes);
  collect_run_info(comm, me, backend.ranks(), topo_json, run);
  if (!split.rule.empty()) {  // the header's ranks and nodes are one group's, as every row's
    run.nodes = split.group_nodes;
    run.groups = split.groups;
    run.split = split.rule;
    if (cfg.split)
      for (RankPlacement& p : run.placement) p.group = cfg.split->color(p.rank);
  }
  if (backend.name() == "nccl") {
    run.path_observed = "per point";
    std::string set;
    for (const auto& [name, value] : nccl_path_environment(cfg.path)) set += fmt::format("{}={} ", name, value);
    if (const char* subsys = std::getenv("NCCL_DEBUG_SUBSYS"); cfg.nccl_algorithms && subsys)
      set += fmt::format("NCCL_DEBUG_SUBSYS={} ", subsys);
    run.path_evidence = fmt::format("{}NCCL INFO log of rank 0's process: {}", set.empty() ? "" : "set " + set + "; ",
                                    nccl_log.empty() ? "not captured" : nccl_log);
    return run;
  }
#if CCBENCH_HAVE_MPI
  run.path_tcp_interfaces = tcp_interfaces_allowed(&run.tcp_unpinned);
#endif
  if (!cfg.observe_path) {
    run.path_observed = "not observed";
    run.path_evidence = cfg.observe_path_note;
    return run;
  }
#if CCBENCH_HAVE_MPI
  std::vector<std::string> hosts;  // every process's host, on every process
  for (const auto& p : run.placement) hosts.push_back(p.host);
  const ObservedPath observed = observe_path(dynamic_cast<const MpiComm&>(comm), hosts);
  run.path_observed = observed.path;
  run.path_evidence = observed.evidence;
#endif
  return run;
}

}  // namespace ccb
