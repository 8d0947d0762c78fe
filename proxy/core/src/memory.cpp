#include "proxy/memory.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>

#include <sys/resource.h>

#include "proxy/detail/counted.hpp"

namespace proxy {
namespace {

std::optional<double> meminfo_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024.0;
  return std::nullopt;
}

std::optional<double> read_number(const std::string& path) {
  std::ifstream in(path);
  double value = 0;
  if (in >> value) return value;  // "max" (no limit) fails to parse: no limit
  return std::nullopt;
}

// The smallest (limit - usage) over a cgroup directory and its ancestors (a limit is often set on a parent
// slice, not on the process's own cgroup). root: where the hierarchy is mounted; path: "/a/b" or "/".
std::optional<double> room_up_the_tree(const std::string& root, const std::string& path, const char* limit_file,
                                       const char* usage_file) {
  std::optional<double> room;
  for (std::size_t length = path.size();;) {  // "/a/b", then "/a", then "" (the root)
    const std::string dir = root + path.substr(0, length);
    const auto limit = read_number(dir + "/" + limit_file);
    const auto used = read_number(dir + "/" + usage_file);
    if (limit && used && *limit < 1e18) room = std::min(room.value_or(*limit), std::max(0.0, *limit - *used));
    if (length <= 1) break;
    length = path.find_last_of('/', length - 1);
  }
  return room;
}

// The room left under this process's cgroup memory limits: cgroup v2 ("0::/path", memory.max) and, on
// a v1 or hybrid host, the memory controller's own hierarchy ("4:memory:/path", memory.limit_in_bytes).
std::optional<double> cgroup_room() {
  std::optional<double> room;
  std::ifstream self("/proc/self/cgroup");
  for (std::string line; std::getline(self, line);) {
    std::optional<double> here;
    if (line.rfind("0::", 0) == 0) {
      here = room_up_the_tree("/sys/fs/cgroup", line.substr(3), "memory.max", "memory.current");
    } else if (const auto at = line.find(":memory:"); at != std::string::npos) {
      here = room_up_the_tree("/sys/fs/cgroup/memory", line.substr(at + 8), "memory.limit_in_bytes",
                              "memory.usage_in_bytes");
    }
    if (here) room = std::min(room.value_or(*here), *here);
  }
  return room;
}

// What RLIMIT_AS still lets this process map (the limit less its present virtual size), if it is limited.
std::optional<double> address_space_room() {
  struct rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  std::ifstream status("/proc/self/status");
  double size_kib = 0;
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmSize:", 0) == 0) size_kib = std::strtod(line.c_str() + 7, nullptr);
  return std::max(0.0, static_cast<double>(limit.rlim_cur) - size_kib * 1024.0);
}

}  // namespace

MemoryShare memory_share(int ranks_on_node) {
  MemoryShare share;
  const int ranks = std::max(1, ranks_on_node);
  if (const auto available = meminfo_available()) share = {*available / ranks, MemoryLimit::host_available};
  if (const auto room = cgroup_room(); room && *room / ranks < share.bytes)
    share = {*room / ranks, MemoryLimit::cgroup};
  if (const auto room = address_space_room(); room && *room < share.bytes)  // per process, not divided
    share = {*room, MemoryLimit::address_space};
  return share;
}

std::string_view to_string(MemoryLimit limit) {
  switch (limit) {
    case MemoryLimit::none: return "no limit known";
    case MemoryLimit::host_available: return "the host's MemAvailable";
    case MemoryLimit::cgroup: return "the cgroup's memory limit";
    case MemoryLimit::address_space: return "RLIMIT_AS";
  }
  return "?";
}

std::string need_refusal(double bytes) {
  if (bytes >= 0.0) return {};
  char text[64];
  std::snprintf(text, sizeof text, "is %g, not a number of bytes >= 0", bytes);
  return text;
}

std::string bytes_text(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 8) {
    bytes /= 1024.0;
    ++unit;
  }
  char text[64];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, units[unit]);
  return text;
}

std::string memory_refusal(std::string_view what, double need, int ranks_on_node, MemoryShare share) {
  if (need <= share.bytes) return {};
  return std::string(what) + " needs " + bytes_text(need) + " per rank (" + detail::counted(ranks_on_node, "rank") +
         " on this node), " + bytes_text(share.bytes) +
         " available per rank (" + std::string(to_string(share.limit)) + ")";
}

MemoryVote memory_vote(MemoryShare mine, double bytes_per_rank) {
  return {{{mine.bytes, static_cast<int>(mine.limit)}, {-bytes_per_rank, 0}}};
}

std::string memory_refusal(std::string_view what, const MemoryVote& reduced, int ranks_on_node) {
  return memory_refusal(what, -reduced[1].value, ranks_on_node,
                        {reduced[0].value, static_cast<MemoryLimit>(reduced[0].code)});
}

}  // namespace proxy
