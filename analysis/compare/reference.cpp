#include "analysis/compare/reference.hpp"

#include <nlohmann/json.hpp>

#include "collectives/collective.hpp"

namespace ccb {

extern const char* const kPublishedJson;  // generated from analysis/compare/published.json

namespace {

std::vector<PublishedFigure> parse_published() {
  std::vector<PublishedFigure> out;
  for (const auto& j : nlohmann::json::parse(kPublishedJson)) {
    PublishedFigure f;
    f.id = j.at("id");
    f.system = j.at("system");
    f.collective = j.at("collective");
    f.source = j.at("source");
    f.ranks = j.at("ranks");
    f.nodes = j.at("nodes");
    f.bytes = j.at("bytes");
    f.busbw_gbps = j.at("busbw_gbps");
    f.gpu = j.at("gpu");
    f.date = j.value("date", "");
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace

const std::vector<PublishedFigure>& published_figures() {
  static const std::vector<PublishedFigure> figures = parse_published();
  return figures;
}

ResultSet published_set(const PublishedFigure& f) {
  ResultSet set;
  set.label = "published: " + f.id;
  set.published_source = f.source;
  set.files.push_back("published.json:" + f.id);
  set.formats.emplace_back("published figure");
  set.note_env("tool", "published figure: " + f.system);
  ImportedPoint p;
  p.collective = f.collective;
  p.ranks = f.ranks;
  p.nodes = f.nodes;
  p.bytes = f.bytes;
  p.busbw_gbps = f.busbw_gbps;
  const Collective* c = find_collective(f.collective);
  const double factor = c ? bus_factor(*c, f.ranks) : 1;
  p.algbw_gbps = f.busbw_gbps / factor;
  p.time_us = static_cast<double>(f.bytes) / (p.algbw_gbps * 1e3);
  p.line = 1;
  set.points.push_back(std::move(p));
  return set;
}

}  // namespace ccb
