#include "collectives/traffic.hpp"

#include "common/user_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>

#include "collectives/traffic_draws.hpp"
#include "common/errors.hpp"

namespace ccb {
namespace {

using traffic_draws::number;
using traffic_draws::standard_normal;
using traffic_draws::whole;

constexpr double kMaxSigma = 4;
constexpr int kMaxPermutations = 64;

std::vector<std::string_view> fields(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t at = 0;
  for (;;) {
    const std::size_t colon = s.find(':', at);
    out.push_back(s.substr(at, colon == std::string_view::npos ? std::string_view::npos : colon - at));
    if (colon == std::string_view::npos) return out;
    at = colon + 1;
  }
}

// Whole counts in proportion to `weights` summing to exactly `total`: each
// the floor of its share, the rest one by one to the largest remainders
// (ties: the lower index).
void apportion(const double* weights, int n, std::uint64_t total, std::uint64_t* out) {
  double sum = 0;
  for (int j = 0; j < n; ++j) sum += weights[j];
  if (total == 0 || !(sum > 0)) {
    std::fill(out, out + n, 0);
    return;
  }
  std::vector<std::pair<double, int>> rest(static_cast<std::size_t>(n));
  std::uint64_t given = 0;
  for (int j = 0; j < n; ++j) {
    const double share = static_cast<double>(total) * (weights[j] / sum);
    out[j] = std::min(static_cast<std::uint64_t>(share), total);
    given += out[j];
    rest[static_cast<std::size_t>(j)] = {share - static_cast<double>(out[j]), j};
  }
  std::stable_sort(rest.begin(), rest.end(), [](auto& a, auto& b) { return a.first > b.first; });
  for (std::size_t k = 0; given < total; k = (k + 1) % rest.size(), ++given) ++out[rest[k].second];
  while (given > total) {  // floating-point rounding above the total: take back from the largest
    std::uint64_t* largest = std::max_element(out, out + n);
    --*largest, --given;
  }
}

}  // namespace

std::string TrafficModel::text() const {
  switch (kind) {
    case TrafficKind::uniform: return "uniform";
    case TrafficKind::spread: return fmt::format("spread:{:g}", value);
    case TrafficKind::hot: return fmt::format("hot:{:g}:rank={}", value, hot_rank);
    case TrafficKind::lognormal: return fmt::format("lognormal:{:g}:seed={}", value, seed);
    case TrafficKind::permutations: return fmt::format("permutations:{:g}:seed={}", value, seed);
    case TrafficKind::matrix: return "matrix:" + file;
    case TrafficKind::moe: return "moe:" + moe_text(moe, seed);
  }
  return "?";
}

TrafficModel read_traffic_matrix(const std::string& text, const std::string& name) {
  TrafficModel m;
  m.kind = TrafficKind::matrix;
  m.file = name;
  traffic_draws::NumberTable t = traffic_draws::read_number_table(
      text, "traffic matrix " + name, "a byte count (a number >= 0)", std::numeric_limits<double>::infinity(), false);
  const std::size_t row = t.rows, cols = t.cols;
  m.weights = std::move(t.values);
  if (row != cols)
    throw UsageError(fmt::format("traffic matrix {}: {} rows of {} numbers: not square", name, row, cols));
  const double total = std::accumulate(m.weights.begin(), m.weights.end(), 0.0);
  if (total <= 0) throw UsageError(fmt::format("traffic matrix {}: every entry is 0: nothing to send", name));
  // The plan divides by row sums: one that overflows (1e308 entries) gave a
  // rank bytes the matrix says 0.
  if (!std::isfinite(total))
    throw UsageError(
        fmt::format("traffic matrix {}: its entries add up past the largest number (1.8e308): use "
                    "smaller byte counts (only their proportions matter)",
                    name));
  m.dim = static_cast<int>(row);
  return m;
}

TrafficModel parse_traffic(std::string_view spec) {
  const std::vector<std::string_view> f = fields(spec);
  const std::string_view kind = f[0];
  const auto bad = [&](const std::string& why) {
    return UsageError(fmt::format("--traffic '{}': {}", spec.substr(0, 200), why));
  };
  TrafficModel m;
  m.from = "--traffic";
  if (kind == "matrix") {
    if (f.size() < 2 || spec.size() <= 7) throw bad("expected matrix:FILE");
    const std::string path(spec.substr(7));
    TrafficModel read = read_traffic_matrix(read_user_file(path, "--traffic matrix"), path);
    read.from = m.from;
    return read;
  }
  if (kind == "moe") {
    m.kind = TrafficKind::moe;
    m.moe = parse_moe(f, spec, m.seed);
    return m;
  }
  if (kind == "uniform") {
    if (f.size() != 1) throw bad("uniform takes no value");
    m.kind = TrafficKind::uniform;
    return m;
  }
  if (kind == "spread") m.kind = TrafficKind::spread;
  else if (kind == "hot") m.kind = TrafficKind::hot;
  else if (kind == "lognormal") m.kind = TrafficKind::lognormal;
  else if (kind == "permutations") m.kind = TrafficKind::permutations;
  else throw bad(fmt::format("expected {} or {}[:dispatch|:combine]", kTrafficModels, kMoeTraffic));
  if (f.size() < 2) throw bad(fmt::format("{} needs a value ({}:VALUE)", kind, kind));
  const auto v = number(f[1]);
  if (!v) throw bad(fmt::format("'{}' is not a number", f[1]));
  m.value = *v;
  switch (m.kind) {
    case TrafficKind::spread:
      if (m.value < 0 || m.value > 1) throw bad("the spread is between 0 (uniform) and 1 (nccl-tests' default)");
      break;
    case TrafficKind::hot:
      if (m.value < 1) throw bad("the hot ratio is at least 1 (1: uniform)");
      if (m.value > 1e6) throw bad("the hot ratio is at most 1e6");
      break;
    case TrafficKind::lognormal:
      if (m.value < 0 || m.value > kMaxSigma) throw bad(fmt::format("SIGMA is between 0 and {:g}", kMaxSigma));
      break;
    case TrafficKind::permutations:
      if (m.value < 1 || m.value > kMaxPermutations || m.value != std::floor(m.value))
        throw bad(fmt::format("K is a whole number from 1 to {}", kMaxPermutations));
      break;
    default: break;
  }
  for (std::size_t k = 2; k < f.size(); ++k) {
    const std::string_view opt = f[k];
    const bool seeded = m.kind == TrafficKind::lognormal || m.kind == TrafficKind::permutations;
    if (m.kind == TrafficKind::hot && opt.starts_with("rank=")) {
      const auto r = whole(opt.substr(5));
      if (!r || *r > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
        throw bad(fmt::format("'{}': expected rank=K, K a rank", opt));
      m.hot_rank = static_cast<int>(*r);
    } else if (seeded && opt.starts_with("seed=")) {
      const auto s = whole(opt.substr(5));
      if (!s) throw bad(fmt::format("'{}': expected seed=N, N a whole number", opt));
      m.seed = *s;
    } else {
      throw bad(fmt::format("'{}' is not an option of {} ({})", opt, kind,
                            m.kind == TrafficKind::hot ? "rank=K"
                            : seeded                   ? "seed=N"
                                                       : "none"));
    }
  }
  return m;
}

TrafficModel traffic_from_environment(const char* matrix_file, const char* spread) {
  if (matrix_file && *matrix_file) {
    TrafficModel m;
    try {
      m = parse_traffic(fmt::format("matrix:{}", matrix_file));
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("NCCL_TESTS_ALLTOALLV_MATRIX_FILE: {}", e.what()));
    }
    m.from = "NCCL_TESTS_ALLTOALLV_MATRIX_FILE";
    return m;
  }
  if (spread && *spread) {
    const auto v = number(spread);
    if (!v || *v < 0 || *v > 1)
      throw UsageError(fmt::format("NCCL_TESTS_ALLTOALLV_SPREAD '{}': expected a number from 0 to 1",
                                   std::string_view(spread).substr(0, 40)));
    TrafficModel m;
    m.kind = TrafficKind::spread;
    m.value = *v;
    m.from = "NCCL_TESTS_ALLTOALLV_SPREAD";
    return m;
  }
  TrafficModel m;  // nccl-tests' default: fully distance-weighted
  m.from = "default (nccl-tests' alltoallv_perf)";
  return m;
}

std::uint64_t TrafficPlan::sent(int rank) const {
  std::uint64_t s = 0;
  for (int j = 0; j < n; ++j) s += at(rank, j);
  return s;
}

std::uint64_t TrafficPlan::received(int rank) const {
  std::uint64_t s = 0;
  for (int i = 0; i < n; ++i) s += at(i, rank);
  return s;
}

std::uint64_t TrafficPlan::send_offset(int from, int to) const {
  std::uint64_t s = 0;
  for (int j = 0; j < to; ++j) s += at(from, j);
  return s;
}

std::uint64_t TrafficPlan::recv_offset(int to, int from) const {
  std::uint64_t s = 0;
  for (int i = 0; i < from; ++i) s += at(i, to);
  return s;
}

int TrafficPlan::busiest_rank() const {
  int best = 0;
  std::uint64_t most = 0;
  for (int r = 0; r < n; ++r)
    if (const std::uint64_t m = std::max(sent(r), received(r)); m > most) most = m, best = r;
  return best;
}

std::uint64_t TrafficPlan::busiest_elements() const {
  const int r = busiest_rank();
  return n == 0 ? 0 : std::max(sent(r), received(r));
}

int TrafficPlan::busiest_remote_rank() const {
  int best = 0;
  std::uint64_t most = 0;
  for (int r = 0; r < n; ++r)
    if (const std::uint64_t m = std::max(sent(r), received(r)) - at(r, r); m > most) most = m, best = r;
  return best;
}

std::uint64_t TrafficPlan::busiest_remote_elements() const {
  const int r = busiest_remote_rank();
  return n == 0 ? 0 : std::max(sent(r), received(r)) - at(r, r);
}

std::uint64_t TrafficPlan::largest_buffer() const {
  std::uint64_t most = 0;
  for (int r = 0; r < n; ++r) most = std::max({most, sent(r), received(r)});
  return most;
}

TrafficPlan make_traffic_plan(const TrafficModel& m, int n, std::uint64_t per_rank) {
  if (n < 1) throw UsageError("alltoallv: no ranks");
  if (m.kind == TrafficKind::hot && m.hot_rank >= n)
    throw UsageError(fmt::format("--traffic {}: rank {} is not one of the {} ranks", m.text(), m.hot_rank, n));
  if (m.kind == TrafficKind::matrix && m.dim < n)
    throw UsageError(
        fmt::format("traffic matrix {}: {} rows for {} ranks (nccl-tests uses the first rows and columns of a larger "
                    "one, never a smaller one)",
                    m.file, m.dim, n));
  const std::size_t nn = static_cast<std::size_t>(n);
  if (m.kind == TrafficKind::moe) {  // whole tokens of H elements
    const std::uint64_t tokens = per_rank / m.moe.hidden;
    if (tokens == 0)
      throw UsageError(
          fmt::format("--traffic {}: a point of {} elements per rank holds no token of {} elements: "
                      "start the sweep at a size of at least one token (-b)",
                      m.text(), per_rank, m.moe.hidden));
    TrafficPlan plan;
    plan.n = n;
    plan.counts = moe_tokens(m.moe, n, tokens, m.seed);
    for (std::uint64_t& c : plan.counts) c *= m.moe.hidden;
    return plan;
  }
  std::vector<double> w(nn * nn, 1.0);  // weights, row by row
  std::mt19937_64 g(m.seed);
  switch (m.kind) {
    case TrafficKind::uniform: break;
    case TrafficKind::spread: {
      const double pairs = n > 1 ? static_cast<double>(n) * (n - 1) / 2 : 1;
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          const int distance = (j - i + n) % n;
          w[i * nn + j] = n == 1 ? 1 : (1 - m.value) / n + m.value * distance / pairs;
        }
      break;
    }
    case TrafficKind::hot:
      for (int i = 0; i < n; ++i) w[i * nn + m.hot_rank] = m.value;
      break;
    case TrafficKind::lognormal: {
      std::vector<double> share(nn);
      for (double& s : share) s = std::exp(m.value * standard_normal(g));
      for (int i = 0; i < n; ++i)
        std::copy(share.begin(), share.end(), w.begin() + static_cast<std::ptrdiff_t>(i * nn));
      break;
    }
    case TrafficKind::permutations: {
      std::fill(w.begin(), w.end(), 0.0);
      std::vector<int> p(nn);
      for (int k = 0; k < static_cast<int>(m.value); ++k) {
        std::iota(p.begin(), p.end(), 0);
        for (std::size_t i = nn - 1; i > 0; --i) std::swap(p[i], p[g() % (i + 1)]);  // Fisher-Yates
        for (int i = 0; i < n; ++i) w[i * nn + p[static_cast<std::size_t>(i)]] += 1;
      }
      break;
    }
    case TrafficKind::moe: break;
    case TrafficKind::matrix:
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) w[i * nn + j] = m.weights[static_cast<std::size_t>(i) * m.dim + j];
      break;
  }
  TrafficPlan plan;
  plan.n = n;
  plan.counts.assign(nn * nn, 0);
  if (m.kind != TrafficKind::matrix) {  // every rank sends per_rank
    for (int i = 0; i < n; ++i) apportion(&w[i * nn], n, per_rank, &plan.counts[i * nn]);
    return plan;
  }
  // The matrix's shape: rows in proportion to their sums, n x per_rank in all.
  std::vector<double> rows(nn, 0.0);
  for (int i = 0; i < n; ++i) rows[i] = std::accumulate(&w[i * nn], &w[i * nn] + nn, 0.0);
  if (std::accumulate(rows.begin(), rows.end(), 0.0) <= 0)
    throw UsageError(
        fmt::format("traffic matrix {}: its first {} rows and columns are all 0: nothing to send", m.file, n));
  std::vector<std::uint64_t> row_total(nn);
  apportion(rows.data(), n, per_rank * nn, row_total.data());
  for (int i = 0; i < n; ++i) apportion(&w[i * nn], n, row_total[i], &plan.counts[i * nn]);
  return plan;
}

}  // namespace ccb
