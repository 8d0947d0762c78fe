// Internal to the runtime (not installed): an enum's names, written once as a table, for its to_string and
// its parser (the switch and the if-chain each enum would otherwise write twice, apart).
// Thread safety: constant tables and pure functions.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace proxy::detail {

template <class E>
struct EnumName {
  E value;
  std::string_view name;
};

template <class E, std::size_t N>
using EnumNames = std::array<EnumName<E>, N>;

// The name of `value`, "?" for a value outside the table.
template <class E, std::size_t N>
constexpr std::string_view name_of(const EnumNames<E, N>& names, E value) noexcept {
  for (const auto& entry : names)
    if (entry.value == value) return entry.name;
  return "?";
}

// The value named `text` among the first `accepted` entries (the rest have names but are not parsed).
template <class E, std::size_t N>
constexpr std::optional<E> value_named(const EnumNames<E, N>& names, std::string_view text,
                                       std::size_t accepted = N) noexcept {
  for (std::size_t i = 0; i < accepted && i < N; ++i)
    if (names[i].name == text) return names[i].value;
  return std::nullopt;
}

// "a, b or c": the first `accepted` names, for an error naming what a parser expects.
template <class E, std::size_t N>
std::string expected_names(const EnumNames<E, N>& names, std::size_t accepted = N) {
  std::string text;
  const std::size_t n = accepted < N ? accepted : N;
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) text += i + 1 == n ? " or " : ", ";
    text += names[i].name;
  }
  return text;
}

}  // namespace proxy::detail
