// Element-wise combining for the collectives: the built-in operations through the runtime's one set of
// kernels (proxy/detail/elementwise.hpp), and MPI-contract user functions with a bounce buffer when the
// output aliases the left operand.
#include "proxy/reduction.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "proxy/error.hpp"
#include "proxy/detail/elementwise.hpp"
#include "proxy/detail/enum_names.hpp"

namespace proxy {

std::size_t size_of(DataType type) noexcept {
  return (type == DataType::float32 || type == DataType::int32) ? 4 : 8;
}

namespace {
constexpr detail::EnumNames<DataType, 4> kDataTypes{{{DataType::float32, "float"},
                                                    {DataType::float64, "double"},
                                                    {DataType::int32, "int32"},
                                                    {DataType::int64, "int64"}}};
constexpr detail::EnumNames<ReduceOp, 5> kReduceOps{{{ReduceOp::sum, "sum"},
                                                    {ReduceOp::prod, "prod"},
                                                    {ReduceOp::min, "min"},
                                                    {ReduceOp::max, "max"},
                                                    {ReduceOp::user, "user"}}};
constexpr std::size_t kBuiltinReduceOps = 4;  // `user` has a name but is not parsed: it needs a function
}  // namespace

std::string_view to_string(DataType type) noexcept { return detail::name_of(kDataTypes, type); }
std::string_view to_string(ReduceOp op) noexcept { return detail::name_of(kReduceOps, op); }

DataType parse_data_type(std::string_view text) {
  if (const auto type = detail::value_named(kDataTypes, text)) return *type;
  throw Error("unknown data type '" + std::string(text) + "' (expected " + detail::expected_names(kDataTypes) + ")");
}

ReduceOp parse_reduce_op(std::string_view text) {
  if (const auto op = detail::value_named(kReduceOps, text, kBuiltinReduceOps)) return *op;
  throw Error("unknown reduction operation '" + std::string(text) + "' (expected " +
              detail::expected_names(kReduceOps, kBuiltinReduceOps) + ")");
}

namespace {

template <class T>
void builtin(ReduceOp op, const void* a, const void* b, void* c, std::size_t n) noexcept {
  const auto run = [&](detail::ElementOp e) {
    detail::combine_elements(e, static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(c), n);
  };
  switch (op) {
    case ReduceOp::sum: run(detail::ElementOp::sum); break;
    case ReduceOp::prod: run(detail::ElementOp::prod); break;
    case ReduceOp::min: run(detail::ElementOp::min); break;
    case ReduceOp::max: run(detail::ElementOp::max); break;
    case ReduceOp::user: break;
  }
}

void user_combine(const Reduction& r, const void* left, const void* right, void* out,
                  std::size_t count) noexcept {
  const std::size_t size = r.element_size();
  if (out == right) {
    r.user(left, out, count, r.context);
    return;
  }
  if (out != left) {
    std::memmove(out, right, count * size);
    r.user(left, out, count, r.context);
    return;
  }
  if (r.commutative) {  // out == left: in op inout == inout op in
    r.user(right, out, count, r.context);
    return;
  }
  // Non-commutative and out aliases the left operand: MPI's fn writes only its right operand, so bounce.
  alignas(64) unsigned char bounce[kCombineBounceBytes];
  const std::size_t step = kCombineBounceBytes / size;
  for (std::size_t i = 0; i < count; i += step) {
    const std::size_t n = std::min(step, count - i);
    std::memcpy(bounce, static_cast<const char*>(right) + i * size, n * size);
    r.user(static_cast<const char*>(left) + i * size, bounce, n, r.context);
    std::memcpy(static_cast<char*>(out) + i * size, bounce, n * size);
  }
}

}  // namespace

void combine(const Reduction& r, const void* left, const void* right, void* out, std::size_t count) noexcept {
  if (count == 0) return;
  if (r.op == ReduceOp::user) return user_combine(r, left, right, out, count);
  switch (r.type) {
    case DataType::float32: builtin<float>(r.op, left, right, out, count); break;
    case DataType::float64: builtin<double>(r.op, left, right, out, count); break;
    case DataType::int32: builtin<std::int32_t>(r.op, left, right, out, count); break;
    case DataType::int64: builtin<std::int64_t>(r.op, left, right, out, count); break;
  }
}

void reduce_reference(const Reduction& r, const void* const* inputs, int n, void* out,
                      std::size_t count) noexcept {
  if (n <= 0 || count == 0) return;
  std::memmove(out, inputs[0], count * r.element_size());
  for (int i = 1; i < n; ++i) combine(r, out, inputs[i], out, count);
}

}  // namespace proxy
