// Topology: this node's cores, caches and NUMA domains as hwloc sees them (restricted to the cores this
// process may use), the binding the process inherited from its launcher, and thread binding. Wraps hwloc
// objects in RAII.
// Thread safety: const member functions may be called from any thread once constructed.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

struct hwloc_topology;
struct hwloc_bitmap_s;

namespace proxy {

class Topology {
 public:
  // Loads the topology and reads the process's binding (construct it before any thread is bound, as the
  // Environment does); throws proxy::Error when hwloc fails.
  Topology();
  ~Topology();
  Topology(Topology&&) noexcept;
  Topology& operator=(Topology&&) noexcept;

  int cores() const noexcept;         // usable physical cores
  int numa_domains() const noexcept;  // at least 1
  std::size_t last_level_cache_bytes() const noexcept;  // 0 when unknown
  // Cores grouped by the deepest cache they share (e.g. L2 pairs), and by NUMA domain: the levels the
  // team-collective trees follow. Each inner vector lists logical core indices.
  std::vector<std::vector<int>> cache_groups() const;
  std::vector<std::vector<int>> numa_groups() const;
  // The cores the process was bound to when the topology loaded (hwloc_get_cpubind on the process):
  // every core with a PU in the binding; all cores when the OS cannot say.
  std::vector<int> binding() const { return binding_; }
  // True when the two logical cores share some cache level (for copy-routine selection).
  bool share_cache(int core_a, int core_b) const;

  // Binds the calling thread to one PU of logical core `core` (modulo cores()), one inside the process's
  // binding when the core has such a PU. Returns false (and binds
  // nothing) if the OS refuses, e.g. in a restricted container.
  bool bind_this_thread(int core) const noexcept;
  // Logical core the calling thread last ran on, or -1.
  int current_core() const noexcept;

  std::string describe() const;  // "1 NUMA domain, 2 cores, LLC 32 MiB"
  hwloc_topology* native() const noexcept { return topology_.get(); }

 private:
  struct Deleter { void operator()(hwloc_topology* t) const noexcept; };
  struct BitmapDeleter { void operator()(hwloc_bitmap_s* b) const noexcept; };
  std::unique_ptr<hwloc_topology, Deleter> topology_;
  std::unique_ptr<hwloc_bitmap_s, BitmapDeleter> binding_pus_;  // the process binding as hwloc read it
  std::vector<int> binding_;
};

}  // namespace proxy
