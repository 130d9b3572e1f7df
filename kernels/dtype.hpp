// Element types and reduction operations: names, sizes, properties.
#pragma once
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace ccb {

enum class DType { int8, uint8, int32, uint32, int64, uint64, half, bfloat16, float32, float64, f8e4m3, f8e5m2 };
enum class ReduceOp { sum, prod, max, min, avg };

struct DTypeInfo {
  DType id;
  std::string_view name;  // nccl-tests spelling
  std::size_t size;       // bytes per element
  bool is_float;
  bool is_signed;
  // Largest integer magnitude L such that every integer in [-L, L] (or [0, L]
  // for unsigned types) is exact; patterns keep every partial result within it.
  long long exact_limit;
};

std::span<const DTypeInfo> all_dtypes();
const DTypeInfo& info(DType d);
std::optional<DType> parse_dtype(std::string_view name);  // accepts aliases (fp16, bf16, ...)

struct ReduceOpInfo {
  ReduceOp id;
  std::string_view name;
};
std::span<const ReduceOpInfo> all_ops();
std::string_view name(ReduceOp op);
std::optional<ReduceOp> parse_op(std::string_view name);

}  // namespace ccb
