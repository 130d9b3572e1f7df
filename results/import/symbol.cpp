#include "results/import/symbol.hpp"

#include <deque>
#include <unordered_map>

namespace ccb {
namespace {

struct SymbolTable {
  std::deque<std::string> strings{std::string()};  // id 0 is ""
  std::unordered_map<std::string_view, std::uint32_t> ids{{std::string_view(), 0}};
};

SymbolTable& table() {
  static SymbolTable t;
  return t;
}

}  // namespace

Symbol::Symbol(std::string_view s) {
  if (s.empty()) return;
  SymbolTable& t = table();
  const auto it = t.ids.find(s);
  if (it != t.ids.end()) {
    id_ = it->second;
    return;
  }
  id_ = static_cast<std::uint32_t>(t.strings.size());
  t.strings.emplace_back(s);
  t.ids.emplace(t.strings.back(), id_);
}

const std::string& Symbol::str() const { return table().strings[id_]; }

}  // namespace ccb
