#include "kernels/dtype.hpp"

#include <array>

namespace ccb {
namespace {
// exact_limit: int8 127, uint8 255, half 2^11, bfloat16 2^8, f8e4m3 2^4,
// f8e5m2 2^3; the wide types use 2^24 (exact in float) so every dtype shares
// the same pattern shapes.
constexpr std::array<DTypeInfo, 12> kTypes{{
    {DType::int8, "int8", 1, false, true, 127},
    {DType::uint8, "uint8", 1, false, false, 255},
    {DType::int32, "int32", 4, false, true, 1 << 24},
    {DType::uint32, "uint32", 4, false, false, 1 << 24},
    {DType::int64, "int64", 8, false, true, 1 << 24},
    {DType::uint64, "uint64", 8, false, false, 1 << 24},
    {DType::half, "half", 2, true, true, 2048},
    {DType::bfloat16, "bfloat16", 2, true, true, 256},
    {DType::float32, "float", 4, true, true, 1 << 24},
    {DType::float64, "double", 8, true, true, 1 << 24},
    {DType::f8e4m3, "f8e4m3", 1, true, true, 16},
    {DType::f8e5m2, "f8e5m2", 1, true, true, 8},
}};

struct Alias {
  std::string_view alias;
  DType id;
};
constexpr std::array<Alias, 13> kAliases{{
    {"char", DType::int8},
    {"int", DType::int32},
    {"fp16", DType::half},
    {"float16", DType::half},
    {"bf16", DType::bfloat16},
    {"fp32", DType::float32},
    {"float32", DType::float32},
    {"fp64", DType::float64},
    {"float64", DType::float64},
    {"fp8e4m3", DType::f8e4m3},
    {"e4m3", DType::f8e4m3},
    {"fp8e5m2", DType::f8e5m2},
    {"e5m2", DType::f8e5m2},
}};

constexpr std::array<ReduceOpInfo, 5> kOps{{
    {ReduceOp::sum, "sum"},
    {ReduceOp::prod, "prod"},
    {ReduceOp::max, "max"},
    {ReduceOp::min, "min"},
    {ReduceOp::avg, "avg"},
}};
}  // namespace

std::span<const DTypeInfo> all_dtypes() { return kTypes; }
const DTypeInfo& info(DType d) { return kTypes[static_cast<std::size_t>(d)]; }

std::optional<DType> parse_dtype(std::string_view name) {
  for (const auto& t : kTypes)
    if (t.name == name) return t.id;
  for (const auto& a : kAliases)
    if (a.alias == name) return a.id;
  return std::nullopt;
}

std::span<const ReduceOpInfo> all_ops() { return kOps; }
std::string_view name(ReduceOp op) { return kOps[static_cast<std::size_t>(op)].name; }
std::optional<ReduceOp> parse_op(std::string_view name) {
  for (const auto& o : kOps)
    if (o.name == name) return o.id;
  return std::nullopt;
}

}  // namespace ccb
