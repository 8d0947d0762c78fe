// Private to proxy::collectives: the shared state of a Team and the steps its collectives are built from.
// One file per collective (team_barrier.cpp, team_broadcast.cpp, team_reduce.cpp, team_allreduce.cpp), the
// hierarchy in team_hierarchy.cpp, construction and configuration in team.cpp (the layout of Open MPI's
// coll/xhc).
//
// Synchronisation: each thread owns one padded flag that only ever grows. Every collective call (every strip
// of a long vector) is an epoch; the flag value base + phase, base = epoch * kStride, says how far the thread
// has got in that epoch. Waiting for "flag >= value" never needs a reset, and a thread that already raced
// into the next epoch still satisfies every wait of the previous one.
// Lifetime rule behind every exit wait: a thread returns only once nobody will read its buffers again, so
// the next epoch may overwrite its published pointers and the user may reuse its buffers.
// Thread contract: as team.hpp's; every member below is called by thread `t` about itself, and reads other
// threads' slots only after an await() on their flag.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "proxy/error.hpp"
#include "proxy/team.hpp"
#include "proxy/detail/notifier.hpp"
#include "proxy/detail/thread_rule.hpp"

namespace proxy {

namespace team_detail {

constexpr std::size_t kCacheLine = 64;
constexpr std::uint64_t kStride = 128;  // flag values per epoch: phases below plus 2 * log2(p) steps

// Phases within an epoch (values of flag - base).
constexpr std::uint64_t kEntered = 1;       // pointers published
constexpr std::uint64_t kReduced = 2;       // my subtree / my tile is reduced
constexpr std::uint64_t kReady = 3;         // (root) the source of the broadcast is complete
constexpr std::uint64_t kLeaderCopied = 4;  // (group leader) my copy, the second stage's source, is complete
constexpr std::uint64_t kCopied = 5;        // (reader) I have my copy
constexpr std::uint64_t kInput = 6;         // (dissemination) my step-0 input is ready
constexpr std::uint64_t kStep0 = 7;         // (dissemination) step s done: kStep0 + s; fix-up copy after

struct alignas(kCacheLine) Slot {
  std::atomic<std::uint64_t> flag{0};
  // Published by the owner before it raises its flag (release), read by others after (acquire).
  alignas(kCacheLine) const void* send = nullptr;
  void* recv = nullptr;
  const void* input = nullptr;  // dissemination: the step-0 input
  unsigned char* scratch[2] = {nullptr, nullptr};  // fixed at construction
  std::uint64_t epoch = 0;                         // owner only
  // Held by the thread inside a collective with this index (checked where thread rules are).
  detail::ExclusiveSection user{
      "team collective: two calls with one thread index at once (every thread needs its own index, team.hpp)"};
};
static_assert(sizeof(Slot) == 2 * kCacheLine, "flag and pointers each own a cache line");

struct FreeDeleter {
  void operator()(unsigned char* p) const noexcept { std::free(p); }
};

// Throws proxy::Error unless 0 <= value < size ("team collective: root 3 is outside [0, 2)").
void check_index(const char* what, int value, int size);

}  // namespace team_detail

struct Team::Impl {
  using Slot = team_detail::Slot;

  TeamConfig config;
  int p = 1;
  std::vector<Slot> slots;
  std::unique_ptr<unsigned char, team_detail::FreeDeleter> scratch_memory;
  std::size_t strip_bytes = 0;
  // The hierarchy (team_hierarchy.cpp).
  std::vector<std::vector<int>> children;  // in combine order: each child's subtree lies right of ours
  std::vector<int> parent;
  std::vector<int> group;        // coarsest-level group of each thread
  std::vector<int> group_first;  // first thread of each coarsest-level group
  std::vector<int> cache_group;  // finest-level group, for copy selection
  TeamShape shape;
  Notifier notifier;
  // The model's last allreduce choice, (bytes << 3) | algorithm: every thread of a collective asks for the
  // same size, and asking the model costs five predictions (~0.1 us at 8 bytes, a third of the call).
  mutable std::atomic<std::uint64_t> last_allreduce_choice{~std::uint64_t{0}};

