#include "kernels/host_reduce.hpp"

#include <algorithm>
#include <stdexcept>

#include "kernels/element.hpp"
#include "kernels/half.hpp"

namespace ccb {
namespace {

// Arithmetic type used to combine two elements, and the conversions to it.
template <DType D> struct Compute {
  using type = element_t<D>;
  static type load(element_t<D> v) { return v; }
  static element_t<D> store(type v) { return v; }
};
template <> struct Compute<DType::half> {
  using type = float;
  static float load(uint16_t v) { return half_to_float(v); }
  static uint16_t store(float v) { return float_to_half(v); }
};
template <> struct Compute<DType::bfloat16> {
  using type = float;
  static float load(uint16_t v) { return bf16_to_float(v); }
  static uint16_t store(float v) { return float_to_bf16(v); }
};
// int8/uint8 promote to int in C++; keep the wrap-around of the element type.
template <DType D, ReduceOp Op>
void reduce_loop(const element_t<D>* __restrict in, element_t<D>* __restrict inout, std::size_t n) {
  using C = Compute<D>;
  using T = typename C::type;
  for (std::size_t k = 0; k < n; ++k) {
    const T a = C::load(in[k]);
    const T b = C::load(inout[k]);
    T r;
    if constexpr (Op == ReduceOp::sum) r = static_cast<T>(a + b);
    else if constexpr (Op == ReduceOp::prod) r = static_cast<T>(a * b);
    else if constexpr (Op == ReduceOp::min) r = a < b ? a : b;
    else r = a > b ? a : b;
    inout[k] = C::store(r);
  }
}

template <DType D>
void divide_loop(element_t<D>* buf, std::size_t n, int nranks) {
  using C = Compute<D>;
  using T = typename C::type;
  const T divisor = static_cast<T>(nranks);
  for (std::size_t k = 0; k < n; ++k) buf[k] = C::store(static_cast<T>(C::load(buf[k]) / divisor));
}

}  // namespace

void reduce_into(DType dtype, ReduceOp op, const void* in, void* inout, std::size_t count) {
  visit_dtype(dtype, [&](auto d) {
    constexpr DType D = decltype(d)::value;
    const auto* a = static_cast<const element_t<D>*>(in);
    auto* b = static_cast<element_t<D>*>(inout);
    switch (op) {
      case ReduceOp::sum: return reduce_loop<D, ReduceOp::sum>(a, b, count);
      case ReduceOp::prod: return reduce_loop<D, ReduceOp::prod>(a, b, count);
      case ReduceOp::min: return reduce_loop<D, ReduceOp::min>(a, b, count);
      case ReduceOp::max: return reduce_loop<D, ReduceOp::max>(a, b, count);
      case ReduceOp::avg: break;
    }
    throw std::logic_error("reduce_into: avg is sum followed by divide_by_ranks");
  });
}

void divide_by_ranks(DType dtype, void* buf, std::size_t count, int nranks) {
  visit_dtype(dtype, [&](auto d) {
    constexpr DType D = decltype(d)::value;
    divide_loop<D>(static_cast<element_t<D>*>(buf), count, nranks);
  });
}

}  // namespace ccb
