#include "harness/memory_copy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "common/sizes.hpp"
#include "results/stats.hpp"

namespace ccb {

MemoryCopyRate measure_memory_copy(const Comm& comm, std::size_t bytes, int repeats) {
  std::vector<unsigned char> from(bytes, 1), to(bytes, 0);  // touched: no page faults timed
  double best = 0;
  for (int i = 0; i < repeats; ++i) {
    from[static_cast<std::size_t>(i) % bytes] = static_cast<unsigned char>(i);
    comm.barrier();  // every rank copies at once, as a collective's ranks do
    const double t0 = comm.now();
    std::memcpy(to.data(), from.data(), bytes);
    const double s = comm.now() - t0;
    if (s > 0) best = std::max(best, static_cast<double>(bytes) / s / 1e9);
  }
  // The copy must not be optimised away: its last byte joins the agreement.
  const std::vector<std::string> all = comm.all_strings(fmt::format("{:.9g} {}", best, int{to[bytes - 1]}));
  std::vector<double> rates;
  for (const std::string& s : all) rates.push_back(std::stod(s));
  MemoryCopyRate r;
  r.gbps = median_of(rates);
  r.how = fmt::format("{} rank{} copying {} each at once, best of {} per rank, median over ranks", all.size(),
                      all.size() == 1 ? "" : "s", format_size(bytes), repeats);
  return r;
}

}  // namespace ccb
