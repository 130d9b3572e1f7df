// Host storage type per dtype, and exact conversion of a small integer to it.
#pragma once
#include <cstdint>
#include <type_traits>

#include "kernels/dtype.hpp"
#include "kernels/fp8.hpp"
#include "kernels/half.hpp"

namespace ccb {

template <DType D>
struct Element;
template <>
struct Element<DType::int8> {
  using type = int8_t;
};
template <>
struct Element<DType::uint8> {
  using type = uint8_t;
};
template <>
struct Element<DType::int32> {
  using type = int32_t;
};
template <>
struct Element<DType::uint32> {
  using type = uint32_t;
};
template <>
struct Element<DType::int64> {
  using type = int64_t;
};
template <>
struct Element<DType::uint64> {
  using type = uint64_t;
};
template <>
struct Element<DType::half> {
  using type = uint16_t;
};
template <>
struct Element<DType::bfloat16> {
  using type = uint16_t;
};
template <>
struct Element<DType::float32> {
  using type = float;
};
template <>
struct Element<DType::float64> {
  using type = double;
};
template <>
struct Element<DType::f8e4m3> {
  using type = uint8_t;
};
template <>
struct Element<DType::f8e5m2> {
  using type = uint8_t;
};

template <DType D>
using element_t = typename Element<D>::type;

inline namespace CCB_ISA_NAMESPACE {

template <DType D>
CCB_HD inline element_t<D> from_exact_int(int32_t v) {
  if constexpr (D == DType::half) {
    return exact_int_to_half(v);
  } else if constexpr (D == DType::bfloat16) {
    return exact_int_to_bf16(v);
  } else if constexpr (D == DType::f8e4m3) {
    return float_to_fp8<E4M3>(static_cast<float>(v));
  } else if constexpr (D == DType::f8e5m2) {
    return float_to_fp8<E5M2>(static_cast<float>(v));
  } else {
    return static_cast<element_t<D>>(v);
  }
}

// Calls f(std::integral_constant<DType, D>{}) for the runtime dtype d.
template <class F>
decltype(auto) visit_dtype(DType d, F&& f) {
  using C = std::integral_constant<DType, DType::int8>;
  switch (d) {
    case DType::int8: return f(C{});
    case DType::uint8: return f(std::integral_constant<DType, DType::uint8>{});
    case DType::int32: return f(std::integral_constant<DType, DType::int32>{});
    case DType::uint32: return f(std::integral_constant<DType, DType::uint32>{});
    case DType::int64: return f(std::integral_constant<DType, DType::int64>{});
    case DType::uint64: return f(std::integral_constant<DType, DType::uint64>{});
    case DType::half: return f(std::integral_constant<DType, DType::half>{});
    case DType::bfloat16: return f(std::integral_constant<DType, DType::bfloat16>{});
    case DType::float32: return f(std::integral_constant<DType, DType::float32>{});
    case DType::float64: return f(std::integral_constant<DType, DType::float64>{});
    case DType::f8e4m3: return f(std::integral_constant<DType, DType::f8e4m3>{});
    case DType::f8e5m2: return f(std::integral_constant<DType, DType::f8e5m2>{});
  }
  return f(C{});
}

}  // namespace CCB_ISA_NAMESPACE
}  // namespace ccb
