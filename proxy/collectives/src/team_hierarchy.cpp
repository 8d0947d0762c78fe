// The team's hierarchy (HPDC'13 sec. 2 and 2.2): which threads share a cache and a NUMA domain (from
// hwloc, team_levels), and the binomial trees built level by level over those groups, which the tree
// reduce and the two-stage broadcast follow.
#include <string>
#include <vector>

#include "proxy/detail/counted.hpp"
#include "proxy/topology.hpp"
#include "team_impl.hpp"

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

// Runs of equal ids become groups 0, 1, 2, ... so that every group is a contiguous range of threads.
std::vector<int> runs(const std::vector<int>& ids) {
  std::vector<int> out(ids.size());
  for (std::size_t t = 0; t < ids.size(); ++t) out[t] = (t == 0) ? 0 : out[t - 1] + (ids[t] != ids[t - 1]);
  return out;
}

}  // namespace

std::vector<std::vector<int>> team_levels(const Topology& topology, const std::vector<int>& thread_cores) {
  return {group_ids(topology.cache_groups(), thread_cores), group_ids(topology.numa_groups(), thread_cores)};
}

void Team::Impl::build_hierarchy() {
  std::vector<std::vector<int>> levels;
  for (const auto& level : config.levels) {
    if (static_cast<int>(level.size()) != p)
      throw Error("team hierarchy level has " + detail::counted(level.size(), "entry", "entries") +
                  " for " + detail::counted(p, "thread"));
    levels.push_back(runs(level));
  }
  cache_group = levels.empty() ? std::vector<int>(p, 0) : levels.front();
  group = levels.empty() ? std::vector<int>(p, 0) : levels.back();
  shape = {p, group.back() + 1};
  group_first.assign(shape.sockets, -1);
  for (int t = p - 1; t >= 0; --t) group_first[group[t]] = t;

  // Binomial trees level by level (HPDC'13 sec. 2.2): within each group, then among the group leaders.
  children.assign(p, {});
  parent.assign(p, -1);
  levels.push_back(std::vector<int>(p, 0));  // the top: everybody left in one group
  std::vector<int> participants(p);
  for (int t = 0; t < p; ++t) participants[t] = t;
  for (const auto& level : levels) {
    std::vector<int> leaders;
    for (std::size_t begin = 0; begin < participants.size();) {
      std::size_t end = begin;
      while (end < participants.size() && level[participants[end]] == level[participants[begin]]) ++end;
      const int g = static_cast<int>(end - begin);
      for (int step = 1; step < g; step <<= 1)
        for (int r = 0; r + step < g; r += 2 * step) {
          const int me = participants[begin + r], child = participants[begin + r + step];
          children[me].push_back(child);
          parent[child] = me;
        }
      leaders.push_back(participants[begin]);
      begin = end;
    }
    participants = std::move(leaders);
  }
}

}  // namespace proxy
