// NCCL entry points newer than the oldest library ccbench runs on (2.7:
// ncclSend/ncclRecv), looked up at run time in the loaded library instead of
// linked: a binary built with CUDA 13's NCCL 2.28 headers must start on a
// cluster's NCCL 2.2x under immediate binding (-z now, LD_BIND_NOW=1), where
// one missing strong symbol ended it at load ("undefined symbol: ncclGather",
// exit 127). Each is null when the loaded library lacks it; callers choose
// the emulated path then (alltoall, gather and scatter through send/recv,
// cudaMalloc for ncclMemAlloc, no registration).
#pragma once
#include <nccl.h>

#include <string>

namespace ccb {

struct NcclEntryPoints {
  // The declarations' types only: naming them here emits no reference.
  decltype(&ncclAlltoAll) alltoall = nullptr;                    // 2.28
  decltype(&ncclGather) gather = nullptr;                        // 2.28
  decltype(&ncclScatter) scatter = nullptr;                      // 2.28
  decltype(&ncclMemAlloc) mem_alloc = nullptr;                   // 2.19
  decltype(&ncclMemFree) mem_free = nullptr;                     // 2.19
  decltype(&ncclCommRegister) comm_register = nullptr;           // 2.19
  decltype(&ncclCommDeregister) comm_deregister = nullptr;       // 2.19
  decltype(&ncclGetLastError) get_last_error = nullptr;          // 2.13
  decltype(&ncclCommInitRankConfig) init_rank_config = nullptr;  // 2.14
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
  decltype(&ncclCommWindowRegister) window_register = nullptr;      // 2.27 (-R 2)
  decltype(&ncclCommWindowDeregister) window_deregister = nullptr;  // 2.27
#endif
};

// Looked up once (dlsym in the process's global scope, where libnccl is).
const NcclEntryPoints& nccl_entry_points();

// The loaded library's version code (major x 10000 + minor x 100 + patch,
// as ncclGetVersion gives it from 2.9 on) and the headers' (NCCL_VERSION_CODE).
int nccl_loaded_version_code();
int nccl_header_version_code();

}  // namespace ccb
