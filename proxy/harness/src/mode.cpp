#include "proxy/harness/mode.hpp"

#include <string>

#include "proxy/detail/enum_names.hpp"

namespace proxy::harness {

namespace {
constexpr proxy::detail::EnumNames<Mode, 4> kModes{
    {{Mode::sync, "sync"}, {Mode::async, "async"}, {Mode::mt, "mt"}, {Mode::proxy, "proxy"}}};
}  // namespace

std::string_view to_string(Mode mode) noexcept { return proxy::detail::name_of(kModes, mode); }

Mode parse_mode(std::string_view text) {
  if (const auto mode = proxy::detail::value_named(kModes, text)) return *mode;
  throw InvalidSettings("--mode: unknown value '" + std::string(text) + "' (expected " +
                        proxy::detail::expected_names(kModes) + ")");
}

void check_threads(Mode mode, long long threads) {
  if (threads < 0)
    throw InvalidSettings("--threads must be at least 0 (0 = one per core), got '" + std::to_string(threads) + "'");
  if (!is_multi_tier(mode) && threads > 1)
    throw InvalidSettings("--threads " + std::to_string(threads) + " needs --mode mt or proxy (" +
                          std::string(to_string(mode)) + " runs one thread per rank)");
}

}  // namespace proxy::harness
