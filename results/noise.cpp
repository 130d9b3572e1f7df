#include "results/noise.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "common/cpu_list.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>

namespace ccb {

std::vector<std::string> measurement_noise(const Measurement& m) {
  std::vector<std::string> out;
  if (!m.measured || !m.per_iteration_us) return out;
  const Summary& s = *m.per_iteration_us;
  if (m.pipelined_us && *m.pipelined_us > 0 && s.p50 > 0) {
    const double r = *m.pipelined_us / s.p50;
    if (r > kNoisePipelinedRatio || r < 1 / kNoisePipelinedRatio)
      out.push_back(fmt::format("pipelined time {:.3g}x the per-iteration p50 (bound {:g}x either way)", r,
                                kNoisePipelinedRatio));
  }
  if (s.p50 > 0 && s.p99 > kNoiseTailRatio * s.p50)
    out.push_back(fmt::format("p99 {:.3g}x the p50 (bound {:g}x)", s.p99 / s.p50, kNoiseTailRatio));
  return out;
}

std::vector<std::string> oversubscription(const std::vector<RankPlacement>& placement) {
  std::map<std::string, std::pair<int, std::set<int>>> hosts;  // host -> ranks, CPUs bound to
  std::set<std::string> unknown;
  for (const RankPlacement& p : placement) {
    const std::vector<int> cpus = parse_cpu_list(p.bound_cpus);
    if (cpus.empty()) {
      unknown.insert(p.host);
      continue;
    }
    auto& h = hosts[p.host];
    ++h.first;
    h.second.insert(cpus.begin(), cpus.end());
  }
  std::vector<std::string> out;
  for (const auto& [host, h] : hosts)
    if (!unknown.count(host) && static_cast<std::size_t>(h.first) > h.second.size())
      out.push_back(fmt::format("{}: {} ranks on {} CPU{} of {}", kOversubscribedFlag, h.first, h.second.size(),
                                h.second.size() == 1 ? "" : "s", host));
  return out;
}

std::vector<std::string> shared_machines(const std::vector<RankPlacement>& placement) {
  struct Machine {
    int ranks = 0;
    std::set<int> cpus;
    std::set<std::string> hosts;
    bool known = true;
  };
  std::map<std::string, Machine> machines;
  for (const RankPlacement& p : placement) {
    if (p.machine.empty()) continue;
    Machine& m = machines[p.machine];
    const std::vector<int> cpus = parse_cpu_list(p.bound_cpus);
    m.known = m.known && !cpus.empty();
    ++m.ranks;
    m.cpus.insert(cpus.begin(), cpus.end());
    m.hosts.insert(p.host);
  }
  std::vector<std::string> out;
  for (const auto& [id, m] : machines) {
    if (!m.known || m.hosts.size() < 2 || static_cast<std::size_t>(m.ranks) <= m.cpus.size()) continue;
    const std::string hosts = m.hosts.size() <= 3 ? fmt::format("{}", fmt::join(m.hosts, ", "))
                                                  : fmt::format("{}, ..., {}", *m.hosts.begin(), *m.hosts.rbegin());
    out.push_back(fmt::format("{} ranks of {} hosts ({}) share {} CPU{} of one machine", m.ranks, m.hosts.size(), hosts,
                              m.cpus.size(), m.cpus.size() == 1 ? "" : "s"));
  }
  return out;
}

std::vector<std::string> load_before(const CpuSample& before, int cpus, const std::string& host) {
  if (!before.ok || cpus <= 0 || before.load1 <= cpus) return {};
  return {fmt::format("busy before the run: load average {:.2f} on {} CPU{} of {}", before.load1, cpus,
                      cpus == 1 ? "" : "s", host)};
}

std::vector<std::string> steal_during(const CpuSample& before, const CpuSample& after, const std::string& host) {
  if (!before.ok || !after.ok || after.total <= before.total || after.steal < before.steal) return {};
  const double share =
      static_cast<double>(after.steal - before.steal) / static_cast<double>(after.total - before.total);
  if (share <= kNoiseStealShare) return {};
  return {fmt::format("CPU steal {:.1f}% of {}'s CPU time during the run (bound {:g}%)", 100 * share, host,
                      100 * kNoiseStealShare)};
}

namespace {

// The numbers of a flag in order ("busy before the run: load average 3.10 on
// 2 CPUs of vm" -> 3.1, 2, ...; digits inside a word, as in a host name
// "emu-h2", count too: the callers take only the leading ones they need).
std::vector<double> numbers_in(std::string_view flag) {
  std::vector<double> out;
  std::size_t at = 0;
  while (at < flag.size()) {
    if (!std::isdigit(static_cast<unsigned char>(flag[at]))) {
      ++at;
      continue;
    }
    std::size_t end = at;
    while (end < flag.size() && (std::isdigit(static_cast<unsigned char>(flag[end])) || flag[end] == '.')) ++end;
    out.push_back(std::strtod(std::string(flag.substr(at, end - at)).c_str(), nullptr));
    at = end;
  }
  return out;
}

}  // namespace

double noise_stretch(std::string_view flag) {
  const std::vector<double> n = numbers_in(flag);
  const auto ratio_or_inf = [](double a, double b) { return a > 0 && b > 0 ? std::max(1.0, a / b) : INFINITY; };
  if (flag.starts_with(kOversubscribedFlag) && n.size() >= 2) return ratio_or_inf(n[0], n[1]);  // N ranks on C CPUs
  if (flag.find(" share ") != std::string_view::npos && flag.find(" CPU") != std::string_view::npos && n.size() >= 2) {
    const std::size_t share = flag.find(" share ");  // "N ranks of K hosts (...) share C CPUs"
    const std::vector<double> after = numbers_in(flag.substr(share));
    return after.empty() ? INFINITY : ratio_or_inf(n[0], after[0]);
  }
  if (flag.starts_with("busy before the run") && n.size() >= 2) return n[1] > 0 ? (n[0] + n[1]) / n[1] : INFINITY;
  if (flag.starts_with("CPU steal") && !n.empty() && n[0] < 100) return 1 / (1 - n[0] / 100);
  // "pipelined time 5.2x the per-iteration p50 (bound 3x either way)",
  // "p99 14x the p50 (bound 10x)": the disagreement itself.
  if ((flag.starts_with("pipelined time") || flag.starts_with("p99")) && n.size() >= 2)
    return flag.starts_with("p99") ? std::max(1.0, n[1]) : n[0] > 0 ? std::max(n[0], 1 / n[0]) : INFINITY;
  return INFINITY;
}

std::string noise_kind(std::string_view flag) {
  if (const std::size_t colon = flag.find(':'); colon != std::string_view::npos)
    return std::string(flag.substr(0, colon));
  std::string kind;
  for (std::size_t i = 0; i < flag.size(); ++i) {
    const bool digit = flag[i] >= '0' && flag[i] <= '9';
    if (!digit) kind += flag[i];
    else if (i == 0 || !(flag[i - 1] >= '0' && flag[i - 1] <= '9')) kind += 'N';
  }
  return kind;
}

}  // namespace ccb
