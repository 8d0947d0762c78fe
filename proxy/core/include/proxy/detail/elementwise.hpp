// Internal to the runtime (not installed): the element-wise kernels of the built-in reductions (sum,
// product, min, max), written once for the two places that combine vectors: the proxy folding the threads'
// contributions of a plan's collective element (core) and the teams' combine() (collectives). Integer sums
// and products wrap (two's complement) as MPI's do, instead of overflowing into undefined behaviour; min
// and max keep the left operand on ties. Plain pointers, not __restrict: out may alias either operand
// element for element. Thread safety: pure functions over the caller's memory.
#pragma once

#include <cstddef>
#include <type_traits>

namespace proxy::detail {

enum class ElementOp { sum, prod, min, max };

template <class T>
T add_wrapping(T x, T y) noexcept {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(x) + static_cast<U>(y));
  } else {
    return x + y;
  }
}

template <class T>
T multiply_wrapping(T x, T y) noexcept {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(x) * static_cast<U>(y));
  } else {
    return x * y;
  }
}

template <class T, class F>
void combine_each(const T* a, const T* b, T* out, std::size_t n, F f) noexcept {
  for (std::size_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
}

// out[i] = a[i] op b[i] for i < n (vectorised by the compiler).
template <class T>
void combine_elements(ElementOp op, const T* a, const T* b, T* out, std::size_t n) noexcept {
  switch (op) {
    case ElementOp::sum: combine_each(a, b, out, n, add_wrapping<T>); break;
    case ElementOp::prod: combine_each(a, b, out, n, multiply_wrapping<T>); break;
    case ElementOp::min: combine_each(a, b, out, n, [](T x, T y) { return y < x ? y : x; }); break;
    case ElementOp::max: combine_each(a, b, out, n, [](T x, T y) { return x < y ? y : x; }); break;
  }
}

}  // namespace proxy::detail
