// NCCL Inspector (NCCL's ext-profiler/inspector plugin): what a production
// job's collectives did, one record per collective per communicator.
//
// JSON (its default): one object per line, {"header": {"id" (communicator),
// "rank", "n_ranks", "nnodes"}, "metadata": {"hostname", "pid",
// "dump_timestamp_us", "inspector_output_format_version", ...}, "coll_perf":
// {"coll" (AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, ...),
// "coll_sn", "coll_msg_size_bytes", "coll_exec_time_us", "coll_algobw_gbs",
// "coll_busbw_gbs", "coll_timing_source"}}.
// Prometheus (NCCL_INSPECTOR_PROM_DUMP=1): nccl_bus_bandwidth_gbs,
// nccl_algorithm_bandwidth_gbs and nccl_collective_exec_time_microseconds,
// labelled collective, n_ranks, n_nodes, hostname, rank, comm_id, coll_sn
// and message_size ("2.00GB": decimal units, two decimals).
//
// Production sizes are whatever the job sent: records are grouped per
// collective, communicator size (ranks, nodes) and size bucket (the power
// of two nearest the message size, in log scale), so that they line up with
// a sweep's sizes. Each bucket becomes one point: busbw and algbw the
// medians over its records, time the bucket's bytes / that algbw (so the
// three agree at the bucket's size), and each record's time scaled to the
// bucket's size as a sample (compare's significance test reads them). The
// run's start is the earliest dump_timestamp_us (the history's time of it).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "results/import/importer.hpp"
#include "results/import/json_lines.hpp"
#include "results/import/text_input.hpp"
#include "results/stats.hpp"

namespace ccb {
namespace {

using nlohmann::json;

// Samples kept per point (a job of a million collectives has a million
// records; the median and the test need far fewer).
constexpr std::size_t kMaxRecordSamples = 100000;

// "AllReduce" -> "all_reduce"; "" for what ccbench has no collective of (Send, Recv).
std::string collective_of(std::string_view coll) {
  std::string word;
  for (char c : coll)
    if (std::isalnum(static_cast<unsigned char>(c)))
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const std::pair<const char*, const char*> kNames[] = {
      {"allreduce", "all_reduce"}, {"allgather", "all_gather"}, {"reducescatter", "reduce_scatter"},
      {"broadcast", "broadcast"},  {"reduce", "reduce"},        {"alltoall", "alltoall"},
      {"gather", "gather"},        {"scatter", "scatter"}};
  for (const auto& [key, name] : kNames)
    if (word == key) return name;
  return "";
}

// The power of two nearest `bytes` in log scale (1 for 0 and 1).
std::uint64_t size_bucket(double bytes) {
  if (!(bytes > 1)) return 1;
  const double e = std::min(62.0, std::round(std::log2(bytes)));
  return std::uint64_t{1} << static_cast<int>(e);
}

struct Record {
  std::string collective;
  int ranks = 0, nodes = 0;
  double bytes = 0, time_us = kNaN, algbw = kNaN, busbw = kNaN;
  std::string host;
  std::uint32_t line = 0;
};

struct Bucket {
  std::vector<double> busbw, algbw, scaled_time_us;
  std::uint32_t first_line = 0;
  std::size_t records = 0;
};
using BucketKey = std::tuple<std::string, int, int, std::uint64_t>;  // collective, ranks, nodes, bucket

class Buckets {
 public:
  explicit Buckets(ImportContext& ctx) : ctx_(ctx) {}
  void add(const Record& r) {
    if (!r.host.empty()) ctx_.set.hosts.insert(r.host.substr(0, 256));
    if (r.collective.empty()) {
      ++other_;
      return;
    }
    const std::uint64_t b = size_bucket(r.bytes);
    Bucket& k = buckets_[{r.collective, r.ranks, r.nodes, b}];
    if (k.records++ == 0) k.first_line = r.line;
    k.busbw.push_back(r.busbw);
    k.algbw.push_back(r.algbw);
    if (r.time_us > 0 && r.bytes > 0 && k.scaled_time_us.size() < kMaxRecordSamples)
      k.scaled_time_us.push_back(r.time_us * static_cast<double>(b) / r.bytes);
  }
  void finish() {
    ctx_.set.note_env("tool", "NCCL Inspector");
    if (other_ > 0)
      ctx_.set.note_env("inspector.not_read",
                        fmt::format("{} records of point-to-point or unknown operations", other_));
    for (auto& [key, k] : buckets_) {
      const auto& [collective, ranks, nodes, bucket] = key;
      ImportedPoint p;
      p.collective = collective;
      p.memory = "device";
      p.ranks = ranks;
      p.nodes = nodes;
      p.bytes = p.requested_bytes = bucket;
      p.busbw_gbps = median_of(k.busbw);
      p.algbw_gbps = median_of(k.algbw);
      if (p.algbw_gbps > 0) p.time_us = static_cast<double>(bucket) / (p.algbw_gbps * 1e3);
      if (!(p.time_us > 0) || !std::isfinite(p.time_us)) p.time_us = median_of(k.scaled_time_us);
      if (!(p.time_us > 0) || !std::isfinite(p.time_us)) continue;  // nothing timed it
      if (k.scaled_time_us.size() > 1) p.samples_us = std::move(k.scaled_time_us);
      p.line = k.first_line;
      ctx_.add(std::move(p));
    }
  }

