#include "harness/cpu_load.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace ccb {

CpuSample sample_cpu() {
  CpuSample s;
  std::ifstream load("/proc/loadavg");
  std::ifstream stat("/proc/stat");
  std::string cpu;
  if (!(load >> s.load1) || !(stat >> cpu) || cpu != "cpu") return s;
  std::uint64_t v = 0;
  for (int field = 0; field < 8 && stat >> v; ++field) {  // user nice system idle iowait irq softirq steal
    s.total += v;
    if (field == 7) s.steal = v, s.ok = true;
  }
  return s;
}

std::vector<std::string> host_load_flags(const Comm& comm, const CpuSample& before, bool since_before) {
  std::string mine;
  if (comm.local_rank() == 0) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    const std::vector<std::string> flags =
        since_before ? steal_during(before, sample_cpu(), host)
                     : load_before(before, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)), host);
    for (const std::string& f : flags) mine += f + '\n';
  }
  std::vector<std::string> out;
  for (const std::string& text : comm.all_strings(mine)) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) out.push_back(line);
  }
  if (comm.rank() != 0) out.clear();
  return out;
}

}  // namespace ccb
