#include "proxy/placement.hpp"

#include <algorithm>
#include <string>

#include "proxy/error.hpp"

namespace proxy {

namespace {

std::string ranges(const std::vector<int>& cores) {
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

}  // namespace

std::string Placement::describe() const {
  std::string text = "cores " + ranges(cores) + ": ";
  if (proxy_core >= 0)
    text += "proxy on " + std::to_string(proxy_core) + (shared_proxy ? " (shared)" : " (dedicated)") + ", ";
  text += std::to_string(threads) + " compute thread" + (threads == 1 ? "" : "s") + " on " + ranges(compute_cores);
  if (oversubscribed) text += " (oversubscribed)";
  return text;
}

Placement compute_placement(const PlacementRequest& request) {
  const auto& r = request;
  if (r.cores_on_node < 1) throw Error("placement: cores_on_node " + std::to_string(r.cores_on_node) + " < 1");
  if (r.ranks_on_node < 1) throw Error("placement: ranks_on_node " + std::to_string(r.ranks_on_node) + " < 1");
  if (r.local_rank < 0 || r.local_rank >= r.ranks_on_node)
    throw Error("placement: local_rank " + std::to_string(r.local_rank) + " outside [0, " +
                std::to_string(r.ranks_on_node) + ")");
  if (r.threads < 0) throw Error("placement: threads " + std::to_string(r.threads) + " < 0");

  Placement p;
  if (r.cores_on_node >= r.ranks_on_node) {
    // Contiguous slices as even as possible: the first (cores % ranks) ranks get one core more.
    const int base = r.cores_on_node / r.ranks_on_node;
    const int extra = r.cores_on_node % r.ranks_on_node;
    const int first = r.local_rank * base + std::min(r.local_rank, extra);
    const int count = base + (r.local_rank < extra ? 1 : 0);
    for (int c = 0; c < count; ++c) p.cores.push_back(first + c);
  } else {
    p.cores.push_back(r.local_rank % r.cores_on_node);  // more ranks than cores: ranks share cores
    p.oversubscribed = true;
  }

  if (r.with_proxy && p.cores.size() >= 2) {
    p.proxy_core = p.cores.back();  // the last core of the slice: the compute threads keep a contiguous range
    p.compute_cores.assign(p.cores.begin(), p.cores.end() - 1);
  } else {
    p.compute_cores = p.cores;
    if (r.with_proxy) {
      p.proxy_core = p.cores.front();
      p.shared_proxy = true;
    }
  }
  p.threads = r.threads > 0 ? r.threads : static_cast<int>(p.compute_cores.size());
  if (p.threads > static_cast<int>(p.compute_cores.size())) p.oversubscribed = true;
  return p;
}

}  // namespace proxy
