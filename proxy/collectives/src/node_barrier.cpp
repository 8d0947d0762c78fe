// Node barrier: a team barrier, then thread 0 has the proxy join an MPI_Ibarrier among the ranks.
#include "node_slot_operation.hpp"
#include "proxy/proxy_thread.hpp"
#include "proxy/team.hpp"

namespace proxy {

NodeRequest NodeCollectives::barrier(int thread) {
  NodeRequest request = begin(thread, NodeCollectiveKind::barrier, 0, 1);
  team_.barrier(thread);  // every thread of this rank has arrived ...
  if (ranks_ == 1) return complete_in_team(request, [] {});
  if (thread == 0) {      // ... so thread 0 tells the other ranks
    auto& slot = slots_[request.slot];
    slot->prepare(SlotOperation::work_for(request, nullptr));
    slot->ready.store(request.base + 1, std::memory_order_release);
    proxy_.post(slot);
  }
  return request;
}

}  // namespace proxy
