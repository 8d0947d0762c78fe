// The team's hardware hierarchy from hwloc: per thread, which cache-sharing group and which NUMA domain
// its core belongs to (HPDC'13 sec. 2: reduce within cores sharing a cache first, then across sockets).
#include <vector>

#include "proxy/team.hpp"
#include "proxy/topology.hpp"

namespace proxy {

namespace {

// Group index of each thread's core; a core in no group gets a group of its own.
std::vector<int> group_ids(const std::vector<std::vector<int>>& groups, const std::vector<int>& thread_cores) {
  std::vector<int> ids(thread_cores.size(), -1);
  for (std::size_t t = 0; t < thread_cores.size(); ++t) {
    for (std::size_t g = 0; g < groups.size() && ids[t] < 0; ++g)
      for (int core : groups[g])
        if (core == thread_cores[t]) ids[t] = static_cast<int>(g);
    if (ids[t] < 0) ids[t] = static_cast<int>(groups.size() + t);
  }
  return ids;
}

}  // namespace

std::vector<std::vector<int>> team_levels(const Topology& topology, const std::vector<int>& thread_cores) {
  return {group_ids(topology.cache_groups(), thread_cores), group_ids(topology.numa_groups(), thread_cores)};
}

}  // namespace proxy
