#include "harness/run_info.hpp"

#include "common/redact.hpp"

#include <fmt/format.h>
#if CCBENCH_HAVE_HWLOC
#include <hwloc.h>
#endif
#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <cctype>
#include <chrono>
#include <ctime>

#include "harness/topo/binding.hpp"
#include "kernels/host_kernels.hpp"
#include "results/json_records.hpp"
#if CCBENCH_HAVE_CUDA
#include "kernels/cuda/gpu_info.hpp"
#endif
#if CCBENCH_HAVE_NCCL
#include "collectives/nccl/nccl_entry_points.hpp"
#include "collectives/nccl/nccl_lifecycle.hpp"
#include "collectives/nccl/nccl_version.hpp"
#endif

extern char** environ;

namespace ccb {

bool is_recorded_variable(std::string_view name) {
  static constexpr std::array<std::string_view, 7> kPrefixes{"NCCL_",  "UCX_",  "OMPI_",   "CUDA_",
                                                             "SLURM_", "PMIX_", "CCBENCH_"};
  for (auto p : kPrefixes)
    if (name.substr(0, p.size()) == p) return true;
  return false;
}

bool looks_secret(std::string_view name) {
  static constexpr std::array<std::string_view, 9> kWords{"TOKEN",      "SECRET", "PASSWORD", "PASSWD", "KEY",
                                                          "CREDENTIAL", "AUTH",   "COOKIE",   "SESSION"};
  std::string upper(name);
  for (auto& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  for (auto w : kWords)
    if (upper.find(w) != std::string::npos) return true;
  return false;
}

std::map<std::string, std::string> capture_environment(const char* const* envp) {
  std::map<std::string, std::string> out;
  for (; envp && *envp; ++envp) {
    const std::string_view entry = *envp;
    const auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = entry.substr(0, eq);
    if (!is_recorded_variable(key)) continue;
    // OMPI_ARGV and friends carry the command line: a URL's password is taken out of every value.
    out[std::string(key)] = looks_secret(key) ? std::string(kRedacted) : redact_credentials(entry.substr(eq + 1));
  }
  return out;
}

std::string utc_now_iso8601() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:03d}Z", buf, ms);
}

namespace {
std::string bound_cpus() { return format_cpu_list(current_cpu_binding()); }

// The kernel's boot id: processes in containers or network namespaces with
// their own host names still share this machine's CPUs.
std::string machine_id() {
  std::ifstream f("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(f, id);
  return id;
}
}  // namespace

RankPlacement this_process(const Comm& comm, const ProcessRanks& mine) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  RankPlacement me;
  me.rank = mine.first_rank;
  me.host = host;
  me.pid = static_cast<long>(getpid());
  me.local_rank = comm.local_rank();
  me.cpu = sched_getcpu();
  me.bound_cpus = bound_cpus();
  me.machine = machine_id();
  me.devices = mine.devices;
#if CCBENCH_HAVE_CUDA
  const GpuInfo g = query_gpus();
  me.versions = fmt::format("cuda driver {} runtime {}", g.driver_version, g.runtime_version);
  for (int d : mine.devices) me.gpus.push_back(gpu_bus_id(d));
#endif
#if CCBENCH_HAVE_NCCL
  me.versions += fmt::format(", nccl {}", nccl_version());
#endif
  return me;
}

