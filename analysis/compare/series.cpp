#include "analysis/compare/series.hpp"
#include "results/stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

namespace ccb {
namespace {

struct FieldName {
  KeyField field;
  std::string_view name;
};
constexpr FieldName kFieldNames[] = {
    {kKeyDtype, "dtype"},      {kKeyOp, "op"},     {kKeyRanks, "ranks"},  {kKeyNodes, "nodes"},
    {kKeyInPlace, "in_place"}, {kKeyPath, "path"}, {kKeyMemory, "memory"}};

using PackedKey = std::array<std::uint64_t, 3>;

struct PackedKeyHash {
  std::size_t operator()(const PackedKey& k) const {
    return static_cast<std::size_t>(k[0] * 0x9E3779B97F4A7C15ull ^ (k[1] + 0x632BE59BD9B4E019ull) * 31 ^ k[2]);
  }
};

}  // namespace

std::optional<unsigned> parse_key_fields(std::string_view list, std::string* bad) {
  unsigned mask = 0;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    bool known = false;
    for (const auto& f : kFieldNames)
      if (item == f.name) mask |= f.field, known = true;
    if (!known) {
      if (bad) *bad = std::string(item);
      return std::nullopt;
    }
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
  }
  return mask;
}

std::string_view key_field_name(unsigned field) {
  for (const auto& f : kFieldNames)
    if (field == f.field) return f.name;
  return "collective";
}

std::string key_field_list(unsigned fields) {
  std::string out;
  for (const auto& f : kFieldNames)
    if (fields & f.field) out += fmt::format("{}{}", out.empty() ? "" : ", ", f.name);
  return out;
}

std::string key_fields_text(unsigned fields) {
  const std::string middle = key_field_list(fields);
  return "collective, " + (middle.empty() ? "" : middle + ", ") + "size";
}

unsigned recorded_fields(const ResultSet& set) {
  unsigned mask = kKeyAll;
  for (const ImportedPoint& p : set.points) {
    if (p.dtype.empty()) mask &= ~kKeyDtype;
    if (p.op.empty()) mask &= ~kKeyOp;
    if (p.ranks <= 0) mask &= ~kKeyRanks;
    if (p.nodes <= 0) mask &= ~kKeyNodes;
    if (p.in_place < 0) mask &= ~kKeyInPlace;
    if (p.path.empty()) mask &= ~kKeyPath;
    if (p.memory.empty()) mask &= ~kKeyMemory;
  }
  return mask;
}

std::string Series::label() const {
  std::string out = collective;
  if (!dtype.empty() && dtype != "-") out += " " + dtype;
  if (!op.empty() && op != "-") out += " " + op;
  if (ranks > 0) out += fmt::format(", {} rank{}", ranks, ranks == 1 ? "" : "s");
  if (nodes > 0) out += fmt::format(", {} node{}", nodes, nodes == 1 ? "" : "s");
  if (groups > 1) out += fmt::format(", {} groups side by side", groups);
  const bool io = collective.str().starts_with("io_");  // ccbench io: no placement; path = the I/O settings
  if (in_place >= 0 && !io) out += in_place ? ", in-place" : ", out-of-place";
  if (mpi_calls == "nonblocking") out += ", nonblocking MPI calls";
  if (!path.empty()) out += io ? ", " + path : ", path " + path;
  if (!memory.empty()) out += ", " + memory + " memory";
  return out;
}

int compare_keys(const Series& a, const Series& b) {
  if (const int c = a.collective.str().compare(b.collective.str())) return c;
  if (const int c = a.dtype.str().compare(b.dtype.str())) return c;
  if (const int c = a.op.str().compare(b.op.str())) return c;
  if (a.ranks != b.ranks) return a.ranks < b.ranks ? -1 : 1;
  if (a.nodes != b.nodes) return a.nodes < b.nodes ? -1 : 1;
  if (a.groups != b.groups) return a.groups < b.groups ? -1 : 1;
  // Only nonblocking MPI calls stand apart: blocking ones are what OSU, IMB (and NCCL's host calls) time.
  if (const bool x = a.mpi_calls == "nonblocking", y = b.mpi_calls == "nonblocking"; x != y) return x ? 1 : -1;
  if (a.in_place != b.in_place) return a.in_place < b.in_place ? -1 : 1;
  if (const int c = a.path.str().compare(b.path.str())) return c;
  return a.memory.str().compare(b.memory.str());
}

