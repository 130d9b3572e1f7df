#include "harness/split_rule.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <utility>

#include "common/errors.hpp"

namespace ccb {
namespace {

constexpr std::pair<std::string_view, SplitRule::Op> kOps[] = {
    {"AND", SplitRule::Op::bit_and}, {"&", SplitRule::Op::bit_and}, {"OR", SplitRule::Op::bit_or},
    {"|", SplitRule::Op::bit_or},    {"MOD", SplitRule::Op::mod},   {"%", SplitRule::Op::mod},
    {"DIV", SplitRule::Op::div},     {"/", SplitRule::Op::div},
};

bool starts_with_nocase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  return true;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// "12", "0x1f", "0b101": the whole text, non-negative and below 2^31.
bool parse_value(std::string_view s, int base, long& out) {
  if (base == 10 && s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16, s.remove_prefix(2);
  else if (base == 10 && s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) base = 2, s.remove_prefix(2);
  else if (base == 16 && s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc{} && end == s.data() + s.size() && out >= 0 && out < (1L << 31);
}

}  // namespace

int SplitRule::color(int world_rank) const {
  const long r = world_rank;
  switch (op) {
    case Op::bit_and: return static_cast<int>(r & value);
    case Op::bit_or: return static_cast<int>(r | value);
    case Op::mod: return static_cast<int>(r % value);
    case Op::div: return static_cast<int>(r / value);
  }
  return 0;
}

SplitRule parse_split(std::string_view text, std::string_view source) {
  const std::string_view t = trimmed(text);
  const auto bad = [&](std::string_view why) {
    return UsageError(
        fmt::format("{} '{}': {} (OPERATION VALUE: AND, OR, MOD or DIV, or &, |, %, /; the value "
                    "decimal, 0x hexadecimal or 0b binary; e.g. 'MOD 2')",
                    source, text, why));
  };
  for (const auto& [name, op] : kOps) {
    if (!starts_with_nocase(t, name)) continue;
    SplitRule rule;
    rule.op = op;
    if (!parse_value(trimmed(t.substr(name.size())), 10, rule.value)) throw bad("the value is not a number below 2^31");
    if ((op == SplitRule::Op::mod || op == SplitRule::Op::div) && rule.value < 1)
      throw bad(fmt::format("{} by {}", op == SplitRule::Op::mod ? "MOD" : "DIV", rule.value));
    rule.text = fmt::format("{} {}", kOps[2 * (static_cast<int>(op))].first, rule.value);
    return rule;
  }
  throw bad("no operation");
}

SplitRule parse_split_mask(std::string_view hex) {
  SplitRule rule;
  rule.op = SplitRule::Op::bit_and;
  if (!parse_value(trimmed(hex), 16, rule.value))
    throw UsageError(fmt::format("NCCL_TESTS_SPLIT_MASK '{}': not a hexadecimal mask below 2^31", hex));
  rule.text = fmt::format("AND {}", rule.value);
  return rule;
}

}  // namespace ccb
