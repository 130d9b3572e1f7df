#include "common/cpu_list.hpp"

#include <algorithm>
#include <charconv>

namespace ccb {

std::vector<int> parse_cpu_list(const std::string& list) {
  std::vector<int> cpus;
  std::size_t at = 0;
  while (at < list.size()) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    const std::string item = list.substr(at, comma - at);
    at = comma + 1;
    if (item.empty()) continue;
    const std::size_t dash = item.find('-');
    int lo = 0, hi = 0;
    const auto num = [](const std::string& t, int& v) {
      const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
      return r.ec == std::errc() && r.ptr == t.data() + t.size() && v >= 0 && v < (1 << 20);
    };
    if (dash == std::string::npos) {
      if (!num(item, lo)) return {};
      hi = lo;
    } else if (!num(item.substr(0, dash), lo) || !num(item.substr(dash + 1), hi) || hi < lo) {
      return {};
    }
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

}  // namespace ccb
