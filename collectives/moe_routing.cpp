#include "collectives/moe_routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <sstream>

#include "collectives/traffic_draws.hpp"
#include "common/user_file.hpp"
#include "common/errors.hpp"

namespace ccb {
namespace {

using traffic_draws::number;
using traffic_draws::standard_normal;
using traffic_draws::uniform01;
using traffic_draws::whole;

constexpr int kMaxExperts = 1 << 16;
constexpr int kMaxTopk = 64;
constexpr std::uint64_t kMaxHidden = 1 << 24;
constexpr double kMaxFileTokens = 1e15;          // a routing file's entry
constexpr std::uint64_t kMaxDraws = 1ull << 31;  // tokens x ranks x topk: about 20 s of drawing here
constexpr int kMissesPerPick = 4;                // alias draws on taken experts before draw_remaining

// Walker's alias table: one draw in proportion to the weights in O(1).
struct ExpertAlias {
  std::vector<double> prob;
  std::vector<int> other;
  explicit ExpertAlias(const std::vector<double>& w) : prob(w.size()), other(w.size()) {
    const double n = static_cast<double>(w.size()), sum = std::accumulate(w.begin(), w.end(), 0.0);
    std::vector<int> small, large;
    for (std::size_t i = 0; i < w.size(); ++i) {
      prob[i] = w[i] * n / sum;
      (prob[i] < 1 ? small : large).push_back(static_cast<int>(i));
    }
    while (!small.empty() && !large.empty()) {
      const int s = small.back(), l = large.back();
      small.pop_back();
      other[s] = l;
      prob[l] -= 1 - prob[s];
      if (prob[l] < 1) large.pop_back(), small.push_back(l);
    }
    for (int i : large) prob[i] = 1;
    for (int i : small) prob[i] = 1;  // rounding leftovers
  }
  int draw(std::mt19937_64& g) const {
    const int i = static_cast<int>(g() % prob.size());
    return uniform01(g) < prob[i] ? i : other[i];
  }
};

// One draw over the experts not yet `taken`, in proportion to their weights
// (the path when the alias keeps hitting taken ones: a few experts hold
// nearly all the weight). O(topk + log experts): the draw is placed on the
// weights' prefix sums with the taken experts' intervals skipped.
int draw_remaining(const std::vector<double>& w, const std::vector<double>& start, std::vector<int> taken,
                   std::mt19937_64& g) {
  std::sort(taken.begin(), taken.end());
  double left = start.back() + w.back();
  for (int e : taken) left -= w[static_cast<std::size_t>(e)];
  double x = uniform01(g) * left;
  for (int e : taken) {
    if (x < start[static_cast<std::size_t>(e)]) break;
    x += w[static_cast<std::size_t>(e)];
  }
  const std::size_t n = w.size();
  std::size_t e = static_cast<std::size_t>(std::upper_bound(start.begin(), start.end(), x) - start.begin());
  e = e == 0 ? 0 : std::min(e - 1, n - 1);
  while (std::binary_search(taken.begin(), taken.end(), static_cast<int>(e))) e = (e + 1) % n;  // rounding
  return static_cast<int>(e);
}

// Tokens drawn: each of a rank's tokens picks topk distinct experts in
// proportion to their weights and goes once to each rank holding one.
void draw_tokens(const MoeRouting& m, int n, std::uint64_t tokens_per_rank, std::uint64_t seed,
                 std::vector<std::uint64_t>& tokens) {
  const std::size_t nn = static_cast<std::size_t>(n);
  const int per_rank = m.experts / n;
  std::mt19937_64 g(seed);
  std::vector<double> w(static_cast<std::size_t>(m.experts), 1.0);
  if (m.skew == MoeSkew::hot)
    for (int e = m.hot_rank * per_rank; e < (m.hot_rank + 1) * per_rank; ++e) w[e] = m.value;
  if (m.skew == MoeSkew::lognormal)
    for (double& x : w) x = std::exp(m.value * standard_normal(g));
  const ExpertAlias alias(w);
  std::vector<double> start(w.size(), 0.0);  // start[e]: the weight of experts before e
  for (std::size_t e = 1; e < w.size(); ++e) start[e] = start[e - 1] + w[e - 1];
  std::vector<int> chosen;
  std::vector<char> hit(nn);
  for (int i = 0; i < n; ++i)
    for (std::uint64_t t = 0; t < tokens_per_rank; ++t) {
      chosen.clear();
      while (static_cast<int>(chosen.size()) < m.topk) {
        int e = alias.draw(g);
        // A taken expert: draw again, at most kMissesPerPick times, then
        // among the rest directly (the same distribution either way).
        for (int misses = 0; std::find(chosen.begin(), chosen.end(), e) != chosen.end();)
          e = ++misses < kMissesPerPick ? alias.draw(g) : draw_remaining(w, start, chosen, g);
        chosen.push_back(e);
      }
      std::fill(hit.begin(), hit.end(), 0);
      for (int e : chosen) hit[static_cast<std::size_t>(e / per_rank)] = 1;
      for (int j = 0; j < n; ++j) tokens[i * nn + j] += hit[static_cast<std::size_t>(j)];
    }
}

}  // namespace

MoeRouting read_routing_file(const std::string& text, const std::string& name) {
  MoeRouting m;
  m.skew = MoeSkew::file;
  m.file = name;
  traffic_draws::NumberTable t =
      traffic_draws::read_number_table(text, "routing file " + name, "a token count (0 to 1e15)", kMaxFileTokens, true);
  const std::size_t cols = t.cols;
  m.file_ranks = static_cast<int>(t.rows);
  m.file_tokens = std::move(t.values);
  if (cols > static_cast<std::size_t>(kMaxExperts))
    throw UsageError(fmt::format("routing file {}: {} experts (columns), more than {}", name, cols, kMaxExperts));
  m.experts = static_cast<int>(cols);
  return m;
}

MoeRouting parse_moe(const std::vector<std::string_view>& f, std::string_view spec, std::uint64_t& seed) {
  const auto bad = [&](const std::string& why) {
    return UsageError(fmt::format("--traffic '{}': {}", spec.substr(0, 200), why));
  };
  MoeRouting m;
  std::uint64_t hidden = 0, experts = 0, topk = 0;
  bool seeded = false, hot_rank_given = false;
  std::set<std::string_view> given;  // each key once: a later one never silently wins
  for (std::size_t k = 1; k < f.size(); ++k) {
    const std::string_view opt = f[k];
    const std::size_t eq = opt.find('=');
    const std::string_view key = opt.substr(0, eq), val = eq == std::string_view::npos ? "" : opt.substr(eq + 1);
    if (key != "routing" && !given.insert(opt == "combine" ? "dispatch" : key).second)
      throw bad(fmt::format("'{}': {} given twice", opt, opt == "combine" || opt == "dispatch" ? "a direction" : key));
    const auto count = [&](std::uint64_t lo, std::uint64_t hi) {
      const auto v = whole(val);
      if (!v || *v < lo || *v > hi)
        throw bad(fmt::format("'{}': {} is a whole number from {} to {}", opt, key, lo, hi));
      return *v;
    };
    const auto real = [&](double lo, double hi) {
      const auto v = number(val);
      if (!v || *v < lo || *v > hi) throw bad(fmt::format("'{}': {} is a number from {:g} to {:g}", opt, key, lo, hi));
      return *v;
    };
    const auto one_skew = [&](MoeSkew s) {
      if (m.skew != MoeSkew::uniform) throw bad("give at most one of hot=, lognormal= and routing=");
      m.skew = s;
    };
    if (key == "experts") experts = count(1, kMaxExperts);
    else if (key == "topk") topk = count(1, kMaxTopk);
    else if (key == "hidden") hidden = count(1, kMaxHidden);
    else if (key == "hot") one_skew(MoeSkew::hot), m.value = real(1, 1e6);
    else if (key == "lognormal") one_skew(MoeSkew::lognormal), m.value = real(0, 4);
    else if (key == "rank") m.hot_rank = static_cast<int>(count(0, kMaxExperts)), hot_rank_given = true;
    else if (key == "seed") {
      const auto s = whole(val);
      if (!s) throw bad(fmt::format("'{}': expected seed=N, N a whole number", opt));
      seed = *s, seeded = true;
    } else if (opt == "dispatch" || opt == "combine") m.combine = opt == "combine", m.direction_given = true;
    else if (key == "routing") {  // the rest of the spec is the path (it may hold ':')
      one_skew(MoeSkew::file);
      const std::string path(spec.substr(static_cast<std::size_t>(val.data() - spec.data())));
      if (path.empty()) throw bad("routing= needs a file");
      const MoeRouting r = read_routing_file(read_user_file(path, "routing file"), path);
      m.file = r.file, m.file_ranks = r.file_ranks, m.file_tokens = r.file_tokens;
      if (experts != 0 && static_cast<int>(experts) != r.experts)
        throw bad(fmt::format("routing file {} has {} experts (columns), not {}", path, r.experts, experts));
      if (experts == 0) experts = static_cast<std::uint64_t>(r.experts);
      break;
    } else
      throw bad(fmt::format(
          "'{}' is not an option of moe (experts=E, topk=K, hidden=H, hot=R, rank=K, lognormal=SIGMA, seed=N, "
          "dispatch, combine, routing=FILE)",
          opt));
  }
  if (experts == 0 || topk == 0 || hidden == 0) throw bad("moe needs experts=E, topk=K and hidden=H");
  if (topk > experts) throw bad(fmt::format("topk={} is more than the {} experts", topk, experts));
  if (hot_rank_given && m.skew != MoeSkew::hot) throw bad("rank= goes with hot=R");
  if (seeded && m.skew == MoeSkew::file) throw bad("a routing file draws nothing: no seed=");
  m.experts = static_cast<int>(experts), m.topk = static_cast<int>(topk), m.hidden = hidden;
  return m;
}

std::string moe_text(const MoeRouting& m, std::uint64_t seed) {
  std::string s = fmt::format("experts={}:topk={}:hidden={}", m.experts, m.topk, m.hidden);
  if (m.skew == MoeSkew::hot) s += fmt::format(":hot={:g}:rank={}", m.value, m.hot_rank);
  if (m.skew == MoeSkew::lognormal) s += fmt::format(":lognormal={:g}", m.value);
  if (m.skew != MoeSkew::file) s += fmt::format(":seed={}", seed);
  s += m.combine ? ":combine" : ":dispatch";
  if (m.skew == MoeSkew::file) s += ":routing=" + m.file;
  return s;
}

std::vector<std::uint64_t> moe_tokens(const MoeRouting& m, int n, std::uint64_t tokens_per_rank, std::uint64_t seed) {
  if (m.skew == MoeSkew::file && m.file_ranks < n)
    throw UsageError(fmt::format("routing file {}: {} rows for {} ranks", m.file, m.file_ranks, n));
  if (n < 1 || m.experts % n != 0)
    throw UsageError(fmt::format("moe: {} experts do not divide evenly among {} ranks", m.experts, n));
  if (m.skew == MoeSkew::hot && m.hot_rank >= n)
    throw UsageError(fmt::format("moe: hot rank {} is not one of the {} ranks", m.hot_rank, n));
  const std::size_t nn = static_cast<std::size_t>(n);
  const int per_rank = m.experts / n;
  if (m.skew != MoeSkew::file && static_cast<double>(tokens_per_rank) * n * m.topk > static_cast<double>(kMaxDraws))
    throw UsageError(
        fmt::format("moe: {} tokens per rank x {} ranks x topk {} is more than {} draws: give fewer tokens "
                    "(a smaller size, or a larger hidden=)",
                    tokens_per_rank, n, m.topk, kMaxDraws));
  std::vector<std::uint64_t> tokens(nn * nn, 0);
  if (m.skew == MoeSkew::file) {  // each rank's row: its shape, T x topk copies in all
    for (int i = 0; i < n; ++i) {
      const double* row = &m.file_tokens[static_cast<std::size_t>(i) * m.experts];
      const double sum = std::accumulate(row, row + m.experts, 0.0);
      if (!(sum > 0)) continue;  // this rank routes nothing
      std::vector<double> to_rank(nn, 0.0);
      for (int e = 0; e < m.experts; ++e) to_rank[static_cast<std::size_t>(e / per_rank)] += row[e];
      // Whole tokens: floor of each share, the rest to the largest remainders.
      const double total = static_cast<double>(tokens_per_rank) * m.topk;
      std::uint64_t given = 0;
      std::vector<std::pair<double, int>> rest;
      for (int j = 0; j < n; ++j) {
        const double share = total * to_rank[static_cast<std::size_t>(j)] / sum;
        tokens[i * nn + j] = static_cast<std::uint64_t>(share);
        given += tokens[i * nn + j];
        rest.push_back({share - std::floor(share), j});
      }
      std::stable_sort(rest.begin(), rest.end(), [](auto& a, auto& b) { return a.first > b.first; });
      for (std::size_t k = 0; given < static_cast<std::uint64_t>(total) && !rest.empty(); ++given, ++k)
        ++tokens[i * nn + rest[k % rest.size()].second];
    }
  } else {
    draw_tokens(m, n, tokens_per_rank, seed, tokens);
  }
  if (m.combine)
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) std::swap(tokens[i * nn + j], tokens[j * nn + i]);
  return tokens;
}

}  // namespace ccb
