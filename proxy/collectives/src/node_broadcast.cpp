// Node broadcast: nothing to reduce first, so the leader hands the whole buffer to the proxy at once; the
// proxy's MPI_Ibcast moves it across ranks segment by segment and wait() broadcasts each segment in the team.
#include "node_slot_operation.hpp"
#include "proxy/proxy_thread.hpp"
#include "proxy/team.hpp"

namespace proxy {

NodeRequest NodeCollectives::broadcast(int thread, void* buffer, std::size_t bytes, int root_rank, int root_thread) {
  node_detail::check_root("broadcast", root_rank, ranks_, root_thread, team_.size());
  NodeRequest request = begin(thread, NodeCollectiveKind::broadcast, bytes, 1);
  if (request.kind == NodeCollectiveKind::none) return request;
  if (ranks_ == 1) return complete_in_team(request, [&] { team_.broadcast(thread, buffer, bytes, root_thread); });
  const bool root_here = rank_ == root_rank;
  const int leader = root_here ? root_thread : 0;
  request.buffer = buffer;
  request.team_root = leader;
  if (thread == leader) {
    auto& slot = slots_[request.slot];
    auto work = SlotOperation::work_for(request, static_cast<char*>(buffer));
    work.root = root_rank;
    work.is_root = root_here;
    slot->prepare(work);
    slot->ready.store(request.base + request.segments, std::memory_order_release);  // nothing to reduce first
    proxy_.post(slot);
  }
  return request;
}

}  // namespace proxy
