#include "analysis/compare/catalogue.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <regex>
#include <set>

#include "analysis/compare/expectation.hpp"
#include "analysis/compare/reference.hpp"
#include "collectives/collective.hpp"
#include "common/environment.hpp"
#include "common/errors.hpp"
#include "common/user_file.hpp"
#include "results/import/text_input.hpp"

namespace ccb {
namespace {

// The largest rank count a figure may state (a 10,000-GPU cluster is 1e4).
constexpr long long kMaxRanks = 10'000'000;

std::vector<PublishedFigure> load_catalogue() {
  std::vector<PublishedFigure> all = published_figures();
  const char* path = env_value(EnvVar::references);
  if (!path || !*path) return all;
  const std::string name = fmt::format("CCBENCH_REFERENCES {}", path);
  std::vector<PublishedFigure> mine = read_catalogue(read_user_file(path, "CCBENCH_REFERENCES"), name);
  for (const PublishedFigure& f : mine)
    for (const PublishedFigure& p : published_figures())
      if (p.id == f.id)
        throw UsageError(fmt::format("{}: id {} is a published figure's: give yours another", name, quote_value(f.id)));
  all.insert(all.end(), mine.begin(), mine.end());
  return all;
}

}  // namespace

std::vector<PublishedFigure> read_catalogue(std::string_view text, const std::string& name) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{}: not JSON ({})", name, e.what()));
  }
  if (!doc.is_array()) throw UsageError(fmt::format("{}: not a JSON array of figures (docs/expect.md)", name));
  std::vector<PublishedFigure> out;
  std::set<std::string> ids;
  for (std::size_t k = 0; k < doc.size(); ++k) {
    const nlohmann::json& j = doc[k];
    const auto bad = [&](const std::string& what) {
      return UsageError(fmt::format("{}: figure {}: {}", name, k + 1, what));
    };
    if (!j.is_object()) throw bad("not an object");
    const auto text_of = [&](const char* key, bool required) {
      const auto it = j.find(key);
      if (it == j.end() || it->is_null()) {
        if (required) throw bad(fmt::format("no {}", key));
        return std::string();
      }
      if (!it->is_string() || it->get<std::string>().empty() || it->get<std::string>().size() > 500)
        throw bad(fmt::format("{} must be a text of 1 to 500 characters", key));
      return it->get<std::string>();
    };
    const auto whole = [&](const char* key, long long lo, long long hi) {
      const auto it = j.find(key);
      if (it == j.end() || !it->is_number_integer() || it->get<long long>() < lo || it->get<long long>() > hi)
        throw bad(fmt::format("{} must be a whole number from {} to {}", key, lo, hi));
      return it->get<long long>();
    };
    PublishedFigure f;
    f.id = text_of("id", true);
    if (!ids.insert(f.id).second) throw bad(fmt::format("id {} given twice", quote_value(f.id)));
    f.system = text_of("system", true);
    f.collective = text_of("collective", true);
    if (!find_collective(f.collective))
      throw bad(fmt::format("collective {}: not one ccbench runs (ccbench list)", quote_value(f.collective)));
    f.gpu = text_of("gpu", true);
    if (gpu_family(f.gpu) != f.gpu)
      throw bad(fmt::format("gpu {}: not a family the limits know ({})", quote_value(f.gpu), gpu_families_text()));
    f.ranks = static_cast<int>(whole("ranks", 2, kMaxRanks));
    f.nodes = static_cast<int>(whole("nodes", 1, f.ranks));
    f.bytes = static_cast<std::uint64_t>(whole("bytes", 1, std::int64_t{1} << 50));
    const auto bw = j.find("busbw_gbps");
    if (bw == j.end() || !bw->is_number() || !std::isfinite(bw->get<double>()) || !(bw->get<double>() > 0) ||
        bw->get<double>() > 1e6)
      throw bad("busbw_gbps must be a number above 0 (GB/s)");
    f.busbw_gbps = bw->get<double>();
    f.source = text_of("source", true) + " (" + name + ")";
    f.date = text_of("date", false);
    static const std::regex date(R"(\d{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?)");
    if (!f.date.empty() && !std::regex_match(f.date, date))
      throw bad(fmt::format("date {}: YYYY-MM or YYYY-MM-DD", quote_value(f.date)));
    out.push_back(std::move(f));
  }
  return out;
}

std::string catalogue_text(const std::vector<PublishedFigure>& figures) {
  std::string out = "[\n";
  for (std::size_t k = 0; k < figures.size(); ++k) {
    const PublishedFigure& f = figures[k];
    nlohmann::ordered_json j{
        {"id", f.id},       {"system", f.system}, {"collective", f.collective}, {"ranks", f.ranks},
        {"nodes", f.nodes}, {"bytes", f.bytes},   {"busbw_gbps", f.busbw_gbps}, {"source", f.source},
        {"gpu", f.gpu}};
    if (!f.date.empty()) j["date"] = f.date;
    out += "  " + j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
           (k + 1 < figures.size() ? ",\n" : "\n");
  }
  return out + "]\n";
}

const std::vector<PublishedFigure>& reference_catalogue() {
  static const std::vector<PublishedFigure> figures = load_catalogue();
  return figures;
}

}  // namespace ccb
