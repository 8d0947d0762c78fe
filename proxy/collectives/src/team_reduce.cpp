// Team reduce: the binary tree over the hierarchy (HPDC'13 sec. 2.2) and the tiled reduce (sec. 2.4), both
// in thread order, so non-commutative operations combine as MPI specifies. The allreduces reuse both.
#include "team_impl.hpp"

namespace proxy {

using namespace team_detail;

// Binary-tree reduce in thread order into root's recv. Thread 0 accumulates in its recv when it is the
// root, else in scratch, and writes root's recv only in its last combine, when every input (root's own, in
// place) has been read.
void Team::Impl::tree_reduce(int t, std::uint64_t base, const void* send, void* recv, std::size_t n,
                             const Reduction& r, int root) {
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

// Tiled reduce: thread t reduces tile t of all inputs, in thread order, into root's recv.
void Team::Impl::tiled_reduce(int t, std::uint64_t base, const void* send, void* recv, std::size_t n,
                              const Reduction& r, int root) {
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

void Team::reduce(int thread, const void* send, void* recv, std::size_t count, const Reduction& reduction,
                  int root, ReduceAlgorithm algorithm) {
  Impl& m = *impl_;
  check_index("thread", thread, m.p);
  check_index("root", root, m.p);
  const detail::ExclusiveSection::Guard own_index(m.slots[thread].user);
  const std::size_t element = reduction.element_size();
  if (algorithm == ReduceAlgorithm::automatic) algorithm = m.config.model.choose_reduce(m.shape, count * element);
  m.for_each_strip(thread, send, recv, count, element, [&](std::uint64_t base, const char* in, char* out, std::size_t n) {
    if (algorithm == ReduceAlgorithm::tiled) {
      m.tiled_reduce(thread, base, in, out, n, reduction, root);
      for (int k = 0; k < m.p; ++k) m.await(thread, k, base + kReduced);  // everyone has read our input
    } else {
      m.tree_reduce(thread, base, in, out, n, reduction, root);
      if (m.parent[thread] >= 0) m.await(thread, m.parent[thread], base + kReduced);
      if (thread == root && thread != 0) m.await(thread, 0, base + kReady);
    }
  });
}

}  // namespace proxy
