#include "proxy/placement.hpp"

#include <algorithm>
#include <string>

#include "proxy/detail/counted.hpp"
#include "proxy/error.hpp"

namespace proxy {

namespace {

// "core 3" or "cores 0-1": the noun agrees with the set.
std::string cores_phrase(const CoreSet& cores) {
  return (cores.size() == 1 ? "core " : "cores ") + describe_cores(cores);
}

// What one rank of the host does with its slice; every rank on the host computes every rank's, alike.
struct Slice {
  CoreSet cores;
  int proxy_core = -1;
  CoreSet compute_cores;
  int threads = 0;
  int group = -1;  // ranks with identical bindings form a group; -1 for an empty binding
  bool proxy_core_computes = false;  // the compute threads did not fit beside the proxy: its core computes too

  int threads_on(int core) const {
    int n = 0;
    for (int t = 0; t < threads && !compute_cores.empty(); ++t)
      if (compute_cores[static_cast<std::size_t>(t) % compute_cores.size()] == core) ++n;
    return n;
  }
};

CoreSet all_cores(int count) {
  CoreSet all(static_cast<std::size_t>(count));
  for (int c = 0; c < count; ++c) all[static_cast<std::size_t>(c)] = c;
  return all;
}

CoreSet within_host(const CoreSet& binding, int cores_on_host) {
  CoreSet usable;
  for (int c : binding)
    if (c >= 0 && c < cores_on_host) usable.push_back(c);
  std::sort(usable.begin(), usable.end());
  usable.erase(std::unique(usable.begin(), usable.end()), usable.end());
  return usable;
}

// The slices of every rank: each group of ranks with the same binding splits it as evenly as possible in
// contiguous runs (the first (cores % ranks) ranks get one core more); more ranks than cores share them
// round-robin. Disjoint bindings therefore keep their own cores.
std::vector<Slice> slice_host(const std::vector<CoreSet>& usable, int threads, bool with_proxy) {
  const std::size_t n = usable.size();
  std::vector<Slice> slices(n);
  std::vector<CoreSet> group_bindings;
  for (std::size_t k = 0; k < n; ++k) {
    if (usable[k].empty()) continue;
    const auto found = std::find(group_bindings.begin(), group_bindings.end(), usable[k]);
    slices[k].group = static_cast<int>(found - group_bindings.begin());
    if (found == group_bindings.end()) group_bindings.push_back(usable[k]);
  }
  for (std::size_t k = 0; k < n; ++k) {
    Slice& s = slices[k];
    if (s.group < 0) continue;
    const CoreSet& binding = usable[k];
    int members = 0, index = 0;
    for (std::size_t j = 0; j < n; ++j) {
      if (slices[j].group != s.group) continue;
      if (j < k) ++index;
      ++members;
    }
    const int cores = static_cast<int>(binding.size());
    if (cores >= members) {
      const int base = cores / members;
      const int extra = cores % members;
      const int first = index * base + std::min(index, extra);
      const int count = base + (index < extra ? 1 : 0);
      s.cores.assign(binding.begin() + first, binding.begin() + first + count);
    } else {
      s.cores.push_back(binding[static_cast<std::size_t>(index % cores)]);
    }
    if (with_proxy && s.cores.size() >= 2) {
      s.proxy_core = s.cores.back();  // the last core of the slice: the compute threads keep a contiguous range
      s.compute_cores.assign(s.cores.begin(), s.cores.end() - 1);
    } else {
      s.compute_cores = s.cores;
      if (with_proxy) s.proxy_core = s.cores.front();
    }
    s.threads = threads > 0 ? threads : static_cast<int>(s.compute_cores.size());
    // More compute threads than the cores beside the proxy: a reserved core would sit idle (the progress
    // strategy is then cooperative, the proxy sleeps) while the threads crowd onto the others. Every core
    // of the slice computes instead; the proxy shares the last one.
    if (with_proxy && s.cores.size() >= 2 && s.threads > static_cast<int>(s.compute_cores.size())) {
      s.compute_cores = s.cores;
      s.proxy_core_computes = true;
    }
  }
  return slices;
}

// "rank 1's proxy and 1 compute thread"; "" when rank k runs nothing on `core`.
std::string occupant(const Slice& s, int world_rank, int core) {
  const int threads = s.threads_on(core);
  const bool proxy = s.proxy_core == core;
  if (!proxy && threads == 0) return "";
  std::string text = "rank " + std::to_string(world_rank) + "'s ";
  if (proxy) text += "proxy";
  if (proxy && threads > 0) text += " and ";
  if (threads > 0) text += detail::counted(threads, "compute thread");
  return text;
}

}  // namespace

std::string describe_cores(const CoreSet& cores) {
  if (cores.empty()) return "none";
  std::string text;
  for (std::size_t i = 0; i < cores.size();) {
    std::size_t j = i;
    while (j + 1 < cores.size() && cores[j + 1] == cores[j] + 1) ++j;
    if (!text.empty()) text += ',';
    text += std::to_string(cores[i]);
    if (j > i) text += '-' + std::to_string(cores[j]);
    i = j + 1;
  }
  return text;
}

std::string Placement::describe() const {
  std::string text = "cores " + describe_cores(cores) + ": ";
  if (proxy_core >= 0)
    text += "proxy on " + std::to_string(proxy_core) + " (" +
            (proxy_core_dedicated ? std::string("dedicated") : proxy_sharing_reason) + "), ";
  text += detail::counted(threads, "compute thread") + " on " + describe_cores(compute_cores);
  if (oversubscribed) text += " (oversubscribed)";
  return text;
}

Placement place_on_host(const HostLayout& host, int host_rank, int threads, bool with_proxy) {
  const int ranks = static_cast<int>(host.bindings.size());
  if (host.cores_on_host < 1)
    throw Error("placement: cores_on_host " + std::to_string(host.cores_on_host) + " < 1");
  if (ranks < 1) throw Error("placement: no ranks on host '" + host.name + "'");
  if (!host.world_ranks.empty() && static_cast<int>(host.world_ranks.size()) != ranks)
    throw Error("placement: " + detail::counted(host.world_ranks.size(), "world rank") +
                " for " + detail::counted(ranks, "binding"));
  if (host_rank < 0 || host_rank >= ranks)
    throw Error("placement: host rank " + std::to_string(host_rank) + " outside [0, " + std::to_string(ranks) + ")");
  if (threads < 0) throw Error("placement: threads " + std::to_string(threads) + " < 0");
  const auto world_rank = [&](int k) { return host.world_ranks.empty() ? k : host.world_ranks[static_cast<std::size_t>(k)]; };
  const std::string on_host = host.name.empty() ? "" : " on host " + host.name;

  std::vector<CoreSet> usable;
  for (const CoreSet& binding : host.bindings) usable.push_back(within_host(binding, host.cores_on_host));
  const CoreSet& mine = usable[static_cast<std::size_t>(host_rank)];
  if (mine.empty()) {
    const CoreSet& given = host.bindings[static_cast<std::size_t>(host_rank)];
    throw Error("placement: rank " + std::to_string(world_rank(host_rank)) + "'s binding (" +
                (given.empty() ? std::string("no cores") : cores_phrase(given)) + ") has no core" + on_host +
                " (" + cores_phrase(all_cores(host.cores_on_host)) + ")");
  }
  const std::vector<Slice> slices = slice_host(usable, threads, with_proxy);
  const Slice& me = slices[static_cast<std::size_t>(host_rank)];

  Placement p;
  p.binding = mine;
  p.cores = me.cores;
  p.proxy_core = me.proxy_core;
  p.compute_cores = me.compute_cores;
  p.threads = me.threads;
  p.oversubscribed = p.threads > static_cast<int>(p.compute_cores.size());
  for (int k = 0; k < ranks; ++k) {
    if (k == host_rank) continue;
    for (int c : slices[static_cast<std::size_t>(k)].cores)
      if (std::binary_search(p.cores.begin(), p.cores.end(), c)) p.oversubscribed = true;
  }
  if (p.proxy_core < 0) return p;

  // Who else runs on the proxy's core, and why.
  std::vector<std::string> sharers;
  p.proxy_core_compute_threads = me.threads_on(p.proxy_core);
  if (p.proxy_core_compute_threads > 0)
    sharers.push_back(detail::counted(p.proxy_core_compute_threads, "compute thread"));
  int others = 0;
  int first_other = -1;
  bool other_group = false;
  for (int k = 0; k < ranks; ++k) {
    if (k == host_rank) continue;
    const Slice& s = slices[static_cast<std::size_t>(k)];
    const std::string what = occupant(s, world_rank(k), p.proxy_core);
    if (what.empty()) continue;
    p.proxy_core_other_ranks.push_back(world_rank(k));
    if (others < 3) sharers.push_back(what);
    if (first_other < 0 && s.group != me.group) first_other = k;
    other_group = other_group || s.group != me.group;
    ++others;
  }
  if (others > 3) sharers.push_back(detail::counted(others - 3, "more rank"));
  if (sharers.empty()) {
    p.proxy_core_dedicated = true;
    return p;
  }
  p.shared_proxy = true;
  int members = 0;
  for (const Slice& s : slices) members += s.group == me.group ? 1 : 0;
  std::string why;
  if (me.proxy_core_computes && others == 0) {
    p.proxy_sharing = ProxySharing::compute_does_not_fit;
    why = detail::counted(p.threads, "compute thread") + " do not fit on the other " +
          detail::counted(static_cast<int>(p.cores.size()) - 1, "core");
  } else if (other_group) {
    p.proxy_sharing = ProxySharing::bindings_overlap;
    why = "rank " + std::to_string(world_rank(first_other)) + "'s binding (" +
          cores_phrase(usable[static_cast<std::size_t>(first_other)]) + ") overlaps this rank's (" + cores_phrase(mine) + ")";
  } else if (members > 1) {
    p.proxy_sharing = ProxySharing::ranks_share_cores;
    why = std::to_string(members) + " ranks" + on_host + " share " + cores_phrase(mine);
  } else {
    p.proxy_sharing = ProxySharing::binding_has_one_core;
    why = "binding gives this rank 1 core";
  }
  std::string list;
  for (std::size_t i = 0; i < sharers.size(); ++i) list += (i == 0 ? "" : ", ") + sharers[i];
  p.proxy_sharing_reason = "shared with " + list + ": " + why;
  return p;
}

Placement compute_placement(const PlacementRequest& request) {
  const auto& r = request;
  if (r.cores_on_node < 1) throw Error("placement: cores_on_node " + std::to_string(r.cores_on_node) + " < 1");
  if (r.ranks_on_node < 1) throw Error("placement: ranks_on_node " + std::to_string(r.ranks_on_node) + " < 1");
  if (r.local_rank < 0 || r.local_rank >= r.ranks_on_node)
    throw Error("placement: local_rank " + std::to_string(r.local_rank) + " outside [0, " +
                std::to_string(r.ranks_on_node) + ")");
  HostLayout host;
  host.cores_on_host = r.cores_on_node;
  host.bindings.assign(static_cast<std::size_t>(r.ranks_on_node), all_cores(r.cores_on_node));
  return place_on_host(host, r.local_rank, r.threads, r.with_proxy);
}

}  // namespace proxy
