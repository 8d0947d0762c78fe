// Placement: which cores of a host a rank uses, which one runs its proxy, and where its compute threads go.
// It starts from reality: the binding each rank inherited from its launcher (taskset, Open MPI's
// --bind-to core, a batch system's cpuset), intersected with the host's cores. Ranks on one host with the
// same binding split it as evenly as possible; ranks with disjoint bindings keep their own cores.
// place_on_host() is pure arithmetic over given core sets (unit-tested); the Environment feeds it the
// real bindings of the ranks on its host (grouped by host name). Core numbers are logical core indices
// (hwloc order). Thread safety: plain values and pure functions, callable from any thread.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <string>
#include <vector>

namespace proxy {

using CoreSet = std::vector<int>;  // sorted, distinct logical core indices

// The ranks on one physical host and the bindings they inherited: the input of place_on_host().
struct HostLayout {
  std::string name;               // host name, for messages ("" in synthetic layouts)
  int cores_on_host = 1;          // the host's cores, 0 .. cores_on_host - 1
  std::vector<int> world_ranks;   // world rank of each rank on the host, in host order
  std::vector<CoreSet> bindings;  // each rank's inherited binding as cores (all cores when unbound)
};

// Why the proxy's core is not the proxy's alone (the data behind describe()'s parenthesis).
enum class ProxySharing {
  none,                  // no proxy, or its core is dedicated
  binding_has_one_core,  // the launcher bound this rank to one core: its compute threads run there too
  ranks_share_cores,     // ranks on the host with this rank's binding split it: this slice has one core
                         // (or more ranks than cores: several ranks on one core)
  bindings_overlap,      // another rank's different binding covers the proxy's core
  compute_does_not_fit,  // more compute threads than the cores beside the proxy: its core computes too
                         // (a reserved core would sit idle under the cooperative strategy)
};

struct Placement {
  CoreSet binding;                 // this rank's inherited binding within the host's cores
  CoreSet cores;                   // this rank's slice of it
  int proxy_core = -1;             // -1 when with_proxy is false
  // True only when no other thread of any rank on the host (nor this rank's compute threads) runs on
  // proxy_core: the question a progress strategy asks before letting the proxy spin.
  bool proxy_core_dedicated = false;
  ProxySharing proxy_sharing = ProxySharing::none;
  int proxy_core_compute_threads = 0;        // this rank's compute threads on proxy_core
  std::vector<int> proxy_core_other_ranks;   // world ranks of the host that also run a thread there
  std::string proxy_sharing_reason;  // "" when dedicated, else e.g. "shared with 1 compute thread: binding
                                     // gives this rank 1 core"
  CoreSet compute_cores;           // core of compute thread i is compute_cores[i % size]
  int threads = 1;                 // compute threads
  bool shared_proxy = false;       // the proxy exists and its core is not dedicated
  bool oversubscribed = false;     // more threads than compute cores, or cores shared with other ranks
  // One line, e.g. "cores 0-3: proxy on 3 (dedicated), 3 compute threads on 0-2" or
  // "cores 0: proxy on 0 (shared with 1 compute thread: binding gives this rank 1 core), 1 compute thread on 0".
  std::string describe() const;
};

// The placement of rank host_rank of `host`, assuming every rank on the host asks for the same threads
// (0 = one per compute core) and with_proxy. Throws proxy::Error naming the bad value for a bad count or
// index, and naming the binding when it has no core on the host.
Placement place_on_host(const HostLayout& host, int host_rank, int threads, bool with_proxy);

// Shorthand for ranks_on_node unbound ranks sharing all cores_on_node cores of an unnamed host.
struct PlacementRequest {
  int cores_on_node = 1;   // physical cores the node lets this job use
  int ranks_on_node = 1;   // ranks sharing them
  int local_rank = 0;      // this rank's index among them
  int threads = 0;         // compute threads wanted; 0 = one per compute core
  bool with_proxy = true;  // reserve a core for the proxy thread
};
Placement compute_placement(const PlacementRequest& request);

// "0-3,6" for {0,1,2,3,6}; "none" for an empty set.
std::string describe_cores(const CoreSet& cores);

}  // namespace proxy
