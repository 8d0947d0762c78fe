// Placement: which cores of a node a rank uses, which one runs its proxy, and where its compute threads go.
// compute_placement() is pure arithmetic (unit-tested for 1..64 cores and 1..8 ranks per node); the
// Environment feeds it the node's real numbers. Core numbers are logical core indices (hwloc order).
#pragma once

#include <string>
#include <vector>

namespace proxy {

struct PlacementRequest {
  int cores_on_node = 1;   // physical cores the node lets this job use
  int ranks_on_node = 1;   // ranks sharing them
  int local_rank = 0;      // this rank's index among them
  int threads = 0;         // compute threads wanted; 0 = one per compute core
  bool with_proxy = true;  // reserve a core for the proxy thread
};

struct Placement {
  std::vector<int> cores;          // this rank's slice of the node
  int proxy_core = -1;             // -1 when with_proxy is false
  std::vector<int> compute_cores;  // core of compute thread i is compute_cores[i % size]
  int threads = 1;                 // compute threads
  bool shared_proxy = false;       // proxy shares a core with compute work (too few cores)
  bool oversubscribed = false;     // more threads (or ranks) than cores
  std::string describe() const;    // one line, e.g. "cores 0-3: proxy on 3 (dedicated), 3 compute threads on 0-2"
};

// Throws proxy::Error naming the bad value for non-positive counts or local_rank outside [0, ranks_on_node).
Placement compute_placement(const PlacementRequest& request);

}  // namespace proxy
