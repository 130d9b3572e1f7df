#include "harness/run_info.hpp"

#include <fmt/format.h>
#include <hwloc.h>
#include <mpi.h>
#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <chrono>
#include <ctime>

#include "kernels/host_kernels.hpp"
#include "results/json_records.hpp"
#if CCBENCH_HAVE_CUDA
#include "kernels/cuda/gpu_info.hpp"
#endif

extern char** environ;

namespace ccb {

bool is_recorded_variable(std::string_view name) {
  static constexpr std::array<std::string_view, 7> kPrefixes{"NCCL_", "UCX_", "OMPI_", "CUDA_",
                                                              "SLURM_", "PMIX_", "CCBENCH_"};
  for (auto p : kPrefixes)
    if (name.substr(0, p.size()) == p) return true;
  return false;
}

bool looks_secret(std::string_view name) {
  static constexpr std::array<std::string_view, 9> kWords{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY",
                                                          "CREDENTIAL", "AUTH", "COOKIE", "SESSION"};
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
    out[std::string(key)] = looks_secret(key) ? std::string(kRedacted) : std::string(entry.substr(eq + 1));
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
std::string bound_cpus() {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return "";
  std::string out;
  if (hwloc_topology_load(topo) == 0) {
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0) {
      char* text = nullptr;
      if (hwloc_bitmap_list_asprintf(&text, set) >= 0 && text) out = text;
      std::free(text);
    }
    hwloc_bitmap_free(set);
  }
  hwloc_topology_destroy(topo);
  return out;
}
}  // namespace

void collect_run_info(const Comm& comm, RunInfo& info) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  RankPlacement me{comm.rank(), host, static_cast<long>(getpid()), comm.local_rank(), sched_getcpu(),
                   bound_cpus()};
  const auto all = comm.all_strings(placement_to_json(me));
  for (const auto& text : all) info.placement.push_back(placement_from_json(text));

  info.ranks = comm.size();
  info.nodes = comm.nodes();
  info.ccbench_version = CCBENCH_VERSION;
  info.git_revision = CCBENCH_GIT_REVISION;
#if defined(__clang__)
  info.compiler = fmt::format("clang {}", __clang_version__);
#elif defined(__GNUC__)
  info.compiler = fmt::format("gcc {}", __VERSION__);
#endif
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(lib, &len);
  info.mpi_library = std::string(lib, static_cast<std::size_t>(len));
  while (!info.mpi_library.empty() &&
         (info.mpi_library.back() == '\0' || std::isspace(static_cast<unsigned char>(info.mpi_library.back()))))
    info.mpi_library.pop_back();
  int major = 0, minor = 0;
  MPI_Get_version(&major, &minor);
  info.mpi_version = fmt::format("{}.{}", major, minor);
  utsname u{};
  if (uname(&u) == 0) info.os_kernel = fmt::format("{} {} {}", u.sysname, u.release, u.machine);
  info.hwloc_version = fmt::format("{}.{}.{}", HWLOC_API_VERSION >> 16, (HWLOC_API_VERSION >> 8) & 0xff,
                                   HWLOC_API_VERSION & 0xff);
#if CCBENCH_HAVE_CUDA
  const GpuInfo gpus = query_gpus();
  info.cuda = fmt::format("runtime {} driver {}: {}", gpus.runtime_version, gpus.driver_version,
                          gpus.error.empty() ? fmt::format("{} GPU(s)", gpus.devices) : gpus.error);
#else
  info.cuda = "not built";
#endif
  info.host_kernels = std::string(host_kernels().isa);
  info.environment = capture_environment(environ);
  info.started_at = utc_now_iso8601();
}

}  // namespace ccb
