// Team allreduce: dissemination in its butterfly form (HPDC'13 sec. 2.3), or a reduce (tree or tiled)
// followed by the one- or two-stage broadcast phase; the model (collective_model.hpp) picks by size.
#include "team_impl.hpp"

namespace proxy {

using namespace team_detail;

// Dissemination: at step s, new index k combines with k xor 2^s, lower index on the left, so that
// non-commutative operations combine in thread order. The fix-up of eq. (7): thread 2i (i < r) hands its
// input to 2i + 1 first and copies the result at the end.
void Team::Impl::dissemination(int t, std::uint64_t base, const void* send, void* recv, std::size_t n,
                               const Reduction& r) {
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

void Team::allreduce(int thread, const void* send, void* recv, std::size_t count, const Reduction& reduction,
                     AllreduceAlgorithm algorithm) {
  Impl& m = *impl_;
  check_index("thread", thread, m.p);
  const detail::ExclusiveSection::Guard own_index(m.slots[thread].user);
  const std::size_t element = reduction.element_size();
  if (algorithm == AllreduceAlgorithm::automatic) algorithm = choose_allreduce(count * element);
  m.for_each_strip(thread, send, recv, count, element, [&](std::uint64_t base, const char* in, char* out, std::size_t n) {
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
  });
}

}  // namespace proxy
