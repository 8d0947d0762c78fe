#include "proxy/topology.hpp"

#include <hwloc.h>

#include <map>
#include <memory>
#include <string>

#include "proxy/detail/counted.hpp"
#include "proxy/error.hpp"

namespace proxy {

namespace {

struct BitmapDeleter {
  void operator()(hwloc_bitmap_s* b) const noexcept { hwloc_bitmap_free(b); }
};
using Bitmap = std::unique_ptr<hwloc_bitmap_s, BitmapDeleter>;

hwloc_obj_type_t core_type(hwloc_topology_t t) {
  return hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
}

hwloc_obj_t core_object(hwloc_topology_t t, int core) {
  const int n = hwloc_get_nbobjs_by_type(t, core_type(t));
  if (n <= 0) return nullptr;
  return hwloc_get_obj_by_type(t, core_type(t), static_cast<unsigned>(((core % n) + n) % n));
}

// Groups the cores by their ancestor of `type`; empty when the level does not exist.
std::vector<std::vector<int>> group_by(hwloc_topology_t t, hwloc_obj_type_t type) {
  std::map<unsigned, std::vector<int>> groups;
  const int n = hwloc_get_nbobjs_by_type(t, core_type(t));
  for (int c = 0; c < n; ++c) {
    hwloc_obj_t core = hwloc_get_obj_by_type(t, core_type(t), static_cast<unsigned>(c));
    hwloc_obj_t ancestor = hwloc_get_ancestor_obj_by_type(t, type, core);
    if (ancestor == nullptr) return {};
    groups[ancestor->logical_index].push_back(c);
  }
  std::vector<std::vector<int>> result;
  for (auto& [index, cores] : groups) result.push_back(std::move(cores));
  return result;
}

}  // namespace

void Topology::Deleter::operator()(hwloc_topology* t) const noexcept { hwloc_topology_destroy(t); }
void Topology::BitmapDeleter::operator()(hwloc_bitmap_s* b) const noexcept { hwloc_bitmap_free(b); }

Topology::Topology() {
  hwloc_topology_t t = nullptr;
  if (hwloc_topology_init(&t) != 0) throw Error("hwloc_topology_init failed");
  topology_.reset(t);
  if (hwloc_topology_load(t) != 0) throw Error("hwloc_topology_load failed");
  // The launcher's binding (taskset, Open MPI's --bind-to core, a cpuset) is where placement starts.
  binding_pus_.reset(hwloc_bitmap_alloc());
  if (!binding_pus_) throw Error("hwloc_bitmap_alloc failed");
  if (hwloc_get_cpubind(t, binding_pus_.get(), HWLOC_CPUBIND_PROCESS) != 0)
    hwloc_bitmap_copy(binding_pus_.get(), hwloc_topology_get_topology_cpuset(t));  // the OS cannot say: unbound
  const int n = hwloc_get_nbobjs_by_type(t, core_type(t));
  for (int c = 0; c < n; ++c)
    if (hwloc_bitmap_intersects(core_object(t, c)->cpuset, binding_pus_.get())) binding_.push_back(c);
}

Topology::~Topology() = default;
Topology::Topology(Topology&&) noexcept = default;
Topology& Topology::operator=(Topology&&) noexcept = default;

int Topology::cores() const noexcept {
  const int n = hwloc_get_nbobjs_by_type(topology_.get(), core_type(topology_.get()));
  return n > 0 ? n : 1;
}

int Topology::numa_domains() const noexcept {
  const int n = hwloc_get_nbobjs_by_type(topology_.get(), HWLOC_OBJ_NUMANODE);
  return n > 0 ? n : 1;
}

std::size_t Topology::last_level_cache_bytes() const noexcept {
  for (hwloc_obj_type_t type : {HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE,
                                HWLOC_OBJ_L1CACHE}) {
    hwloc_obj_t cache = hwloc_get_obj_by_type(topology_.get(), type, 0);
    if (cache != nullptr && cache->attr != nullptr) return static_cast<std::size_t>(cache->attr->cache.size);
  }
  return 0;
}

std::vector<std::vector<int>> Topology::cache_groups() const {
  // The smallest cache level that some cores share (HPDC'13 sec. 3: reduce among cache siblings first).
  for (hwloc_obj_type_t type : {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE,
                                HWLOC_OBJ_L5CACHE}) {
    auto groups = group_by(topology_.get(), type);
    if (groups.size() < static_cast<std::size_t>(cores()) && !groups.empty()) return groups;
  }
  std::vector<std::vector<int>> singletons;
  for (int c = 0; c < cores(); ++c) singletons.push_back({c});
  return singletons;
}

std::vector<std::vector<int>> Topology::numa_groups() const {
  hwloc_topology_t t = topology_.get();
  const int domains = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
  std::vector<std::vector<int>> groups;
  for (int d = 0; d < domains; ++d) {
    hwloc_obj_t numa = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(d));
    std::vector<int> members;
    for (int c = 0; c < cores(); ++c)
      if (hwloc_bitmap_isincluded(core_object(t, c)->cpuset, numa->cpuset)) members.push_back(c);
    if (!members.empty()) groups.push_back(std::move(members));
  }
  if (groups.empty()) {
    groups.emplace_back();
    for (int c = 0; c < cores(); ++c) groups.back().push_back(c);
  }
  return groups;
}

bool Topology::share_cache(int core_a, int core_b) const {
  hwloc_topology_t t = topology_.get();
  hwloc_obj_t a = core_object(t, core_a);
  hwloc_obj_t b = core_object(t, core_b);
  if (a == nullptr || b == nullptr) return false;
  for (hwloc_obj_t o = hwloc_get_common_ancestor_obj(t, a, b); o != nullptr; o = o->parent)
    if (hwloc_obj_type_is_cache(o->type)) return true;
  return false;
}

bool Topology::bind_this_thread(int core) const noexcept {
  hwloc_obj_t obj = core_object(topology_.get(), core);
  if (obj == nullptr || obj->cpuset == nullptr) return false;
  Bitmap set(hwloc_bitmap_dup(obj->cpuset));
  if (!set) return false;
  if (binding_pus_ && hwloc_bitmap_intersects(set.get(), binding_pus_.get()))
    hwloc_bitmap_and(set.get(), set.get(), binding_pus_.get());  // stay inside the launcher's binding
  hwloc_bitmap_singlify(set.get());  // one PU: keep the thread from migrating between hyperthreads
  return hwloc_set_cpubind(topology_.get(), set.get(), HWLOC_CPUBIND_THREAD) == 0;
}

int Topology::current_core() const noexcept {
  Bitmap set(hwloc_bitmap_alloc());
  if (!set || hwloc_get_last_cpu_location(topology_.get(), set.get(), HWLOC_CPUBIND_THREAD) != 0) return -1;
  hwloc_topology_t t = topology_.get();
  hwloc_obj_t core = hwloc_get_next_obj_covering_cpuset_by_type(t, set.get(), core_type(t), nullptr);
  return core != nullptr ? static_cast<int>(core->logical_index) : -1;
}

std::string Topology::describe() const {
  const std::size_t llc = last_level_cache_bytes();
  std::string text = detail::counted(numa_domains(), "NUMA domain") + ", " + detail::counted(cores(), "core");
  if (llc > 0) text += ", last-level cache " + std::to_string(llc >> 10) + " KiB";
  return text;
}

}  // namespace proxy
