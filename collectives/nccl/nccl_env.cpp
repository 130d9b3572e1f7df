#include "collectives/nccl/nccl_env.hpp"

#include "collectives/nccl/nccl_log.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/errors.hpp"

namespace ccb {

std::vector<std::pair<std::string, std::string>> nccl_path_environment(PathRequest path) {
  switch (path) {
    case PathRequest::nvlink: return {{"NCCL_P2P_LEVEL", "NVL"}};
    case PathRequest::pcie: return {{"NCCL_P2P_LEVEL", "PHB"}, {"NCCL_NVLS_ENABLE", "0"}};
    case PathRequest::shm: return {{"NCCL_P2P_DISABLE", "1"}, {"NCCL_NVLS_ENABLE", "0"}};
    // Not NCCL_NET=IB: that name excludes the network plugins clusters run
    // (aws-ofi-nccl's Libfabric, HPC-X's IBext, GCP's gIB) and init fails
    // there. NCCL prefers a plugin, then IB verbs, and falls back to sockets
    // only when neither initialises: that fallback is seen in the log
    // (path_mismatch: "requested rdma, but NCCL used tcp").
    case PathRequest::rdma: return {{"NCCL_IB_DISABLE", "0"}};
    case PathRequest::tcp: return {{"NCCL_NET", "Socket"}, {"NCCL_IB_DISABLE", "1"}};
    case PathRequest::automatic: break;
  }
  return {};
}

std::string pcie_request_warning(const std::vector<std::vector<std::string>>& gpu_gpu) {
  for (std::size_t i = 0; i < gpu_gpu.size(); ++i)
    for (std::size_t j = i + 1; j < gpu_gpu[i].size(); ++j)
      if (gpu_gpu[i][j].rfind("NV", 0) == 0)
        return "--path pcie: NCCL_P2P_LEVEL=PHB cannot exclude NVLink, and GPUs " + std::to_string(i) + " and " +
               std::to_string(j) + " here are joined by " + gpu_gpu[i][j] +
               ": p2p connections may be NVLink; for PCIe figures use GPUs without NVLink between them";
  return "";
}

std::string expand_nccl_debug_file(const std::string& pattern, const std::string& host, long pid) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() && (pattern[i + 1] == 'h' || pattern[i + 1] == 'p')) {
      out += pattern[i + 1] == 'h' ? host : std::to_string(pid);
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

std::string nccl_log_folder(const char* tmpdir, unsigned uid, const char* slurm_job, const char* pmix_namespace) {
  std::string job = slurm_job && *slurm_job ? slurm_job : pmix_namespace && *pmix_namespace ? pmix_namespace : "local";
  for (char& ch : job)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_' && ch != '.') ch = '_';
  return std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/ccbench-nccl-" + std::to_string(uid) + "/" + job;
}

void prepare_nccl_log_folder(const std::string& folder, bool ours) {
  const auto refuse = [&](const std::string& why) {
    throw UsageError(fmt::format("--nccl-log-dir {}: {}", folder, why));
  };
  const auto check = [&](const std::string& dir, bool own) {
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0) {
      if (errno != ENOENT) refuse(fmt::format("{}: {}", dir, std::strerror(errno)));
      if (::mkdir(dir.c_str(), own ? 0700 : 0777) != 0 && errno != EEXIST)
        refuse(fmt::format("cannot create {}: {}", dir, std::strerror(errno)));
      if (::lstat(dir.c_str(), &st) != 0) refuse(fmt::format("{}: {}", dir, std::strerror(errno)));
    }
    if (S_ISLNK(st.st_mode)) refuse(fmt::format("{} is a symbolic link (not followed)", dir));
    if (!S_ISDIR(st.st_mode)) refuse(fmt::format("{} is not a folder", dir));
    if (own && st.st_uid != ::geteuid())
      refuse(fmt::format("{} belongs to user {}, not to this user ({})", dir, st.st_uid, ::geteuid()));
    if (::access(dir.c_str(), W_OK) != 0) refuse(fmt::format("cannot write in {}: {}", dir, std::strerror(errno)));
  };
  if (ours) check(folder.substr(0, folder.rfind('/')), true);  // the user's folder
  check(folder, ours);
}

std::string request_nccl_path(PathRequest path, const std::string& log_dir, bool algorithms) {
  for (const auto& [name, value] : nccl_path_environment(path)) setenv(name.c_str(), value.c_str(), 1);
  const char* debug = std::getenv("NCCL_DEBUG");
  const std::string level = debug ? debug : "";
  // The caller's own level (WARN, VERSION, ...): NCCL prints as told, ccbench reads no log.
  if (!level.empty() && level != "INFO" && level != "TRACE") return "";
  setenv("NCCL_DEBUG", level.empty() ? "INFO" : level.c_str(), 1);
  if (algorithms) setenv("NCCL_DEBUG_SUBSYS", nccl_subsys_with_tuning(std::getenv("NCCL_DEBUG_SUBSYS")).c_str(), 1);
  std::string pattern;
  if (const char* file = std::getenv("NCCL_DEBUG_FILE")) {
    pattern = file;
  } else {
    const bool ours = log_dir.empty();
    const std::string dir = ours ? nccl_log_folder(std::getenv("TMPDIR"), ::geteuid(), std::getenv("SLURM_JOB_ID"),
                                                   std::getenv("PMIX_NAMESPACE"))
                                 : log_dir;
    prepare_nccl_log_folder(dir, ours);
    pattern = dir + "/nccl.%h.%p.log";
    setenv("NCCL_DEBUG_FILE", pattern.c_str(), 1);
  }
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::string short_host = host;  // NCCL's %h stops at the first '.'
  short_host = short_host.substr(0, short_host.find('.'));
  return expand_nccl_debug_file(pattern, short_host, static_cast<long>(getpid()));
}

}  // namespace ccb
