// Reduction: what a team or node collective combines (element type + operation), MPI-like.
// Built-in operations (sum, prod, min, max) on float, double, int32, int64, and user operations with
// MPI's contract: fn(in, inout, count, context) computes inout[i] = in[i] op inout[i]; a non-commutative
// operation is combined in thread (rank) order, exactly as MPI specifies for MPI_Op_create(commute=0).
// Thread safety: a Reduction is immutable plain data; combine() may run on any thread concurrently.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace proxy {

enum class DataType { float32, float64, int32, int64 };
enum class ReduceOp { sum, prod, min, max, user };

std::size_t size_of(DataType type) noexcept;
std::string_view to_string(DataType type) noexcept;
std::string_view to_string(ReduceOp op) noexcept;
// Parse "float"/"double"/"int32"/"int64" and "sum"/"prod"/"min"/"max"; throw proxy::Error naming the value.
DataType parse_data_type(std::string_view text);
ReduceOp parse_reduce_op(std::string_view text);

// MPI-like user function: inout[i] = in[i] op inout[i] for i < count.
using UserFunction = void (*)(const void* in, void* inout, std::size_t count, void* context);

template <class T>
constexpr DataType data_type_of() noexcept {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "float, double, int32 or int64");
  if constexpr (std::is_floating_point_v<T>) return sizeof(T) == 4 ? DataType::float32 : DataType::float64;
  else return sizeof(T) == 4 ? DataType::int32 : DataType::int64;
}

struct Reduction {
  DataType type = DataType::float64;
  ReduceOp op = ReduceOp::sum;
  UserFunction user = nullptr;  // only for ReduceOp::user
  void* context = nullptr;      // handed to `user`
  bool commutative = true;      // built-in operations are; a user operation says so

  static Reduction builtin(DataType type, ReduceOp op) noexcept { return {type, op, nullptr, nullptr, true}; }
  static Reduction custom(DataType type, UserFunction fn, void* context, bool commutative) noexcept {
    return {type, ReduceOp::user, fn, context, commutative};
  }
  std::size_t element_size() const noexcept { return size_of(type); }
};

// Largest run of elements combine() processes through its private bounce buffer for user operations whose
// output aliases the left operand (MPI's fn can only write its right operand).
inline constexpr std::size_t kCombineBounceBytes = 4096;

// out[i] = left[i] op right[i] for i < count; left holds lower ranks. out may alias left or right
// (element for element), never overlap them otherwise. noexcept: user functions must not throw.
void combine(const Reduction& reduction, const void* left, const void* right, void* out,
             std::size_t count) noexcept;

// Serial reference: out = in[0] op in[1] op ... op in[n-1], left to right (the order tests compare with).
void reduce_reference(const Reduction& reduction, const void* const* inputs, int n, void* out,
                      std::size_t count) noexcept;

}  // namespace proxy
