// Team barrier: dissemination (HPDC'13 refs [7, 12]) over the threads' flags.
#include "team_impl.hpp"

namespace proxy {

void Team::barrier(int thread) {
  Impl& m = *impl_;
  team_detail::check_index("thread", thread, m.p);
  const detail::ExclusiveSection::Guard own_index(m.slots[thread].user);
  if (m.p == 1) return;
  const std::uint64_t base = m.begin_epoch(thread);
  // "thread j - 2^s reached round s" is round s's signal.
  for (int s = 0, distance = 1; distance < m.p; ++s, distance <<= 1) {
    m.publish(thread, base + 1 + s);
    m.await(thread, (thread - distance + m.p) % m.p, base + 1 + s);
  }
}

}  // namespace proxy
