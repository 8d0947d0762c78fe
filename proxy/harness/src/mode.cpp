#include "proxy/harness/mode.hpp"

#include <string>

namespace proxy::harness {

std::string_view to_string(Mode mode) noexcept {
  switch (mode) {
    case Mode::sync: return "sync";
    case Mode::async: return "async";
    case Mode::mt: return "mt";
    case Mode::proxy: return "proxy";
  }
  return "?";
}

Mode parse_mode(std::string_view text) {
  for (Mode mode : {Mode::sync, Mode::async, Mode::mt, Mode::proxy})
    if (text == to_string(mode)) return mode;
  throw InvalidSettings("--mode: unknown value '" + std::string(text) + "' (expected sync, async, mt or proxy)");
}

void check_threads(Mode mode, long long threads) {
  if (threads < 0)
    throw InvalidSettings("--threads must be at least 0 (0 = one per core), got '" + std::to_string(threads) + "'");
  if (!is_multi_tier(mode) && threads > 1)
    throw InvalidSettings("--threads " + std::to_string(threads) + " needs --mode mt or proxy (" +
                          std::string(to_string(mode)) + " runs one thread per rank)");
}

}  // namespace proxy::harness
