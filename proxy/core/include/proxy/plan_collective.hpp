// Collective elements of a plan: a broadcast, reduce or allreduce over a communicator the user gives (a row
// or column communicator, say), described once in a PlanSpec and started with the plan every epoch.
// ProxyThread::commit() duplicates the communicator on the proxy thread (one duplicate per communicator and
// proxy, shared by its plans) and creates an MPI-4 persistent collective request (MPI_Bcast_init,
// MPI_Reduce_init, MPI_Allreduce_init); where the MPI library lacks them (Open MPI 4.1), or the build
// forces it (-DPROXY_FORCE_NONBLOCKING_COLLECTIVES=ON), each start posts MPI_Ibcast/MPI_Ireduce/MPI_Iallreduce.
//
// Hierarchical elements (the thread-level phase before the rank-level one): a reduce or allreduce may take
// one contribution per compute thread instead of one send buffer. When the element starts, the proxy reduces
// the contributions into a staging buffer of its own, in their order, left to right (for a commutative
// operation ((c0 op c1) op c2)...: a reference that adds them in order gets the same bits), then starts the
// collective over the ranks from that buffer; `buffer` (the result) is then read by every thread after the
// plan's ticket completed. No thread waits for another and none calls MPI. An element that waits for parts
// (PlanSpec::allreduce_when_ready, ...) starts only once the threads marked them ready in the epoch, so a
// thread marks its part as soon as its contribution is written, while the rest of the plan is in flight.
// The thread-level phase runs on the thread running the proxy's pass (the proxy thread, or a compute thread
// under cooperative progress); from 32 KiB of contributions on it is cut into strips (about 16 KiB of
// input each) that the threads waiting on a ticket take too, so a large element is reduced in parallel by
// whoever waits. Each strip is reduced whole, in the same order, by one thread: the bits do not depend on
// who took it.
//
// Thread contract: plain data, built on the thread that builds the PlanSpec. As for any MPI collective,
// every rank of the communicator must commit, and start, the plans holding its collective elements in the
// same order.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <vector>

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
  // Reduce, allreduce: when not empty, the thread-level contributions (count elements each, a contiguous
  // type) reduced into the send buffer at each start; `send` is then unused.
  std::vector<const void*> contributions;
  std::vector<int> parts;  // parts that must be marked ready each epoch before the element starts
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
