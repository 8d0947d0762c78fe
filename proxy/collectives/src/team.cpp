// Team collectives (HPDC'13, seed 001): binary trees over the hardware hierarchy, one- and two-stage
// broadcast, dissemination (butterfly) with the non-power-of-two fix-up, tiled reduce, strip mining.
//
// Synchronisation: each thread owns one padded flag that only ever grows. Every collective call (every strip
// of a long vector) is an epoch; the flag value base + phase, base = epoch * kStride, says how far the thread
// has got in that epoch. Waiting for "flag >= value" never needs a reset, and a thread that already raced
// into the next epoch still satisfies every wait of the previous one.
// Lifetime rule behind every exit wait: a thread returns only once nobody will read its buffers again, so
// the next epoch may overwrite its published pointers and the user may reuse its buffers.
#include "proxy/team.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "proxy/error.hpp"
#include "proxy/topology.hpp"
#include "proxy/detail/notifier.hpp"

namespace proxy {

namespace {

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
};
static_assert(sizeof(Slot) == 2 * kCacheLine, "flag and pointers each own a cache line");

struct FreeDeleter {
  void operator()(unsigned char* p) const noexcept { std::free(p); }
};

// Runs of equal ids become groups 0, 1, 2, ... so that every group is a contiguous range of threads.
std::vector<int> runs(const std::vector<int>& ids) {
  std::vector<int> out(ids.size());
  for (std::size_t t = 0; t < ids.size(); ++t) out[t] = (t == 0) ? 0 : out[t - 1] + (ids[t] != ids[t - 1]);
  return out;
}

}  // namespace

TeamConfig TeamConfig::from(const Config& config) {
  TeamConfig team;
  team.wait_policy = config.wait_policy;
  team.spin_count = config.spin_count;
  team.wait_timeout = config.wait_timeout;
  team.model = CollectiveModel::from_env();
  return team;
}

TeamConfig TeamConfig::from(const Config& config, const Topology& topology, const Placement& placement) {
  TeamConfig team = from(config);
  std::vector<int> thread_cores;
  for (int t = 0; t < placement.threads && !placement.compute_cores.empty(); ++t)
    thread_cores.push_back(placement.compute_cores[static_cast<std::size_t>(t) % placement.compute_cores.size()]);
  if (!thread_cores.empty()) team.levels = team_levels(topology, thread_cores);
  if (const std::size_t llc = topology.last_level_cache_bytes(); llc > 0) team.last_level_cache_bytes = llc;
  return team;
}

struct Team::Impl {
  TeamConfig config;
  int p = 1;
  std::vector<Slot> slots;
  std::unique_ptr<unsigned char, FreeDeleter> scratch_memory;
  std::size_t strip_bytes = 0;
  std::vector<std::vector<int>> children;  // in combine order: each child's subtree lies right of ours
  std::vector<int> parent;
  std::vector<int> group;        // coarsest-level group of each thread
  std::vector<int> group_first;  // first thread of each coarsest-level group
  std::vector<int> cache_group;  // finest-level group, for copy selection
  TeamShape shape;
  Notifier notifier;

  Impl(int threads, TeamConfig cfg) : config(std::move(cfg)), p(threads), slots(threads) {
    build_hierarchy();
    const std::size_t llc = config.last_level_cache_bytes ? config.last_level_cache_bytes : (32u << 20);
    // HPDC'13 sec. 2: strips sized so that the p inputs, the output and scratch of a strip fit the LLC.
    strip_bytes = config.strip_bytes ? config.strip_bytes
                                     : std::clamp<std::size_t>(llc / (3 * std::size_t(p)), 32u << 10, 1u << 20);
    strip_bytes = std::max(kCacheLine, strip_bytes / kCacheLine * kCacheLine);
    const std::size_t total = 2 * strip_bytes * std::size_t(p);
    scratch_memory.reset(static_cast<unsigned char*>(std::aligned_alloc(kCacheLine, total)));
    if (!scratch_memory) throw std::bad_alloc();
    for (int t = 0; t < p; ++t)
      for (int k = 0; k < 2; ++k) slots[t].scratch[k] = scratch_memory.get() + (2 * std::size_t(t) + k) * strip_bytes;
  }

