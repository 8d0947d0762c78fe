// Team broadcast (HPDC'13 eq. (4)): one stage, every thread reads the root; two stages, one leader per
// coarsest group reads it and its group reads the leader. The same phase ends the tree and tiled allreduces.
#include "team_impl.hpp"

namespace proxy {

using namespace team_detail;

// Broadcast of `bytes` from root's published recv to every thread's `own`. tiled_source: the source is
// complete when every tile is (no kReady from the root).
void Team::Impl::broadcast_phase(int t, std::uint64_t base, int root, void* own, std::size_t bytes, bool two_stage,
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

void Team::broadcast(int thread, void* buffer, std::size_t bytes, int root, BroadcastAlgorithm algorithm) {
  Impl& m = *impl_;
  check_index("thread", thread, m.p);
  check_index("root", root, m.p);
  const detail::ExclusiveSection::Guard own_index(m.slots[thread].user);
  if (m.p == 1 || bytes == 0) return;
  if (algorithm == BroadcastAlgorithm::automatic) algorithm = m.config.model.choose_broadcast(m.shape, bytes);
  const std::uint64_t base = m.begin_epoch(thread);
  m.slots[thread].recv = buffer;
  if (thread == root) m.publish(thread, base + kReady);
  m.broadcast_phase(thread, base, root, buffer, bytes, algorithm == BroadcastAlgorithm::two_stage, false);
}

}  // namespace proxy
