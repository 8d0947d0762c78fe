// Node reduce: the team reduces each segment into the leader thread's buffer (the root thread on the root
// rank, thread 0 elsewhere), the leader hands it to the proxy, whose MPI_Ireduce combines it across ranks.
// reduce_segments, the team phase, is the allreduce's too.
#include <limits>
#include <new>
#include <string>

#include "node_slot_operation.hpp"
#include "proxy/detail/counted.hpp"
#include "proxy/memory.hpp"
#include "proxy/proxy_thread.hpp"
#include "proxy/reduction_mpi.hpp"
#include "proxy/team.hpp"

namespace proxy {

NodeRequest NodeCollectives::reduce(int thread, const void* send, void* recv, std::size_t count,
                                    const Reduction& reduction, int root_rank, int root_thread) {
  node_detail::check_builtin(reduction);
  node_detail::check_root("reduce", root_rank, ranks_, root_thread, team_.size());
  if (send == nullptr) send = recv;
  const std::size_t element_size = reduction.element_size();
  // Every thread and rank alike (off the root rank the leader's staging buffer would take this), before any starts.
  if (ranks_ > 1 && count <= std::numeric_limits<std::size_t>::max() / element_size &&
      static_cast<double>(count * element_size) > memory_.bytes)
    throw Error("node collective reduce: count " + std::to_string(count) + " of " +
                detail::counted(element_size, "byte") + " needs a staging buffer of " +
                bytes_text(static_cast<double>(count * element_size)) +
                " off the root rank, more than this process can allocate: " + bytes_text(memory_.bytes) +
                " available (" + std::string(to_string(memory_.limit)) + ")");
  NodeRequest request = begin(thread, NodeCollectiveKind::reduce, count, element_size);
  if (request.kind == NodeCollectiveKind::none) return request;
  if (ranks_ == 1)
    return complete_in_team(request, [&] {
      team_.reduce(thread, send, thread == root_thread ? recv : nullptr, count, reduction, root_thread);
    });
  const bool root_here = rank_ == root_rank;
  const int leader = root_here ? root_thread : 0;
  request.team_root = leader;
  char* target = nullptr;
  if (thread == leader) {
    // Off the root rank the team's partial result needs a home until the proxy has sent it: the slot's
    // staging buffer, which only grows (no allocation once warmed up).
    auto& staging = staging_[request.slot];
    if (!root_here && staging.size() < count * request.element_size) {
      try {
        staging.resize(count * request.element_size);
      } catch (const std::bad_alloc&) {  // it fitted when the NodeCollectives was made; memory taken since
        const std::string why = "node collective reduce: thread " + std::to_string(thread) +
                                " could not allocate the staging buffer of " +
                                bytes_text(static_cast<double>(count * request.element_size)) + " for count " +
                                std::to_string(count) + " off the root rank (out of memory)";
        team_.abandon(thread, why);  // its team-mates wait for its part: they end with this reason now
        throw Error(why);
      }
    }
    target = root_here ? static_cast<char*>(recv) : staging.data();
    auto work = SlotOperation::work_for(request, target);
    work.type = mpi_datatype(reduction.type);
    work.op = mpi_op(reduction.op);
    work.root = root_rank;
    work.is_root = root_here;
    slots_[request.slot]->prepare(work);
    proxy_.post(slots_[request.slot]);
  }
  reduce_segments(thread, request, send, target, reduction, leader);
  return request;
}

// Phase 1 per segment: team reduce into the leader's target, then the leader hands the segment to the
// proxy (pipelined: the proxy starts segment k across ranks while the team reduces k + 1).
void NodeCollectives::reduce_segments(int thread, const NodeRequest& request, const void* send, char* target,
                                      const Reduction& reduction, int leader) {
  auto& slot = slots_[request.slot];
  for (std::size_t k = 0; k < request.segments; ++k) {
    const std::size_t offset = k * request.segment_elements;
    const std::size_t n = std::min(request.segment_elements, request.count - offset);
    const std::size_t byte_offset = offset * request.element_size;
    team_.reduce(thread, static_cast<const char*>(send) + byte_offset, target ? target + byte_offset : nullptr, n,
                 reduction, leader);
    if (thread == leader) slot->ready.store(request.base + k + 1, std::memory_order_release);
  }
}

}  // namespace proxy