void collect_run_info(const Comm& comm, const RankPlacement& me, int world_ranks, const std::string& topo_json,
                      RunInfo& info) {
  RankPlacement now = me;
  now.cpu = sched_getcpu();  // after binding
  now.bound_cpus = bound_cpus();
  const auto all = comm.all_strings(placement_to_json(now));
  for (const auto& text : all) info.placement.push_back(placement_from_json(text));
  // One topology per distinct node (processes on one host send the same one).
  const auto topologies = comm.all_strings(topo_json);
  for (std::size_t i = 0; i < topologies.size(); ++i) {
    const RankPlacement& p = info.placement[i];
    auto it = std::find_if(info.node_topologies.begin(), info.node_topologies.end(),
                           [&](const NodeRecord& n) { return n.fingerprint == p.node; });
    if (it == info.node_topologies.end()) {
      info.node_topologies.push_back({p.node, {p.host}, topologies[i]});
    } else if (std::find(it->hosts.begin(), it->hosts.end(), p.host) == it->hosts.end()) {
      it->hosts.push_back(p.host);
    }
  }
  info.node_differences = node_differences(info.node_topologies, info.placement);
  info.ranks = world_ranks;
  info.nodes = comm.nodes();
  info.ccbench_version = CCBENCH_VERSION;
  info.git_revision = CCBENCH_GIT_REVISION;
#if defined(__clang__)
  info.compiler = fmt::format("clang {}", __clang_version__);
#elif defined(__GNUC__)
  info.compiler = fmt::format("gcc {}", __VERSION__);
#endif
  info.mpi_library = comm.mpi_library().empty() ? "none (built without MPI or not used)" : comm.mpi_library();
  info.mpi_version = comm.mpi_standard();
  std::ifstream os_release("/etc/os-release");
  for (std::string line; std::getline(os_release, line);)
    if (line.rfind("PRETTY_NAME=", 0) == 0) {
      info.os = line.substr(12);
      info.os.erase(std::remove(info.os.begin(), info.os.end(), '"'), info.os.end());
    }
  utsname u{};
  if (uname(&u) == 0) info.os_kernel = fmt::format("{} {} {}", u.sysname, u.release, u.machine);
#if CCBENCH_HAVE_HWLOC
  info.hwloc_version =
      fmt::format("{}.{}.{}", HWLOC_API_VERSION >> 16, (HWLOC_API_VERSION >> 8) & 0xff, HWLOC_API_VERSION & 0xff);
#else
  info.hwloc_version = "not built";
#endif
#if CCBENCH_HAVE_CUDA
  const GpuInfo gpus = query_gpus();
  info.cuda = fmt::format("runtime {} driver {}: {}", gpus.runtime_version, gpus.driver_version,
                          gpus.error.empty() ? fmt::format("{} GPU(s)", gpus.devices) : gpus.error);
#else
  info.cuda = "not built";
#endif
#if CCBENCH_HAVE_NCCL
  info.nccl = nccl_version();
  info.nccl_headers = nccl_version_text(nccl_header_version_code());
#else
  info.nccl = "not built";
#endif
  info.host_kernels = std::string(host_kernels().isa);
  info.environment = capture_environment(environ);
  info.started_at = utc_now_iso8601();
}

std::vector<std::string> node_differences(const std::vector<NodeRecord>& nodes,
                                          const std::vector<RankPlacement>& placement) {
  std::vector<std::string> out;
  // A summary per node for each aspect; a difference when two summaries disagree.
  const auto compare = [&](const std::string& what, const std::function<std::string(const nlohmann::json&)>& summary) {
    std::map<std::string, std::vector<std::string>> by_value;
    for (const auto& n : nodes) {
      if (n.topology_json.empty()) continue;
      const std::string v = summary(nlohmann::json::parse(n.topology_json));
      for (const auto& h : n.hosts) by_value[v].push_back(h);
    }
    if (by_value.size() < 2) return;
    std::string s = what + " differs:";
    for (const auto& [v, hosts] : by_value)
      s += fmt::format(" {} on {} host(s) (first {});", v, hosts.size(), hosts.front());
    s.pop_back();
    out.push_back(s);
  };
  compare("GPU model or count", [](const nlohmann::json& t) {
    std::map<std::string, int> models;
    for (const auto& g : t["gpus"]) ++models[g["model"].get<std::string>()];
    std::string s;
    for (const auto& [m, k] : models) s += fmt::format("{}{}x {}", s.empty() ? "" : " + ", k, m);
    return s.empty() ? std::string("no GPU") : s;
  });
  compare("NIC link speed", [](const nlohmann::json& t) {
    std::map<std::string, int> speeds;
    for (const auto& n : t["nics"])
      ++speeds[n["link_speed"].get<std::string>().empty() ? "unknown" : n["link_speed"].get<std::string>()];
    std::string s;
    for (const auto& [v, k] : speeds) s += fmt::format("{}{}x {}", s.empty() ? "" : " + ", k, v);
    return s.empty() ? std::string("no NIC") : s;
  });
  std::map<std::string, std::vector<std::string>> versions;
  std::set<std::string> hosts_seen;
  for (const auto& p : placement)
    if (hosts_seen.insert(p.host).second) versions[p.versions.empty() ? "none" : p.versions].push_back(p.host);
  if (versions.size() > 1) {
    std::string s = "CUDA driver or NCCL version differs:";
    for (const auto& [v, hosts] : versions)
      s += fmt::format(" {} on {} host(s) (first {});", v, hosts.size(), hosts.front());
    s.pop_back();
    out.push_back(s);
  }
  return out;
}

}  // namespace ccb
