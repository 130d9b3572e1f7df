#include "collectives/nccl/nccl_entry_points.hpp"

#include <dlfcn.h>

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

}  // namespace ccb