SeriesTable build_series(const ResultSet& set, unsigned fields) {
  SeriesTable table;
  table.fields = fields;
  std::unordered_map<PackedKey, std::size_t, PackedKeyHash> index;
  std::vector<std::vector<const ImportedPoint*>> members;
  PackedKey last{~0ull, ~0ull, ~0ull};
  std::size_t last_series = 0;
  for (const ImportedPoint& p : set.points) {
    const std::uint64_t d = fields & kKeyDtype ? p.dtype.id() : 0;
    const std::uint64_t o = fields & kKeyOp ? p.op.id() : 0;
    const std::uint64_t pa = fields & kKeyPath ? p.path.id() : 0;
    const std::uint64_t m = fields & kKeyMemory ? p.memory.id() : 0;
    const std::uint64_t r = fields & kKeyRanks ? static_cast<std::uint32_t>(p.ranks) : 0;
    const std::uint64_t n = fields & kKeyNodes ? static_cast<std::uint32_t>(p.nodes) : 0;
    const std::uint64_t ip = fields & kKeyInPlace ? static_cast<std::uint64_t>(p.in_place + 1) : 0;
    const std::uint64_t g = static_cast<std::uint64_t>(std::clamp(p.groups, 1, (1 << 17) - 1));
    const std::uint64_t calls = p.mpi_calls == "nonblocking" ? 1 : 0;
    const PackedKey key{(static_cast<std::uint64_t>(p.collective.id()) << 40) | (d << 20) | o,
                        (pa << 40) | (m << 20) | (g << 2) | ip, (calls << 60) | (r << 32) | n};
    if (key != last) {
      const auto [it, fresh] = index.emplace(key, table.series.size());
      if (fresh) {
        Series s;
        s.collective = p.collective;
        if (fields & kKeyDtype) s.dtype = p.dtype;
        if (fields & kKeyOp) s.op = p.op;
        if (fields & kKeyPath) s.path = p.path;
        if (fields & kKeyMemory) s.memory = p.memory;
        if (fields & kKeyRanks) s.ranks = p.ranks;
        if (fields & kKeyNodes) s.nodes = p.nodes;
        if (fields & kKeyInPlace) s.in_place = p.in_place;
        s.groups = static_cast<int>(g);
        s.mpi_calls = p.mpi_calls;
        table.series.push_back(std::move(s));
        members.emplace_back();
      }
      last = key;
      last_series = it->second;
    }
    members[last_series].push_back(&p);
  }
  for (std::size_t i = 0; i < table.series.size(); ++i) {
    auto& pts = members[i];
    std::stable_sort(pts.begin(), pts.end(),
                     [](const ImportedPoint* a, const ImportedPoint* b) { return a->bytes < b->bytes; });
    auto& out = table.series[i].points;
    out.reserve(pts.size());
    for (std::size_t a = 0; a < pts.size();) {
      std::size_t b = a + 1;
      while (b < pts.size() && pts[b]->bytes == pts[a]->bytes) ++b;
      SeriesPoint sp;
      sp.bytes = pts[a]->bytes;
      sp.first = pts[a];
      sp.merged = static_cast<std::uint32_t>(b - a);
      if (b - a == 1) {
        sp.time_us = pts[a]->time_us;
        sp.busbw_gbps = pts[a]->busbw_gbps;
      } else {
        std::vector<double> t, bu;
        for (std::size_t k = a; k < b; ++k) {
          t.push_back(pts[k]->time_us);
          if (!std::isnan(pts[k]->busbw_gbps)) bu.push_back(pts[k]->busbw_gbps);
          sp.pooled_samples.insert(sp.pooled_samples.end(), pts[k]->samples_us.begin(), pts[k]->samples_us.end());
        }
        sp.time_us = median_of(std::move(t));
        sp.busbw_gbps = median_of(std::move(bu));
        table.merged_points += b - a - 1;
      }
      out.push_back(std::move(sp));
      a = b;
    }
  }
  // Order series by key; keep points with them.
  std::vector<std::size_t> order(table.series.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return compare_keys(table.series[a], table.series[b]) < 0; });
  std::vector<Series> sorted;
  sorted.reserve(order.size());
  for (std::size_t i : order) sorted.push_back(std::move(table.series[i]));
  table.series = std::move(sorted);
  return table;
}

}  // namespace ccb