  void build_hierarchy() {
    std::vector<std::vector<int>> levels;
    for (const auto& level : config.levels) {
      if (static_cast<int>(level.size()) != p)
        throw Error("team hierarchy level has " + std::to_string(level.size()) + " entries for " +
                    std::to_string(p) + " threads");
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

  std::uint64_t begin_epoch(int t) noexcept { return ++slots[t].epoch * kStride; }

  void publish(int t, std::uint64_t value) noexcept {
    slots[t].flag.store(value, std::memory_order_release);
    notifier.notify_all();
  }

  void await(int t, int other, std::uint64_t value) {
    const auto& flag = slots[other].flag;
    if (flag.load(std::memory_order_acquire) >= value) return;
    const auto done = [&] { return flag.load(std::memory_order_acquire) >= value; };
    if (!notifier.wait(done, config.wait_policy, Notifier::Clock::now() + config.wait_timeout, config.spin_count))
      throw Error("team collective: thread " + std::to_string(t) + " waited " +
                  std::to_string(config.wait_timeout.count()) + " ms for thread " + std::to_string(other) +
                  " (do all " + std::to_string(p) + " threads call the same collectives in the same order?)");
  }

  void copy_from(int t, int source, void* destination, const void* from, std::size_t bytes) const noexcept {
    CopyPolicy policy = config.copy;
    policy.share_cache = cache_group[t] == cache_group[source];
    copy(destination, from, bytes, CopyKind::automatic, policy);
  }

  std::size_t strip_elements(std::size_t element) const noexcept {
    const std::size_t line = std::max<std::size_t>(1, kCacheLine / element);
    return std::max(line, strip_bytes / element / line * line);
  }

  // Binary-tree reduce in thread order into root's recv (HPDC'13 sec. 2.2). Thread 0 accumulates in its
  // recv when it is the root, else in scratch, and writes root's recv only in its last combine, when every
  // input (root's own, in place) has been read.
  void tree_reduce(int t, std::uint64_t base, const void* send, void* recv, std::size_t n, const Reduction& r,
                   int root) {
    Slot& me = slots[t];
    me.send = send;
    me.recv = recv;
    const auto& kids = children[t];
    if (kids.empty()) {
      publish(t, base + kReduced);
      return;
    }
    if (t == root && t != 0) publish(t, base + kEntered);
    const void* left = send;
    for (std::size_t i = 0; i < kids.size(); ++i) {
      const int c = kids[i];
      await(t, c, base + kReduced);
      const void* right = children[c].empty() ? slots[c].send : static_cast<const void*>(slots[c].scratch[0]);
      void* out = me.scratch[0];
      if (t == 0 && root == 0) {
        out = recv;
      } else if (t == 0 && i + 1 == kids.size()) {
        await(t, root, base + kEntered);
        out = slots[root].recv;
      }
      combine(r, left, right, out, n);
      left = out;
    }
    publish(t, base + (t == 0 ? kReady : kReduced));
  }

  // Tiled reduce (HPDC'13 sec. 2.4): thread t reduces tile t of all inputs, in thread order, into root's recv.
  void tiled_reduce(int t, std::uint64_t base, const void* send, void* recv, std::size_t n, const Reduction& r,
                    int root) {
    Slot& me = slots[t];
    me.send = send;
    me.recv = recv;
    publish(t, base + kEntered);
    for (int k = 0; k < p; ++k) await(t, k, base + kEntered);  // the a_alpha * q term of eq. (8)
    const std::size_t element = r.element_size();
    const std::size_t line = std::max<std::size_t>(1, kCacheLine / element);
    const std::size_t tile = ((n + p - 1) / p + line - 1) / line * line;  // whole lines: no false sharing
    const std::size_t first = std::min(n, tile * t), last = std::min(n, first + tile);
    if (first < last) {
      const std::size_t offset = first * element, m = last - first;
      const auto input = [&](int k) { return static_cast<const char*>(slots[k].send) + offset; };
      char* target = static_cast<char*>(slots[root].recv) + offset;
      // Root in place and not first: its input would be overwritten before its turn, so use scratch.
      const bool bounce = root != 0 && slots[root].recv == slots[root].send;
      char* out = bounce ? reinterpret_cast<char*>(me.scratch[0]) : target;
      combine(r, input(0), input(1), out, m);
      for (int k = 2; k < p; ++k) combine(r, out, input(k), out, m);
      if (bounce) std::memcpy(target, out, m * element);
    }
    publish(t, base + kReduced);
  }

  // Broadcast of `bytes` from root's published recv to every thread's `own` (HPDC'13 eq. (4)): one stage,
  // everyone reads the root; two stages, one leader per coarsest group reads it and its group reads the
  // leader. tiled_source: the source is complete when every tile is (no kReady from the root).
  void broadcast_phase(int t, std::uint64_t base, int root, void* own, std::size_t bytes, bool two_stage,
                       bool tiled_source) {
    const auto wait_source = [&] {
      if (tiled_source) {
        for (int k = 0; k < p; ++k) await(t, k, base + kReduced);
      } else {
        await(t, root, base + kReady);
      }
    };
    if (!two_stage || shape.sockets == 1) {
      if (t == root) {
        for (int k = 0; k < p; ++k)
          if (k != root) await(t, k, base + kCopied);
      } else {
        wait_source();
        copy_from(t, root, own, slots[root].recv, bytes);
        publish(t, base + kCopied);
      }
      return;
    }
    const auto leader_of = [&](int k) { return group[k] == group[root] ? root : group_first[group[k]]; };
    const int leader = leader_of(t);
    if (t == leader) {
      if (t != root) {
        wait_source();
        copy_from(t, root, own, slots[root].recv, bytes);
        publish(t, base + kLeaderCopied);
      }
      for (int k = 0; k < p; ++k) {
        if (k == t) continue;
        if (group[k] == group[t]) await(t, k, base + kCopied);
        else if (t == root && k == leader_of(k)) await(t, k, base + kLeaderCopied);
      }
      return;
    }
    if (leader == root) {
      wait_source();
    } else {
      await(t, leader, base + kLeaderCopied);
    }
    copy_from(t, leader, own, slots[leader].recv, bytes);
    publish(t, base + kCopied);
  }

  // Dissemination allreduce (HPDC'13 sec. 2.3) in its butterfly form: at step s, new index k combines with
  // k xor 2^s, lower index on the left, so that non-commutative operations combine in thread order. The
  // fix-up of eq. (7): thread 2i (i < r) hands its input to 2i + 1 first and copies the result at the end.
  void dissemination(int t, std::uint64_t base, const void* send, void* recv, std::size_t n, const Reduction& r) {
    Slot& me = slots[t];
    const std::size_t bytes = n * r.element_size();
    const int steps = 31 - __builtin_clz(static_cast<unsigned>(p));
    const int power = 1 << steps, extra = p - power;
    const auto old_of = [&](int k) { return k < extra ? 2 * k + 1 : k + extra; };
    me.send = send;
    me.recv = recv;
    if (t < 2 * extra && t % 2 == 0) {  // excess thread: contribute, then copy the partner's result
      me.input = send;
      publish(t, base + kInput);
      await(t, t + 1, base + kStep0 + steps);  // the partner's recv holds the result
      copy_from(t, t + 1, recv, slots[t + 1].recv, bytes);
      publish(t, base + kStep0 + steps + 1);
      return;
    }
    const int k = t < 2 * extra ? t / 2 : t - extra;
    const void* input = send;
    if (t < 2 * extra) {
      await(t, t - 1, base + kInput);
      combine(r, slots[t - 1].send, send, me.scratch[1], n);
      input = me.scratch[1];
    }
    me.input = input;
    publish(t, base + kInput);
    bool copy_out = false;
    for (int s = 0; s < steps; ++s) {
      const int partner = old_of(k ^ (1 << s));
      await(t, partner, base + (s == 0 ? kInput : kStep0 + s - 1));
      const void* theirs = s == 0 ? slots[partner].input : slots[partner].scratch[(s - 1) % 2];
      const void* mine = s == 0 ? input : me.scratch[(s - 1) % 2];
      void* out = me.scratch[s % 2];
      if (s == steps - 1) {
        // Writing recv while the partner still reads our input would race when they alias (in place, p = 2).
        copy_out = (mine == recv);
        if (!copy_out) out = recv;
      }
      if (k < (k ^ (1 << s))) combine(r, mine, theirs, out, n);
      else combine(r, theirs, mine, out, n);
      publish(t, base + kStep0 + s);
      await(t, partner, base + kStep0 + s);  // the partner has finished reading our input
    }
    if (copy_out) std::memcpy(recv, me.scratch[(steps - 1) % 2], bytes);
    if (t < 2 * extra) {  // hand the result to the excess thread and wait until it has its copy
      publish(t, base + kStep0 + steps);
      await(t, t - 1, base + kStep0 + steps + 1);
    }
  }
};

Team::Team(int threads, TeamConfig config) {
  if (threads < 1) throw Error("team size must be at least 1, got " + std::to_string(threads));
  impl_ = std::make_unique<Impl>(threads, std::move(config));
}

Team::~Team() = default;

int Team::size() const noexcept { return impl_->p; }
const TeamConfig& Team::config() const noexcept { return impl_->config; }
TeamShape Team::shape() const noexcept { return impl_->shape; }
std::size_t Team::strip_bytes() const noexcept { return impl_->strip_bytes; }

AllreduceAlgorithm Team::choose_allreduce(std::size_t bytes) const noexcept {
  return impl_->config.model.choose_allreduce(impl_->shape, bytes);
}

namespace {
void check_index(const char* what, int value, int size) {
  if (value < 0 || value >= size)
    throw Error(std::string("team collective: ") + what + " " + std::to_string(value) + " is outside [0, " +
                std::to_string(size) + ")");
}
}  // namespace

void Team::barrier(int thread) {
  Impl& m = *impl_;
  check_index("thread", thread, m.p);
  if (m.p == 1) return;
  const std::uint64_t base = m.begin_epoch(thread);
  // Dissemination barrier (HPDC'13 refs [7, 12]): "thread j - 2^s reached round s" is round s's signal.
  for (int s = 0, distance = 1; distance < m.p; ++s, distance <<= 1) {
    m.publish(thread, base + 1 + s);
    m.await(thread, (thread - distance + m.p) % m.p, base + 1 + s);
  }
}

void Team::broadcast(int thread, void* buffer, std::size_t bytes, int root, BroadcastAlgorithm algorithm) {
  Impl& m = *impl_;
  check_index("thread", thread, m.p);
  check_index("root", root, m.p);
  if (m.p == 1 || bytes == 0) return;
  if (algorithm == BroadcastAlgorithm::automatic) algorithm = m.config.model.choose_broadcast(m.shape, bytes);
  const std::uint64_t base = m.begin_epoch(thread);
  m.slots[thread].recv = buffer;
  if (thread == root) m.publish(thread, base + kReady);
  m.broadcast_phase(thread, base, root, buffer, bytes, algorithm == BroadcastAlgorithm::two_stage, false);
}

void Team::reduce(int thread, const void* send, void* recv, std::size_t count, const Reduction& reduction,
                  int root, ReduceAlgorithm algorithm) {
  Impl& m = *impl_;
  check_index("thread", thread, m.p);
  check_index("root", root, m.p);
  if (send == nullptr) send = recv;
  const std::size_t element = reduction.element_size();
  if (count == 0) return;
  if (m.p == 1) {
    if (recv != send) std::memmove(recv, send, count * element);
    return;
  }
  if (algorithm == ReduceAlgorithm::automatic) algorithm = m.config.model.choose_reduce(m.shape, count * element);
  const std::size_t strip = m.strip_elements(element);
  for (std::size_t offset = 0; offset < count; offset += strip) {
    const std::size_t n = std::min(strip, count - offset);
    const auto* in = static_cast<const char*>(send) + offset * element;
    auto* out = recv ? static_cast<char*>(recv) + offset * element : nullptr;
    const std::uint64_t base = m.begin_epoch(thread);
    if (algorithm == ReduceAlgorithm::tiled) {
      m.tiled_reduce(thread, base, in, out, n, reduction, root);
      for (int k = 0; k < m.p; ++k) m.await(thread, k, base + kReduced);  // everyone has read our input
    } else {
      m.tree_reduce(thread, base, in, out, n, reduction, root);
      if (m.parent[thread] >= 0) m.await(thread, m.parent[thread], base + kReduced);
      if (thread == root && thread != 0) m.await(thread, 0, base + kReady);
    }
  }
}

void Team::allreduce(int thread, const void* send, void* recv, std::size_t count, const Reduction& reduction,
                     AllreduceAlgorithm algorithm) {
  Impl& m = *impl_;
  check_index("thread", thread, m.p);
  if (send == nullptr) send = recv;
  const std::size_t element = reduction.element_size();
  if (count == 0) return;
  if (m.p == 1) {
    if (recv != send) std::memmove(recv, send, count * element);
    return;
  }
  if (algorithm == AllreduceAlgorithm::automatic) algorithm = choose_allreduce(count * element);
  const std::size_t strip = m.strip_elements(element);
  for (std::size_t offset = 0; offset < count; offset += strip) {
    const std::size_t n = std::min(strip, count - offset);
    const auto* in = static_cast<const char*>(send) + offset * element;
    auto* out = static_cast<char*>(recv) + offset * element;
    const std::uint64_t base = m.begin_epoch(thread);
    switch (algorithm) {
      case AllreduceAlgorithm::dissemination:
        m.dissemination(thread, base, in, out, n, reduction);
        break;
      case AllreduceAlgorithm::tiled_one_stage:
      case AllreduceAlgorithm::tiled_two_stage:
        m.tiled_reduce(thread, base, in, out, n, reduction, 0);
        m.broadcast_phase(thread, base, 0, out, n * element, algorithm == AllreduceAlgorithm::tiled_two_stage, true);
        break;
      default:
        m.tree_reduce(thread, base, in, out, n, reduction, 0);
        m.broadcast_phase(thread, base, 0, out, n * element, algorithm == AllreduceAlgorithm::tree_two_stage, false);
        break;
    }
  }
}

}  // namespace proxy
