// Team: collectives among the compute threads of one rank (one address space, zero copy): barrier,
// broadcast, reduce and allreduce, after Li, Hoefler, Snir, HPDC'13 (seed 001). Threads read each other's
// buffers directly; synchronisation is one cache-line-padded, monotonically increasing flag per thread
// (never reset, so no extra barrier between calls), waited on through the wait policy (Notifier), so a team
// of 4 threads on 2 cores makes progress. No locks and no allocation per call: scratch is allocated once.
// Vectors above `strip_bytes` are strip-mined so that each strip's working set stays in the last-level cache.
//
// Thread contract: every one of the `size()` threads calls the same collectives in the same order, each
// with its own distinct `thread` index in [0, size()); the arguments other than the buffers (count,
// reduction, root, algorithm) must agree. A thread's buffers must stay untouched until its call returns.
// Calls by two different teams never interact. Not re-entrant for one thread index.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "proxy/collective_model.hpp"
#include "proxy/config.hpp"
#include "proxy/copy.hpp"
#include "proxy/placement.hpp"
#include "proxy/reduction.hpp"

namespace proxy {

class Topology;

struct TeamConfig {
  WaitPolicy wait_policy = WaitPolicy::spin_then_yield;
  int spin_count = 2000;
  // A wait for another thread longer than this throws proxy::Error naming both threads (a missing thread).
  std::chrono::milliseconds wait_timeout{120'000};
  // The hardware hierarchy, finest level first: levels[k][t] = group of thread t at level k (e.g. k = 0:
  // cores sharing a cache, k = 1: NUMA domain). Trees reduce within each group before going up; the
  // two-stage broadcast uses the coarsest level. Groups are taken as runs of equal ids, so threads should be
  // numbered so that threads sharing a cache are adjacent (Placement does). Empty: one flat level.
  std::vector<std::vector<int>> levels;
  // Strip size for long vectors; 0 chooses from last_level_cache_bytes.
  std::size_t strip_bytes = 0;
  std::size_t last_level_cache_bytes = std::size_t{32} << 20;
  CollectiveModel model;
  CopyPolicy copy;

  // Policy, spin count and timeout from a proxy Config, the model from PROXY_COLLECTIVE_MODEL.
  static TeamConfig from(const Config& config);
  // The same, plus the hardware: levels from hwloc for a team whose thread t runs on
  // placement.compute_cores[t % size] (as Environment::bind_openmp_threads binds them), and the
  // last-level cache size for strip mining.
  static TeamConfig from(const Config& config, const Topology& topology, const Placement& placement);
};

// levels for TeamConfig from hwloc: thread t runs on logical core thread_cores[t]; level 0 groups cores
// sharing a cache (Topology::cache_groups), level 1 NUMA domains.
std::vector<std::vector<int>> team_levels(const Topology& topology, const std::vector<int>& thread_cores);

class Team {
 public:
  // Throws proxy::Error for threads < 1, levels that do not have `threads` entries, or a wait_timeout or
  // spin_count outside the bounds of PROXY_WAIT_TIMEOUT and PROXY_SPIN_COUNT (config.hpp).
  explicit Team(int threads, TeamConfig config = {});
  ~Team();
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  int size() const noexcept;
  const TeamConfig& config() const noexcept;
  TeamShape shape() const noexcept;          // threads and sockets (groups of the coarsest level)
  std::size_t strip_bytes() const noexcept;  // the strip length in use

  void barrier(int thread);

  // Root's `bytes` bytes of `buffer` land in every thread's `buffer`.
  void broadcast(int thread, void* buffer, std::size_t bytes, int root,
                 BroadcastAlgorithm algorithm = BroadcastAlgorithm::automatic);

  // recv (significant at root only) = send of thread 0 op send of thread 1 op ... (thread order).
  // In place: send == recv or send == nullptr at the root (then recv holds the root's input).
  void reduce(int thread, const void* send, void* recv, std::size_t count, const Reduction& reduction, int root,
              ReduceAlgorithm algorithm = ReduceAlgorithm::automatic);

  // Every thread's recv = the reduction over all threads' send, in thread order. In place: send == recv or
  // send == nullptr.
  void allreduce(int thread, const void* send, void* recv, std::size_t count, const Reduction& reduction,
                 AllreduceAlgorithm algorithm = AllreduceAlgorithm::automatic);

  template <class T>
  void allreduce(int thread, const T* send, T* recv, std::size_t count, ReduceOp op,
                 AllreduceAlgorithm algorithm = AllreduceAlgorithm::automatic) {
    allreduce(thread, send, recv, count, Reduction::builtin(data_type_of<T>(), op), algorithm);
  }

  // Thread `thread` cannot take its part in the collective it has begun (an error before its part, such as
  // memory it could not allocate): every other thread's wait in the team, now and later, throws proxy::Error
  // naming it and `why` ("team collective: thread 1 stopped waiting for thread 0: thread 0 abandoned the
  // team: ..."), instead of waiting out wait_timeout. The team cannot be used after. The caller throws its own
  // error; the first reason is kept (truncated to 255 bytes).
  void abandon(int thread, const std::string& why) noexcept;

  // What `automatic` picks for `bytes` per thread (the model, with this team's shape).
  AllreduceAlgorithm choose_allreduce(std::size_t bytes) const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace proxy