 private:
  ImportContext& ctx_;
  std::map<BucketKey, Bucket> buckets_;
  std::size_t other_ = 0;
};

double number_at(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : kNaN;
}

// "2.00GB", "512.00KB", "8B" (decimal units, as the plugin writes them).
double decimal_size(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  const auto v = parse_double(s.substr(0, i));
  if (!v) return kNaN;
  const std::string_view unit = s.substr(i);
  static const std::pair<std::string_view, double> kUnits[] = {{"B", 1},    {"KB", 1e3},  {"MB", 1e6},
                                                               {"GB", 1e9}, {"TB", 1e12}, {"PB", 1e15}};
  for (const auto& [u, f] : kUnits)
    if (unit == u) return *v * f;
  return kNaN;
}

bool sane(const Record& r) {
  return r.ranks > 0 && r.ranks < (1 << 24) && r.nodes >= 0 && r.nodes <= r.ranks && r.bytes >= 0 && r.bytes < 1.8e19;
}

// "" when each measured figure the record has is a finite number that can
// be measured (a time above 0, bandwidths 0 or more) and one of time and
// algbw is there to place the point; else why not (a negative busbw became
// a point of -350 GB/s).
std::string unmeasurable(const Record& r, const char* time, const char* algbw, const char* busbw) {
  const auto bad = [](double v, bool zero_ok) {
    return !std::isnan(v) && !(std::isfinite(v) && (v > 0 || (zero_ok && v == 0)));
  };
  if (bad(r.time_us, false)) return fmt::format("{} {:g}: not a time above 0", time, r.time_us);
  if (bad(r.algbw, true)) return fmt::format("{} {:g}: not a bandwidth of 0 or more", algbw, r.algbw);
  if (bad(r.busbw, true)) return fmt::format("{} {:g}: not a bandwidth of 0 or more", busbw, r.busbw);
  if (!(r.time_us > 0) && !(r.algbw > 0)) return fmt::format("neither {} nor {} is a positive number", time, algbw);
  return "";
}

}  // namespace

void import_nccl_inspector_json(std::string_view text, ImportContext& ctx) {
  Buckets buckets(ctx);
  double first_us = kNaN;
  for_each_json_object(text, ctx, [&](const json& j, std::uint32_t n) {
    const auto header = j.find("header"), meta = j.find("metadata"), perf = j.find("coll_perf");
    if (header == j.end() || perf == j.end() || !header->is_object() || !perf->is_object()) {
      ctx.unread(n, "no header and coll_perf: not an NCCL Inspector record");
      return JsonLine::next;
    }
    Record r;
    r.line = n;
    const auto coll = perf->find("coll");
    r.collective = coll != perf->end() && coll->is_string() ? collective_of(coll->get<std::string>()) : "";
    const double ranks = number_at(*header, "n_ranks"), nodes = number_at(*header, "nnodes");
    r.ranks = std::isfinite(ranks) && ranks >= 0 && ranks < (1 << 24) ? static_cast<int>(ranks) : 0;
    r.nodes = std::isfinite(nodes) && nodes >= 0 && nodes < (1 << 24) ? static_cast<int>(nodes) : 0;
    r.bytes = number_at(*perf, "coll_msg_size_bytes");
    r.time_us = number_at(*perf, "coll_exec_time_us");
    r.algbw = number_at(*perf, "coll_algobw_gbs");
    r.busbw = number_at(*perf, "coll_busbw_gbs");
    if (meta != j.end() && meta->is_object()) {
      if (const auto h = meta->find("hostname"); h != meta->end() && h->is_string()) r.host = h->get<std::string>();
      const double ts = number_at(*meta, "dump_timestamp_us");  // the job's first record: the run's start
      if (ts > 0 && ts < 4.1e15 && (!(first_us > 0) || ts < first_us)) first_us = ts;
    }
    if (!sane(r) || !std::isfinite(r.bytes)) {
      ctx.unread(n, "n_ranks, nnodes or coll_msg_size_bytes missing or out of range");
      return JsonLine::next;
    }
    if (const std::string why = unmeasurable(r, "coll_exec_time_us", "coll_algobw_gbs", "coll_busbw_gbs");
        !why.empty()) {
      ctx.unread(n, why);
      return JsonLine::next;
    }
    buckets.add(r);
    return JsonLine::next;
  });
  buckets.finish();
  if (first_us > 0 && ctx.set.started_at.empty()) {
    const auto seconds = static_cast<std::time_t>(first_us / 1e6);
    std::tm tm{};
    gmtime_r(&seconds, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    ctx.set.started_at = fmt::format("{}.{:03d}Z", buf, static_cast<int>(std::fmod(first_us / 1e3, 1e3)));
  }
}

void import_nccl_inspector_prom(std::string_view text, ImportContext& ctx) {
  // One collective instance per label set (all labels but the metric's name).
  std::map<std::string, Record> records;
  LineReader lines(text);
  std::string_view l;
  while (lines.next(l)) {
    const std::uint32_t n = lines.number();
    if (trim(l).empty() || l.front() == '#') continue;
    if (ctx.skip_long_line(l, n)) continue;
    const std::size_t brace = l.find('{'), close = l.rfind('}');
    if (brace == std::string_view::npos || close == std::string_view::npos || close < brace) {
      ctx.unread(n, "not a labelled sample (NAME{LABELS} VALUE)");
      continue;
    }
    const std::string_view metric = l.substr(0, brace);
    const auto value = parse_double(trim(l.substr(close + 1)));
    if (metric != "nccl_bus_bandwidth_gbs" && metric != "nccl_algorithm_bandwidth_gbs" &&
        metric != "nccl_collective_exec_time_microseconds")
      continue;  // other metrics of the same textfile folder
    if (!value) {
      ctx.unread(n, "the sample's value is not a number");
      continue;
    }
    std::map<std::string, std::string> labels;
    const std::string_view body = l.substr(brace + 1, close - brace - 1);
    std::size_t at = 0;
    bool bad = false;
    while (at < body.size()) {
      const std::size_t eq = body.find("=\"", at);
      if (eq == std::string_view::npos) {
        bad = true;
        break;
      }
      std::string v;
      std::size_t i = eq + 2;
      for (; i < body.size() && body[i] != '"'; ++i) {
        if (body[i] == '\\' && i + 1 < body.size()) ++i;
        v += body[i];
      }
      if (i >= body.size()) {
        bad = true;
        break;
      }
      labels[std::string(trim(body.substr(at, eq - at)))] = v;
      at = i + 1;
      while (at < body.size() && (body[at] == ',' || body[at] == ' ')) ++at;
    }
    if (bad) {
      ctx.unread(n, "labels not as Prometheus writes them (name=\"value\",...)");
      continue;
    }
    std::string key;
    for (const auto& [k, v] : labels) key += k + "=" + v + "\n";
    Record& r = records[key];
    if (r.line == 0) {
      r.line = n;
      r.collective = collective_of(labels["collective"]);
      const auto ranks = parse_double(labels["n_ranks"]), nodes = parse_double(labels["n_nodes"]);
      r.ranks = ranks && *ranks >= 0 && *ranks < (1 << 24) ? static_cast<int>(*ranks) : 0;
      r.nodes = nodes && *nodes >= 0 && *nodes < (1 << 24) ? static_cast<int>(*nodes) : 0;
      r.bytes = decimal_size(labels["message_size"]);
      r.host = labels["hostname"];
    }
    if (metric == "nccl_bus_bandwidth_gbs") r.busbw = *value;
    else if (metric == "nccl_algorithm_bandwidth_gbs") r.algbw = *value;
    else r.time_us = *value;
  }
  Buckets buckets(ctx);
  for (const auto& [key, r] : records) {
    if (!sane(r) || !std::isfinite(r.bytes)) {
      ctx.unread(r.line, "n_ranks, n_nodes or message_size missing or out of range");
      continue;
    }
    if (const std::string why = unmeasurable(r, "nccl_collective_exec_time_microseconds",
                                             "nccl_algorithm_bandwidth_gbs", "nccl_bus_bandwidth_gbs");
        !why.empty()) {
      ctx.unread(r.line, why);
      continue;
    }
    buckets.add(r);
  }
  buckets.finish();
}

}  // namespace ccb
