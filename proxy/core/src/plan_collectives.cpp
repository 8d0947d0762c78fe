// Collective elements of a plan: validation, persistent requests, the non-blocking fallback.
#include "plan_collectives.hpp"

#include "proxy/error.hpp"

namespace proxy {

bool persistent_collectives_available() noexcept {
#if PROXY_HAVE_PERSISTENT_COLLECTIVES
  return true;
#else
  return false;
#endif
}

void validate_collectives(const PlanSpec& spec) {
  for (std::size_t i = 0; i < spec.collectives().size(); ++i) {
    const CollectiveElement& e = spec.collectives()[i];
    const std::string item = "plan '" + spec.name() + "': " + kind_name(e.kind) + " element " + std::to_string(i) + " ";
    if (e.comm == MPI_COMM_NULL) throw Error(item + "has MPI_COMM_NULL as its communicator");
    int size = 0;
    MPI_Comm_size(e.comm, &size);
    if (e.kind != CollectiveElement::Kind::allreduce && (e.root < 0 || e.root >= size))
      throw Error(item + "names root " + std::to_string(e.root) + ", outside its communicator (size " +
                  std::to_string(size) + ")");
    if (e.count < 0) throw Error(item + "has a negative count " + std::to_string(e.count));
    int rank = 0;
    MPI_Comm_rank(e.comm, &rank);
    // MPI_Reduce ignores the receive buffer off the root, so a null one is allowed there, as MPI allows it.
    const bool result_ignored = e.kind == CollectiveElement::Kind::reduce && rank != e.root;
    if (e.count > 0 && e.buffer == nullptr && !result_ignored)
      throw Error(item + "has a null buffer for count " + std::to_string(e.count));
    if (e.type == MPI_DATATYPE_NULL) throw Error(item + "has MPI_DATATYPE_NULL");
    if (e.kind != CollectiveElement::Kind::broadcast && e.op == MPI_OP_NULL) throw Error(item + "has MPI_OP_NULL");
  }
}

int init_persistent_collective([[maybe_unused]] const CollectiveElement& e, [[maybe_unused]] MPI_Comm comm,
                               [[maybe_unused]] MPI_Request* request) {
#if PROXY_HAVE_PERSISTENT_COLLECTIVES
  switch (e.kind) {
    case CollectiveElement::Kind::broadcast:
      return MPI_Bcast_init(e.buffer, e.count, e.type, e.root, comm, MPI_INFO_NULL, request);
    case CollectiveElement::Kind::reduce:
      return MPI_Reduce_init(e.send, e.buffer, e.count, e.type, e.op, e.root, comm, MPI_INFO_NULL, request);
    case CollectiveElement::Kind::allreduce:
      return MPI_Allreduce_init(e.send, e.buffer, e.count, e.type, e.op, comm, MPI_INFO_NULL, request);
  }
#endif
  return MPI_ERR_OTHER;  // not reached: the caller asks only when persistent_collectives_available()
}

int start_nonblocking_collective(const CollectiveElement& e, MPI_Comm comm, MPI_Request* request) {
  switch (e.kind) {
    case CollectiveElement::Kind::broadcast:
      return MPI_Ibcast(e.buffer, e.count, e.type, e.root, comm, request);
    case CollectiveElement::Kind::reduce:
      return MPI_Ireduce(e.send, e.buffer, e.count, e.type, e.op, e.root, comm, request);
    case CollectiveElement::Kind::allreduce:
      return MPI_Iallreduce(e.send, e.buffer, e.count, e.type, e.op, comm, request);
  }
  return MPI_ERR_OTHER;
}

std::string describe(const CollectiveElement& e, int comm_size, unsigned long long bytes) {
  std::string text = kind_name(e.kind);
  if (e.kind != CollectiveElement::Kind::allreduce) text += (e.kind == CollectiveElement::Kind::broadcast ? " from" : " to") + std::string(" root ") + std::to_string(e.root);
  return text + " over " + std::to_string(comm_size) + " ranks (" + std::to_string(bytes) + " bytes)";
}

}  // namespace proxy
