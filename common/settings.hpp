// The settings that are words on the command line and in specs (--backend,
// --memory, --mpi-calls, --path, --sync, --progress, --bind, --timing, --warmup-order):
// each an enum with one table of its names, parsed and printed through that
// table, so that a word is spelled in one place.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace ccb {

enum class BackendKind { mpi, nccl };
enum class MemoryKind { host, device };  // mpi: where the buffers live (nccl: always device)
enum class PathRequest { automatic, nvlink, pcie, shm, rdma, tcp };
enum class SyncMode { barrier, window };  // how per-iteration starts are aligned
enum class ProgressMode { automatic, on, off };
enum class BindPolicy { automatic, none, numa, core };
enum class TimingMode { pipelined, per_iteration, both };
// nccl-tests warms every size (doubling from -b to -e) before the first
// point; OSU and IMB warm each size just before it is timed.
enum class WarmUpOrder { automatic, sizes_first, per_point };
// mpi: each operation as MPI's blocking call (MPI_Allreduce) or its
// nonblocking one waited for (MPI_Iallreduce + MPI_Wait), which Open MPI runs
// with other algorithms (libnbc's, not coll/tuned's).
enum class MpiCalls { blocking, nonblocking };
// -a: how a time combines across ranks, numbered as nccl-tests' -a.
enum class RankCombine { rank0 = 0, mean = 1, min = 2, max = 3 };

// Each enum's names, in the order `allowed` lists them (other headers add
// tables of their own words the same way: analysis/accept/spec.hpp).
template <class E>
struct SettingNames;
#define CCB_SETTING_NAMES(E, N, ...)                                                     \
  template <>                                                                            \
  struct SettingNames<E> {                                                               \
    static constexpr std::array<std::pair<E, std::string_view>, N> table{{__VA_ARGS__}}; \
  }
CCB_SETTING_NAMES(BackendKind, 2, {BackendKind::mpi, "mpi"}, {BackendKind::nccl, "nccl"});
CCB_SETTING_NAMES(MemoryKind, 2, {MemoryKind::host, "host"}, {MemoryKind::device, "device"});
CCB_SETTING_NAMES(PathRequest, 6, {PathRequest::automatic, "auto"}, {PathRequest::nvlink, "nvlink"},
                  {PathRequest::pcie, "pcie"}, {PathRequest::shm, "shm"}, {PathRequest::rdma, "rdma"},
                  {PathRequest::tcp, "tcp"});
CCB_SETTING_NAMES(SyncMode, 2, {SyncMode::barrier, "barrier"}, {SyncMode::window, "window"});
CCB_SETTING_NAMES(ProgressMode, 3, {ProgressMode::automatic, "auto"}, {ProgressMode::on, "on"},
                  {ProgressMode::off, "off"});
CCB_SETTING_NAMES(BindPolicy, 4, {BindPolicy::automatic, "auto"}, {BindPolicy::none, "none"},
                  {BindPolicy::numa, "numa"}, {BindPolicy::core, "core"});
CCB_SETTING_NAMES(TimingMode, 3, {TimingMode::pipelined, "pipelined"}, {TimingMode::per_iteration, "per_iteration"},
                  {TimingMode::both, "both"});
CCB_SETTING_NAMES(MpiCalls, 2, {MpiCalls::blocking, "blocking"}, {MpiCalls::nonblocking, "nonblocking"});
CCB_SETTING_NAMES(WarmUpOrder, 3, {WarmUpOrder::automatic, "auto"}, {WarmUpOrder::sizes_first, "sizes-first"},
                  {WarmUpOrder::per_point, "per-point"});

template <class E>
constexpr std::string_view setting_name(E value) {
  for (const auto& [v, n] : SettingNames<E>::table)
    if (v == value) return n;
  return "?";
}

template <class E>
std::optional<E> parse_setting(std::string_view text) {
  for (const auto& [v, n] : SettingNames<E>::table)
    if (n == text) return v;
  return std::nullopt;
}

// "auto, nvlink, pcie, ..." (for "unknown (allowed: ...)" messages).
template <class E>
std::string allowed_settings() {
  std::string out;
  for (const auto& [v, n] : SettingNames<E>::table) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

}  // namespace ccb
