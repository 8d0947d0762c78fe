// Collective elements of a plan: a broadcast, reduce or allreduce over a communicator the user gives (a row
// or column communicator, say), described once in a PlanSpec and started with the plan every epoch.
// ProxyThread::commit() duplicates the communicator on the proxy thread (one duplicate per communicator and
// proxy, shared by its plans) and creates an MPI-4 persistent collective request (MPI_Bcast_init,
// MPI_Reduce_init, MPI_Allreduce_init); where the MPI library lacks them (Open MPI 4.1), or the build
// forces it (-DPROXY_FORCE_NONBLOCKING_COLLECTIVES=ON), each start posts MPI_Ibcast/MPI_Ireduce/MPI_Iallreduce.
//
// Thread contract: plain data, built on the thread that builds the PlanSpec. As for any MPI collective,
// every rank of the communicator must commit, and start, the plans holding its collective elements in the
// same order.
#pragma once

#include <mpi.h>

namespace proxy {

struct CollectiveElement {
  enum class Kind { broadcast, reduce, allreduce };
  Kind kind = Kind::broadcast;
  MPI_Comm comm = MPI_COMM_NULL;  // the user's communicator (duplicated at commit)
  int root = 0;                   // broadcast and reduce
  const void* send = nullptr;     // reduce, allreduce (MPI_IN_PLACE allowed where MPI allows it)
  void* buffer = nullptr;         // broadcast: the data; reduce/allreduce: the result (reduce: may be null off the root)
  int count = 0;
  MPI_Datatype type = MPI_BYTE;
  MPI_Op op = MPI_OP_NULL;        // reduce, allreduce
};

// "broadcast", "reduce", "allreduce": how messages name an element.
inline const char* kind_name(CollectiveElement::Kind kind) noexcept {
  switch (kind) {
    case CollectiveElement::Kind::broadcast: return "broadcast";
    case CollectiveElement::Kind::reduce: return "reduce";
    case CollectiveElement::Kind::allreduce: return "allreduce";
  }
  return "collective";
}

// True when this build commits collective elements to MPI-4 persistent collectives, false when it starts
// non-blocking ones every epoch (decided at configure time).
bool persistent_collectives_available() noexcept;

}  // namespace proxy
