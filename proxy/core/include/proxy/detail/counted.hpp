// Internal to the runtime and its programs (not installed): a count and its noun for messages, "1 rank",
// "2 ranks", "1 process", "3 processes", so that no message says "1 ranks" or "(1 bytes)".
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace proxy::detail {

// "<count> <singular>" for a count of 1 (or -1), else "<count> <plural>"; plural defaults to singular + "s".
inline std::string counted(long long count, std::string_view singular, std::string_view plural = {}) {
  std::string text = std::to_string(count) + " ";
  if (count == 1 || count == -1) return text.append(singular);
  return plural.empty() ? text.append(singular).append("s") : text.append(plural);
}

}  // namespace proxy::detail
