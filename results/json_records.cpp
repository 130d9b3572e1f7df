#include "results/json_records.hpp"

#include <cmath>

#include "common/redact.hpp"

namespace ccb {
using nlohmann::json;

namespace {
// A measured or derived number; null when it is not known (NaN, infinite).
json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json summary_to_json(const Summary& s) {
  json j{{"n", s.n},        {"min_us", s.min}, {"p50_us", s.p50},   {"p90_us", s.p90},
         {"p99_us", s.p99}, {"max_us", s.max}, {"mean_us", s.mean}, {"stddev_us", s.stddev}};
  j["ci95_median_us"] = s.ci95_lo ? json::array({*s.ci95_lo, *s.ci95_hi}) : json(nullptr);
  return j;
}

json placement_json(const Measurement& p) {
  if (!p.measured) return nullptr;
  json j{{"time_us", p.time_us},
         {"time_source", p.time_source},
         {"algbw_gbps", p.algbw_gbps},
         {"busbw_gbps", p.busbw_gbps},
         {"wrong", p.wrong ? json(*p.wrong) : json(nullptr)}};
  if (p.bitwise)
    j["bitwise"] = {{"repeats", p.bitwise->repeats},
                    {"across_ranks", p.bitwise->across_ranks},
                    {"differing", p.bitwise->differing},
                    {"first_difference", p.bitwise->first.empty() ? json(nullptr) : json(p.bitwise->first)}};
  j["pipelined_us"] = p.pipelined_us ? json(*p.pipelined_us) : json(nullptr);
  if (p.cputime_us) j["cputime_us"] = *p.cputime_us;
  j["per_iteration"] = p.per_iteration_us ? summary_to_json(*p.per_iteration_us) : json(nullptr);
  j["rank_means"] =
      p.rank_means
          ? json{{"min_us", p.rank_means->min_us}, {"avg_us", p.rank_means->avg_us}, {"max_us", p.rank_means->max_us}}
          : json(nullptr);
  if (!p.samples_us.empty()) j["samples_us"] = p.samples_us;
  j["per_iteration_count"] = p.per_iteration_count;
  j["precision_reached"] = p.precision_reached ? json(*p.precision_reached) : json(nullptr);
  j["adaptive"] = p.stopped_by.empty() || p.stopped_by == "fixed"
                      ? json(nullptr)
                      : json{{"target", p.precision_target ? json(*p.precision_target) : json(nullptr)},
                             {"stopped_by", p.stopped_by}};
  j["window_sync"] = p.late_starts ? json{{"late_starts", *p.late_starts},
                                          {"start_skew_p50_us", *p.start_skew_p50_us},
                                          {"start_skew_max_us", *p.start_skew_max_us}}
                                   : json(nullptr);
  if (!p.noise.empty()) j["noise"] = p.noise;
  if (p.stragglers) {
    const Stragglers& s = *p.stragglers;
    j["stragglers"] = {{"named", s.named},
                       {"last_rank", s.last_rank},
                       {"host", s.host.empty() ? json(nullptr) : json(s.host)},
                       {"noise", s.noise.empty() ? json(nullptr) : json(s.noise)},
                       {"last_count", s.last_count},
                       {"iterations", s.iterations},
                       {"chance_p", s.chance_p},
                       {"skew_us", summary_to_json(s.skew_us)},
                       {"lateness_us", s.lateness_us},
                       {"last_counts", s.last_counts}};
  }
  if (p.in_loop)
    j["in_loop"] = {{"skipped", p.in_loop->skipped},
                    {"times_us", p.in_loop->times_us},
                    {"per_process_times_us", p.in_loop->per_process_us}};
  return j;
}

json io_run_json(const IoRunInfo& io) {
  return {{"target_dir", io.target_dir},
          {"workspace", io.workspace},
          {"fs_type", io.fs_type},
          {"patterns", io.patterns},
          {"engine", io.engine},
          {"direct", io.direct},
          {"queue_depth", io.queue_depth},
          {"threads", io.threads},
          {"layout", io.layout},
          {"memory", io.memory},
          {"file_bytes", io.file_bytes},
          {"dataset_files", io.dataset_files},
          {"read_percent", io.read_percent},
          {"check_passes", io.check_passes},
          {"time_per_size_s", io.time_per_size},
          {"kept", io.kept},
          {"gds", io.gds}};
}

json io_point_json(const IoPointInfo& io) {
  return {{"pattern", io.pattern},
          {"mode", io.mode},
          {"bytes_moved", io.bytes_moved},
          {"ops", io.ops},
          {"elapsed_s", io.elapsed_s},
          {"gbps", io.gbps},
          {"iops", io.iops},
          {"rank_gbps", io.rank_gbps},
          {"page_cache_resident_before", io.resident_before < 0 ? json(nullptr) : json(io.resident_before)},
          {"cut_short", io.cut_short}};
}

}  // namespace

json run_to_json(const RunInfo& r) {
  json placement = json::array();
  for (const auto& p : r.placement) placement.push_back(json::parse(placement_to_json(p)));
  json node_topologies = json::array();
  for (const auto& n : r.node_topologies)
    node_topologies.push_back({{"fingerprint", n.fingerprint},
                               {"hosts", n.hosts},
                               {"topology", n.topology_json.empty() ? json(nullptr) : json::parse(n.topology_json)}});
  std::vector<std::string> argv;  // a --history URL's password is not recorded
  for (const std::string& a : r.argv) argv.push_back(redact_credentials(a));
  json j = {
      {"type", "run"},
      {"schema_version", kSchemaVersion},
      {"started_at", r.started_at},
      {"argv", argv},
      {"versions",
       {{"ccbench", r.ccbench_version},
        {"git_revision", r.git_revision},
        {"compiler", r.compiler},
        {"mpi_library", r.mpi_library},
        {"mpi_standard", r.mpi_version},
        {"os_kernel", r.os_kernel},
        {"os", r.os},
        {"hwloc_api", r.hwloc_version},
        {"cuda", r.cuda},
        {"nccl", r.nccl},
        {"nccl_headers", r.nccl_headers.empty() ? json(nullptr) : json(r.nccl_headers)},
        {"host_kernels", r.host_kernels}}},
      {"config",
       {{"collective", r.collective},
        {"backend", r.backend},
        {"backend_reason", r.backend_reason},
        {"memory_kind", r.memory_kind},
        {"dtypes", r.dtypes},
        {"ops", r.ops},
        {"root", r.root},
        {"iterations", r.iterations},
        {"warmup_iterations", r.warmup},
        {"warmup_order", r.warmup_order},
        {"check_iterations", r.check_iterations},
        {"rank_combine", r.aggregation},
        {"blocking", r.blocking},
        {"blocking_requested", r.blocking_requested},
        {"mpi_calls", r.mpi_calls.empty() ? json(nullptr) : json(r.mpi_calls)},
        {"window", r.window},
        {"ranks_per_process", r.ranks_per_process},
        {"cuda_graph", r.cuda_graph},
        {"per_iter_timing", r.per_iter_timing},
        {"per_iter_skip", r.per_iter_skip},
        {"report_cputime", r.report_cputime},
        {"sampling",
         {{"precision", r.precision},
          {"time_per_size_s", r.time_per_size},
          {"max_time_per_size_s", r.max_time_per_size},
          {"max_iters", r.max_iters},
          {"sync", r.sync},
          {"rotate_buffers", r.rotate_buffers},
          {"rotate_arena_bytes", r.rotate_arena_bytes},
          {"buffer_shift_bytes", r.buffer_shift_bytes}}},
        {"register_buffers", r.register_buffers},
        {"sizes",
         {{"min_bytes", r.min_bytes},
          {"max_bytes", r.max_bytes},
          {"step_bytes", r.step_bytes},
          {"step_factor", r.step_factor},
          {"strict", r.strict_sizes}}},
        {"timing_modes", r.timing_modes},
        {"clock", r.clock},
        {"clock_resolution_s", r.clock_resolution_s}}},
      {"path",
       {{"requested", r.path_requested},
        {"observed", r.path_observed},
        {"evidence", r.path_evidence},
        {"tcp_interfaces", r.path_tcp_interfaces.empty() ? json(nullptr) : json(r.path_tcp_interfaces)}}},
      {"ranks", r.ranks},
      {"nodes", r.nodes},
      {"groups", r.groups},
      {"split", r.split.empty() ? json(nullptr) : json(r.split)},
      {"placement", placement},
      {"node_topologies", node_topologies},
      {"node_differences", r.node_differences},
      {"environment", r.environment},
  };
  if (r.io) j["io"] = io_run_json(*r.io);
  if (!r.traffic.empty()) j["config"]["traffic"] = {{"model", r.traffic}, {"from", r.traffic_from}};
  if (r.link_probe_bytes > 0) {
    const LinkReading& l = r.link_probe;
    json links = json::array();
    for (double s : l.link_s) links.push_back(s * 1e3);
    j["link_probe"] = {{"bytes", r.link_probe_bytes},
                       {"repeats", r.link_probe_repeats},
                       {"hosts", l.hosts},
                       {"link_ms", links},
                       {"reference_ms", l.link_s.empty() ? json(nullptr) : json(l.reference_s * 1e3)},
                       {"slow_hosts", l.slow_hosts},
                       {"slow_links", l.slow_links},
                       {"text", l.link_s.empty() ? json(nullptr) : json(l.text())}};
  }
  const auto positive = [](double v) { return v > 0 ? json(v) : json(nullptr); };
  j["limits"] = {{"link_rate", r.link_rate.empty() ? json(nullptr) : json(r.link_rate)},
                 {"link_rate_gbps", positive(r.link_rate_gbps)},
                 {"nics_per_node", r.nics_per_node > 0 ? json(r.nics_per_node) : json(nullptr)},
                 {"memory_copy_gbps", positive(r.memory_copy_gbps)},
                 {"memory_copy", r.memory_copy_how.empty() ? json(nullptr) : json(r.memory_copy_how)}};
  j["noise"] = r.noise;
  return j;
}

json point_to_json(const PointRecord& p) {
  json notes = json::array();
  if (!p.out_of_place.note.empty()) notes.push_back("out_of_place: " + p.out_of_place.note);
  if (!p.in_place.note.empty()) notes.push_back("in_place: " + p.in_place.note);
  json path = nullptr;
  if (p.path_classes)
    path = {{"observed", *p.path_classes},
            {"transports", p.transports},
            {"scope", p.transports_per_point ? "point" : "so far"},
            {"algorithms", p.algorithms},
            {"warning", p.path_warning.empty() ? json(nullptr) : json(p.path_warning)}};
  json j = {
      {"type", "point"},
      {"collective", p.collective},
      {"dtype", p.dtype},
      {"op", p.op.empty() ? json(nullptr) : json(p.op)},
      {"root", p.root < 0 ? json(nullptr) : json(p.root)},
      {"ranks", p.ranks},
      {"nodes", p.nodes},
      {"groups", p.groups},
      {"requested_bytes", p.requested_bytes},
      {"bytes", p.bytes},
      {"count", p.count},
      {"iterations", p.iterations},
      {"bus_factor", p.bus_factor},
      {"busbw_meaningful", p.busbw_meaningful},
      {"busbw_limit_gbps", number(p.busbw_limit_gbps)},
      {"out_of_place", placement_json(p.out_of_place)},
      {"in_place", placement_json(p.in_place)},
      {"notes", notes},
      {"path", path},
      {"endpoints", p.src.empty() ? json(nullptr) : json{{"src", p.src}, {"dst", p.dst}}},
  };
  if (p.io) j["io"] = io_point_json(*p.io);
  if (p.traffic)
    j["traffic"] = {{"busiest_rank", p.traffic->busiest_rank},       {"busiest_host", p.traffic->busiest_host},
                    {"busiest_bytes", p.traffic->busiest_bytes},     {"sent_min_bytes", p.traffic->sent_min},
                    {"sent_max_bytes", p.traffic->sent_max},         {"received_min_bytes", p.traffic->received_min},
                    {"received_max_bytes", p.traffic->received_max}, {"sent_mean_bytes", p.traffic->sent_mean}};
  if (p.traffic && p.traffic->split_known) {
    j["traffic"]["busiest_scale_up_bytes"] = p.traffic->busiest_scale_up;
    j["traffic"]["busiest_scale_out_bytes"] = p.traffic->busiest_scale_out;
  }
  if (p.traffic && p.traffic->tokens > 0) j["traffic"]["tokens_per_rank"] = p.traffic->tokens;
  return j;
}

json expectation_json(const Expectation& x) {
  json ref = nullptr;
  if (x.reference)
    ref = {{"id", x.reference->id},       {"system", x.reference->system}, {"busbw_gbps", x.reference->busbw_gbps},
           {"bytes", x.reference->bytes}, {"source", x.reference->source}, {"date", x.reference->date}};
  return {{"series", x.series},
          {"bytes", x.bytes},
          {"busbw_gbps", number(x.busbw_gbps)},
          {"limit_gbps", number(x.ceiling.gbps)},
          {"limit_basis", x.ceiling.basis},
          {"share_of_limit", number(x.share_of_limit)},
          {"above_limit", x.above_limit ? json(x.above_limit_why) : json(nullptr)},
          {"reference", ref},
          {"share_of_reference", number(x.share_of_reference)},
          {"no_reference", x.reference ? json(nullptr) : json(x.no_reference_why)}};
}

json end_to_json(const EndInfo& e) {
  json j = {{"type", "end"},
            {"status", e.status},
            {"ended_at", e.ended_at},
            {"points", e.points},
            {"wrong_total", e.wrong_total},
            {"exit_code", e.exit_code},
            {"avg_busbw_gbps", e.avg_busbw_gbps},
            {"noise", e.noise},
            {"noisy_measurements", e.noisy_measurements}};
  if (!e.export_errors.empty()) j["export_errors"] = e.export_errors;
  if (e.straggler_checked > 0) j["stragglers"] = {{"named", e.stragglers}, {"placements", e.straggler_checked}};
  if (!e.expectations.empty()) {
    json all = json::array();
    for (const Expectation& x : e.expectations) all.push_back(expectation_json(x));
    j["expectations"] = {{"network", e.expectations_network}, {"series", all}};
  }
  return j;
}

std::string placement_to_json(const RankPlacement& p) {
  return json{{"rank", p.rank},
              {"host", p.host},
              {"pid", p.pid},
              {"local_rank", p.local_rank},
              {"cpu", p.cpu},
              {"bound_cpus", p.bound_cpus},
              {"machine", p.machine},
              {"devices", p.devices},
              {"bind", {{"policy", p.bind_policy}, {"reason", p.bind_reason}}},
              {"cpu_numa", p.cpu_numa},
              {"mem_numa", p.mem_numa},
              {"gpus", p.gpus},
              {"gpu_numa", p.gpu_numa},
              {"nic", p.nic},
              {"nic_distance", p.nic_distance},
              {"warnings", p.warnings},
              {"node", p.node},
              {"versions", p.versions},
              {"clock_offset_us", p.clock_offset_us},
              {"clock_offset_rtt_us", p.clock_offset_rtt_us}}
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

RankPlacement placement_from_json(const std::string& text) {
  const json j = json::parse(text);
  RankPlacement p;
  p.rank = j.at("rank");
  p.host = j.at("host");
  p.pid = j.at("pid");
  p.local_rank = j.at("local_rank");
  p.cpu = j.at("cpu");
  p.bound_cpus = j.at("bound_cpus");
  p.machine = j.value("machine", "");  // absent before 2026-12-04
  p.devices = j.at("devices").get<std::vector<int>>();
  p.bind_policy = j.at("bind").at("policy");
  p.bind_reason = j.at("bind").at("reason");
  p.cpu_numa = j.at("cpu_numa").get<std::vector<int>>();
  p.mem_numa = j.at("mem_numa");
  p.gpus = j.at("gpus").get<std::vector<std::string>>();
  p.gpu_numa = j.at("gpu_numa");
  p.nic = j.at("nic");
  p.nic_distance = j.at("nic_distance");
  p.warnings = j.at("warnings").get<std::vector<std::string>>();
  p.node = j.at("node");
  p.versions = j.at("versions");
  p.clock_offset_us = j.at("clock_offset_us");
  p.clock_offset_rtt_us = j.at("clock_offset_rtt_us");
  return p;
}

}  // namespace ccb