  Impl(int threads, TeamConfig cfg);  // team.cpp
  void build_hierarchy();             // team_hierarchy.cpp

  std::uint64_t begin_epoch(int t) noexcept { return ++slots[t].epoch * team_detail::kStride; }

  void publish(int t, std::uint64_t value) noexcept {
    slots[t].flag.store(value, std::memory_order_release);
    notifier.notify_all();
  }

  // Thread t waits until thread `other` has published `value` (or throws after the team's wait timeout, or
  // once a thread has abandoned the team).
  void await(int t, int other, std::uint64_t value) {
    const auto& flag = slots[other].flag;
    if (flag.load(std::memory_order_acquire) >= value) return;
    const auto done = [&] {
      return flag.load(std::memory_order_acquire) >= value || abandoned_by.load(std::memory_order_relaxed) >= 0;
    };
    if (!notifier.wait(done, config.wait_policy, Notifier::Clock::now() + config.wait_timeout, config.spin_count))
      throw Error("team collective: thread " + std::to_string(t) + " waited " +
                  std::to_string(config.wait_timeout.count()) + " ms for thread " + std::to_string(other) +
                  " (do all " + std::to_string(p) + " threads call the same collectives in the same order?)");
    if (flag.load(std::memory_order_acquire) >= value) return;
    const int by = abandoned_by.load(std::memory_order_acquire);
    throw Error("team collective: thread " + std::to_string(t) + " stopped waiting for thread " +
                std::to_string(other) + ": thread " + std::to_string(by) + " abandoned the team: " + abandon_reason);
  }

  // Team::abandon: the first thread to abandon writes the reason, then publishes its index (release).
  std::atomic<bool> abandoning{false};
  std::atomic<int> abandoned_by{-1};
  char abandon_reason[256] = {};  // no allocation: a thread abandons when memory has run out

  void copy_from(int t, int source, void* destination, const void* from, std::size_t bytes) const noexcept {
    CopyPolicy policy = config.copy;
    policy.share_cache = cache_group[t] == cache_group[source];
    copy(destination, from, bytes, CopyKind::automatic, policy);
  }

  std::size_t strip_elements(std::size_t element) const noexcept {
    const std::size_t line = std::max<std::size_t>(1, team_detail::kCacheLine / element);
    return std::max(line, strip_bytes / element / line * line);
  }

  // What reduce and allreduce share: in place when send is null, nothing for an empty vector, a copy on a
  // one-thread team, and otherwise the vector strip by strip (HPDC'13 sec. 2: each strip's working set
  // stays in the last-level cache), each strip its own epoch: body(base, in, out, n). `out` is null where
  // recv is (a reduce's non-root threads).
  template <class Body>
  void for_each_strip(int t, const void* send, void* recv, std::size_t count, std::size_t element, Body&& body) {
    if (send == nullptr) send = recv;
    if (count == 0) return;
    if (p == 1) {
      if (recv != send) std::memmove(recv, send, count * element);
      return;
    }
    const std::size_t strip = strip_elements(element);
    for (std::size_t offset = 0; offset < count; offset += strip) {
      const std::size_t n = std::min(strip, count - offset);
      const auto* in = static_cast<const char*>(send) + offset * element;
      auto* out = recv ? static_cast<char*>(recv) + offset * element : nullptr;
      body(begin_epoch(t), in, out, n);
    }
  }

  // The algorithms, one file per collective; each is one epoch of thread t from base on.
  void tree_reduce(int t, std::uint64_t base, const void* send, void* recv, std::size_t n, const Reduction& r,
                   int root);  // team_reduce.cpp
  void tiled_reduce(int t, std::uint64_t base, const void* send, void* recv, std::size_t n, const Reduction& r,
                    int root);  // team_reduce.cpp
  void broadcast_phase(int t, std::uint64_t base, int root, void* own, std::size_t bytes, bool two_stage,
                       bool tiled_source);  // team_broadcast.cpp
  void dissemination(int t, std::uint64_t base, const void* send, void* recv, std::size_t n,
                     const Reduction& r);  // team_allreduce.cpp
};

}  // namespace proxy
