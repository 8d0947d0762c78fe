// Internal to the runtime and its programs (not installed): a count and its noun for messages, "1 rank",
// "2 ranks", "1 process", "3 processes", so that no message says "1 ranks" or "(1 bytes)"; and a duration.
// Thread safety: pure functions.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>

namespace proxy::detail {

// "<count> <singular>" for a count of 1 (or -1), else "<count> <plural>"; plural defaults to singular + "s".
inline std::string counted(long long count, std::string_view singular, std::string_view plural = {}) {
  std::string text = std::to_string(count) + " ";
  if (count == 1 || count == -1) return text.append(singular);
  return plural.empty() ? text.append(singular).append("s") : text.append(plural);
}

// "5.0 s", "120.0 s"; below 0.1 s two significant digits, "0.01 s" (PROXY_WAIT_TIMEOUT's least, which "%.1f"
// printed as "after 0.0 s").
inline std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, seconds < 0.1 ? "%.2g s" : "%.1f s", seconds);
  return text;
}
inline std::string seconds_text(std::chrono::milliseconds duration) {
  return seconds_text(static_cast<double>(duration.count()) / 1000.0);
}

}  // namespace proxy::detail
