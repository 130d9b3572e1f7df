#include "results/link_probe.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "results/stats.hpp"

namespace ccb {

LinkReading read_links(const std::vector<std::string>& hosts, const std::vector<double>& pass_a_s,
                       const std::vector<double>& pass_b_s) {
  LinkReading r;
  r.hosts = hosts;
  const std::size_t n = hosts.size();
  if (n < kLinkProbeHosts || pass_a_s.size() != n || pass_b_s.size() != n) return r;
  for (std::size_t p = 0; p < n; ++p) {
    const std::size_t q = (p + 1) % n;
    r.link_s.push_back(std::max(std::min(pass_a_s[p], pass_a_s[q]), std::min(pass_b_s[p], pass_b_s[q])));
  }
  std::vector<double> sorted = r.link_s;
  std::sort(sorted.begin(), sorted.end());
  r.reference_s = quantile_sorted(sorted, 0.25);
  std::vector<bool> slow(n, false);
  for (std::size_t p = 0; p < n; ++p)
    if (r.link_s[p] > kSlowLinkFactor * r.reference_s) slow[p] = true, r.slow_links.push_back(static_cast<int>(p));
  std::vector<bool> covered(n, false);
  for (std::size_t p = 0; p < n; ++p)
    if (slow[p] && slow[(p + n - 1) % n]) {  // both of host p's ring links
      r.slow_hosts.push_back(hosts[p]);
      covered[p] = covered[(p + n - 1) % n] = true;
    }
  // A slow link not explained by a slow host stays in slow_links on its own.
  std::erase_if(r.slow_links, [&](int p) { return covered[static_cast<std::size_t>(p)]; });
  return r;
}

std::string LinkReading::text() const {
  const auto ms = [](double s) { return fmt::format("{:.3g} ms", s * 1e3); };
  if (link_s.empty()) return "";
  std::vector<std::string> parts;
  for (const std::string& h : slow_hosts) {
    const auto p = static_cast<std::size_t>(std::find(hosts.begin(), hosts.end(), h) - hosts.begin());
    const std::size_t n = hosts.size();
    parts.push_back(
        fmt::format("host {}: both its links slow ({} and {})", h, ms(link_s[(p + n - 1) % n]), ms(link_s[p])));
  }
  for (int p : slow_links)
    parts.push_back(fmt::format("link {} <-> {}: slow ({})", hosts[static_cast<std::size_t>(p)],
                                hosts[(static_cast<std::size_t>(p) + 1) % hosts.size()],
                                ms(link_s[static_cast<std::size_t>(p)])));
  const auto [lo, hi] = std::minmax_element(link_s.begin(), link_s.end());
  if (parts.empty())
    return fmt::format("no slow link: {} links of {} hosts, {} to {}", link_s.size(), hosts.size(), ms(*lo), ms(*hi));
  return fmt::format("{} (the fastest quarter of the {} links: {}; slow beyond {:g}x)",
                     fmt::format("{}", fmt::join(parts, "; ")), link_s.size(), ms(reference_s), kSlowLinkFactor);
}

}  // namespace ccb
