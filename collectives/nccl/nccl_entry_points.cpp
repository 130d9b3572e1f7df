#include "collectives/nccl/nccl_entry_points.hpp"

#include <dlfcn.h>

#include "collectives/nccl/nccl_lifecycle.hpp"
#include "collectives/nccl/nccl_version.hpp"

namespace ccb {
namespace {

template <class F>
void look_up(F& slot, const char* name) {
  slot = reinterpret_cast<F>(::dlsym(RTLD_DEFAULT, name));
}

}  // namespace

const NcclEntryPoints& nccl_entry_points() {
  static const NcclEntryPoints e = [] {
    NcclEntryPoints p;
    look_up(p.alltoall, "ncclAlltoAll");
    look_up(p.gather, "ncclGather");
    look_up(p.scatter, "ncclScatter");
    look_up(p.mem_alloc, "ncclMemAlloc");
    look_up(p.mem_free, "ncclMemFree");
    look_up(p.comm_register, "ncclCommRegister");
    look_up(p.comm_deregister, "ncclCommDeregister");
    look_up(p.get_last_error, "ncclGetLastError");
    look_up(p.init_rank_config, "ncclCommInitRankConfig");
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
    look_up(p.window_register, "ncclCommWindowRegister");
    look_up(p.window_deregister, "ncclCommWindowDeregister");
#endif
    return p;
  }();
  return e;
}

int nccl_loaded_version_code() {
  int v = 0;
  ncclGetVersion(&v);
  return v;
}

int nccl_header_version_code() { return NCCL_VERSION_CODE; }

std::string nccl_feature_gap(std::string_view what, int needed) {
  return nccl_version_gap(what, needed, nccl_header_version_code(), nccl_loaded_version_code());
}

}  // namespace ccb
