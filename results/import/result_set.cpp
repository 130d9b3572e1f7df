#include "results/import/result_set.hpp"

namespace ccb {

void ResultSet::note_env(const std::string& name, const std::string& value) {
  if (value.empty()) return;
  auto [it, fresh] = environment.emplace(name, value);
  if (fresh || it->second == value) return;
  // Keep every distinct value once, in the order seen.
  std::size_t at = 0;
  const std::string& have = it->second;
  while (at <= have.size()) {
    const std::size_t end = std::min(have.find(" | ", at), have.size());
    if (have.compare(at, end - at, value) == 0) return;
    at = end + 3;
  }
  it->second += " | " + value;
}

}  // namespace ccb
