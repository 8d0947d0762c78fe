// Node allreduce: the team reduces each segment into thread 0's recv, thread 0 hands it to the proxy,
// whose MPI_Iallreduce (a persistent allreduce for a small request, node_slot_operation.hpp) combines it
// across ranks while the team reduces the next; wait() broadcasts it.
#include "node_slot_operation.hpp"
#include "proxy/proxy_thread.hpp"
#include "proxy/reduction_mpi.hpp"
#include "proxy/team.hpp"

namespace proxy {

NodeRequest NodeCollectives::allreduce(int thread, const void* send, void* recv, std::size_t count,
                                       const Reduction& reduction) {
  node_detail::check_builtin(reduction);
  if (send == nullptr) send = recv;
  NodeRequest request = begin(thread, NodeCollectiveKind::allreduce, count, reduction.element_size());
  if (request.kind == NodeCollectiveKind::none) return request;
  if (ranks_ == 1) return complete_in_team(request, [&] { team_.allreduce(thread, send, recv, count, reduction); });
  request.buffer = recv;
  request.team_root = 0;
  if (thread == 0) {
    auto work = SlotOperation::work_for(request, static_cast<char*>(recv));
    work.type = mpi_datatype(reduction.type);
    work.op = mpi_op(reduction.op);
    slots_[request.slot]->prepare(work);
    proxy_.post(slots_[request.slot]);
  }
  reduce_segments(thread, request, send, static_cast<char*>(recv), reduction, 0);
  return request;
}

}  // namespace proxy
