#include "proxy/harness/memory.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

#include "proxy/harness/mode.hpp"
#include "proxy/harness/timed_wait.hpp"

namespace proxy::harness {
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

// The room left under this process's cgroup memory limit (v2, else v1), if it has one.
std::optional<double> cgroup_room() {
  std::string relative;  // v2: "0::/path"
  std::ifstream self("/proc/self/cgroup");
  for (std::string line; std::getline(self, line);)
    if (line.rfind("0::", 0) == 0) relative = line.substr(3);
  for (const std::string& dir : {"/sys/fs/cgroup" + relative, std::string("/sys/fs/cgroup")}) {
    const auto limit = read_number(dir + "/memory.max");
    const auto used = read_number(dir + "/memory.current");
    if (limit && used) return std::max(0.0, *limit - *used);
  }
  const auto limit = read_number("/sys/fs/cgroup/memory/memory.limit_in_bytes");
  const auto used = read_number("/sys/fs/cgroup/memory/memory.usage_in_bytes");
  if (limit && used && *limit < 1e18) return std::max(0.0, *limit - *used);
  return std::nullopt;
}

}  // namespace

std::optional<double> node_memory_available() {
  const auto available = meminfo_available();
  const auto room = cgroup_room();
  if (available && room) return std::min(*available, *room);
  return available ? available : room;
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

void check_memory(MPI_Comm comm, std::string_view what, double bytes_per_rank, int ranks_on_node) {
  const auto available = node_memory_available();
  double share = available ? *available / std::max(1, ranks_on_node) : std::numeric_limits<double>::infinity();
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallreduce(MPI_IN_PLACE, &share, 1, MPI_DOUBLE, MPI_MIN, comm, &request);
  wait_collective(request);
  if (bytes_per_rank <= share) return;
  throw InvalidSettings(std::string(what) + " needs " + bytes_text(bytes_per_rank) + " per rank (" +
                        std::to_string(ranks_on_node) + (ranks_on_node == 1 ? " rank" : " ranks") +
                        " on this node), " + bytes_text(share) + " available per rank");
}

}  // namespace proxy::harness
