#include "proxy/statistics.hpp"

#include <cstdio>

namespace proxy {

std::string ProxyStatistics::format() const {
  char line[256];
  char busy[32] = "busy not timed";
  if (timed) std::snprintf(busy, sizeof busy, "busy %.1f%%", 100.0 * busy_fraction);
  std::snprintf(line, sizeof line, "proxy: up %.3f s, %s, %llu commands, queue high-water %zu\n", uptime_seconds, busy,
                static_cast<unsigned long long>(commands), queue_high_water);
  std::string text = line;
  if (strips > 0) {
    std::snprintf(line, sizeof line, "  thread-level phases: %llu strips, %llu run by waiting threads\n",
                  static_cast<unsigned long long>(strips), static_cast<unsigned long long>(strips_by_waiters));
    text += line;
  }
  if (plans.empty()) return text;
  std::snprintf(line, sizeof line, "  %-24s %10s %14s %12s %12s\n", "plan", "starts", "bytes", "mean us", "max us");
  text += line;
  for (const auto& p : plans) {
    std::snprintf(line, sizeof line, "  %-24s %10llu %14llu", p.name.c_str(), static_cast<unsigned long long>(p.starts),
                  static_cast<unsigned long long>(p.bytes));
    text += line;
    const double mean = p.starts > 0 ? 1e6 * p.total_seconds / static_cast<double>(p.starts) : 0.0;
    if (timed)
      std::snprintf(line, sizeof line, " %12.1f %12.1f\n", mean, 1e6 * p.max_seconds);
    else
      std::snprintf(line, sizeof line, " %12s %12s\n", "-", "-");
    text += line;
  }
  if (!timed) text += "  (times not kept: PROXY_TIMINGS=1 keeps them)\n";
  return text;
}

}  // namespace proxy
