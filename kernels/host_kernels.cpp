#include "kernels/host_kernels.hpp"

#include <cstdlib>
#include <string>
#if CCBENCH_HAVE_X86_64_V3
#include <cpuid.h>
#endif

#include "common/environment.hpp"

namespace ccb {

#if CCBENCH_HAVE_X86_64_V3
const HostKernels& host_kernels_x86_64_v3_table();
#endif

const HostKernels* host_kernels_x86_64_v3() {
#if CCBENCH_HAVE_X86_64_V3
  __builtin_cpu_init();
  // F16C from CPUID leaf 1, ECX bit 29 (clang's __builtin_cpu_supports has no "f16c").
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 29)) != 0;
  if (__builtin_cpu_supports("avx2") && f16c && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2"))
    return &host_kernels_x86_64_v3_table();
#endif
  return nullptr;
}

const HostKernels& host_kernels() {
  static const HostKernels& chosen = []() -> const HostKernels& {
    const char* force = env_value(EnvVar::host_isa);
    const bool baseline_only = force && std::string(force) == "baseline";
    const HostKernels* v3 = baseline_only ? nullptr : host_kernels_x86_64_v3();
    return v3 ? *v3 : host_kernels_baseline();
  }();
  return chosen;
}

}  // namespace ccb
