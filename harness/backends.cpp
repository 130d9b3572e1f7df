#include "harness/backends.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "harness/every_rank_passes.hpp"
#include "common/errors.hpp"
#if CCBENCH_HAVE_MPI
#include "collectives/mpi/mpi_backend.hpp"
#include "harness/comm_mpi.hpp"
#endif
#if CCBENCH_HAVE_CUDA
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/gpu_info.hpp"
#endif
#if CCBENCH_HAVE_NCCL
#include "collectives/nccl/nccl_backend.hpp"
#endif

namespace ccb {
namespace {

#if CCBENCH_HAVE_CUDA
std::string host_name() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return host;
}

// The GPUs this process can see, or a UsageError saying why there are none.
int visible_gpus(const char* what) {
  const GpuInfo g = query_gpus();
  if (!g.error.empty() || g.devices == 0)
    throw UsageError(fmt::format("{}: no usable GPU on {} ({})", what, host_name(),
                                 g.error.empty() ? "the CUDA runtime sees 0 devices" : g.error));
  return g.devices;
}
#endif

#if CCBENCH_HAVE_MPI
std::unique_ptr<Backend> make_mpi(const Config& cfg, const Comm& comm) {
  const auto& mpi = dynamic_cast<const MpiComm&>(comm);  // MPI builds always run over MPI
  if (cfg.memory == MemoryKind::host) return std::make_unique<MpiBackend>(mpi.handle(), nullptr, cfg.mpi_calls);
  std::vector<int> devices;
  if (!every_rank_passes(comm, [&] {
        const int aware = MpiBackend::cuda_aware();
        if (aware == 0)
          throw UsageError(
              "--memory device: this MPI library is not CUDA-aware (MPIX_Query_cuda_support says no); use --backend "
              "nccl "
              "or an MPI built with CUDA support");
        if (aware < 0)
          throw UsageError(
              "--memory device: this MPI library cannot say whether it is CUDA-aware (no MPIX_Query_cuda_support)");
        for (DType d : cfg.dtypes)
          if (cfg.collective->reduces &&
              (d == DType::half || d == DType::bfloat16 || d == DType::f8e4m3 || d == DType::f8e5m2))
            throw UsageError(fmt::format(
                "--memory device: {} reductions are MPI user ops over host loops; use --backend nccl", info(d).name));
        for (ReduceOp o : cfg.ops)
          if (cfg.collective->reduces && o == ReduceOp::avg)
            throw UsageError("--memory device: avg is MPI_SUM plus a division on the host; use --backend nccl");
        if (cfg.mpi_calls == MpiCalls::nonblocking && cfg.collective->id == CollectiveId::sendrecv)
          throw UsageError(
              "--memory device with --mpi-calls nonblocking: sendrecv in place receives into a host copy first; "
              "use --memory host or blocking calls");
#if CCBENCH_HAVE_CUDA
        devices = choose_devices(comm.local_rank(), comm.local_size(), 1, visible_gpus("--memory device"), host_name());
#else
        throw UsageError("--memory device: this ccbench was built without CUDA");
#endif
      }))
    return nullptr;
#if CCBENCH_HAVE_CUDA
  cudaSetDevice(devices.front());
  return std::make_unique<MpiBackend>(mpi.handle(), std::make_unique<DeviceMemory>(), cfg.mpi_calls);
#else
  return nullptr;
#endif
}
#endif

#if CCBENCH_HAVE_NCCL
std::unique_ptr<Backend> make_nccl(const Config& cfg, const Comm& comm, const std::string& log_file) {
  NcclOptions o;
  if (!every_rank_passes(comm, [&] {
        o.devices =
            choose_devices(comm.local_rank(), comm.local_size(), cfg.gpus_per_process, visible_gpus("--backend nccl"),
                           host_name(), first_device_from(std::getenv("NCCL_TESTS_DEVICE")));
      }))
    return nullptr;
  o.nranks = comm.size() * cfg.gpus_per_process;  // every process drives -g GPUs
  o.first_rank = comm.rank() * cfg.gpus_per_process;
  o.blocking = cfg.blocking != 0;
  o.graph = cfg.cuda_graph > 0;
  o.register_buffers = cfg.register_buffers;
  o.cta_policy = cfg.cta_policy;
  o.two_p2p_peers = cfg.collective && cfg.collective->id == CollectiveId::sendrecv;
  o.log_file = log_file;
  o.tuning_log = nccl_subsys_logs_tuning(std::getenv("NCCL_DEBUG_SUBSYS"));
  if (comm.rank() == 0 && ncclGetUniqueId(&o.id) != ncclSuccess) throw std::runtime_error("ncclGetUniqueId failed");
  comm.broadcast(&o.id, sizeof o.id);
  return std::make_unique<NcclBackend>(o);
}
#endif

}  // namespace

void require_gpu(const std::string& what) {
#if CCBENCH_HAVE_CUDA
  visible_gpus(what.c_str());
#else
  throw UsageError(fmt::format("{}: this ccbench was built without CUDA", what));
#endif
}

std::optional<int> first_device_from(const char* value) {
  if (!value) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(value, &end, 10);
  if (end == value || *end != '\0' || errno != 0 || v < 0 || v > 1023)
    throw UsageError(fmt::format("NCCL_TESTS_DEVICE '{}': expected the first GPU's ordinal (0, 1, ...)", value));
  return static_cast<int>(v);
}

std::vector<int> choose_devices(int local_rank, int local_size, int per_process, int visible, const std::string& host,
                                std::optional<int> first) {
  std::vector<int> out;
  if (first) {
    if (*first + per_process > visible)
      throw UsageError(
          fmt::format("NCCL_TESTS_DEVICE={} with -g/--ngpus {}: GPU {} requested, but {} are visible on {}", *first,
                      per_process, *first + per_process - 1, visible, host));
    for (int j = 0; j < per_process; ++j) out.push_back(*first + j);
    return out;
  }
  if (visible >= local_size * per_process) {
    for (int j = 0; j < per_process; ++j) out.push_back(local_rank * per_process + j);
  } else if (visible == per_process) {
    for (int j = 0; j < per_process; ++j) out.push_back(j);
  } else {
    throw UsageError(fmt::format("-g/--ngpus {}: {} processes on {} need {} GPUs, but {} are visible to each",
                                 per_process, local_size, host, local_size * per_process, visible));
  }
  return out;
}

std::unique_ptr<Backend> make_backend(const Config& cfg, const Comm& comm, const std::string& nccl_log_file) {
  (void)nccl_log_file;
  if (cfg.backend == BackendKind::nccl) {
#if CCBENCH_HAVE_NCCL
    return make_nccl(cfg, comm, nccl_log_file);
#else
    every_rank_passes(comm, [] {
      throw UsageError(
          "--backend nccl: this ccbench was built without NCCL (no CUDA toolkit with NCCL at configure time)");
    });
    return nullptr;
#endif
  }
#if CCBENCH_HAVE_MPI
  return make_mpi(cfg, comm);
#else
  every_rank_passes(comm,
                    [] { throw UsageError("--backend mpi: this ccbench was built without MPI (use --backend nccl)"); });
  return nullptr;
#endif
}

}  // namespace ccb
