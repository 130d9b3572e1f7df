#include "harness/run_info.hpp"

#include <fmt/format.h>
#if CCBENCH_HAVE_HWLOC
#include <hwloc.h>
#endif
#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <array>
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
#include "collectives/nccl/nccl_version.hpp"
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
std::string bound_cpus() { return format_cpu_list(current_cpu_binding()); }
}  // namespace

void collect_run_info(const Comm& comm, const ProcessRanks& mine, RunInfo& info) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  RankPlacement me{mine.first_rank, host,         static_cast<long>(getpid()), comm.local_rank(),
                   sched_getcpu(),  bound_cpus(), mine.devices};
  const auto all = comm.all_strings(placement_to_json(me));
  for (const auto& text : all) info.placement.push_back(placement_from_json(text));

  info.ranks = mine.world_ranks;
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
  utsname u{};
  if (uname(&u) == 0) info.os_kernel = fmt::format("{} {} {}", u.sysname, u.release, u.machine);
#if CCBENCH_HAVE_HWLOC
  info.hwloc_version = fmt::format("{}.{}.{}", HWLOC_API_VERSION >> 16, (HWLOC_API_VERSION >> 8) & 0xff,
                                   HWLOC_API_VERSION & 0xff);
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
#else
  info.nccl = "not built";
#endif
  info.host_kernels = std::string(host_kernels().isa);
  info.environment = capture_environment(environ);
  info.started_at = utc_now_iso8601();
}

}  // namespace ccb
