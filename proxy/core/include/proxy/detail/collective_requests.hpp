// Internal to the runtime (not installed): the MPI requests behind a collective element, shared by the plans'
// collective elements (core, plan_operation.cpp) and the node collectives' inter-node phase (collectives,
// node_slot_operation.hpp), so both start MPI's collectives the same way: an MPI-4 persistent collective
// where this build has them (persistent_collectives_available(), plan_collective.hpp), else a non-blocking
// one posted per start. Thread contract: MPI calls, so the proxy's loop only.
#pragma once

#include <mpi.h>

#include "proxy/plan_collective.hpp"

namespace proxy::detail {

// Creates the persistent request (MPI_Bcast_init, MPI_Reduce_init, MPI_Allreduce_init); returns the MPI error
// code. Only where persistent_collectives_available(); MPI_ERR_OTHER otherwise.
int init_persistent_collective(const CollectiveElement& element, MPI_Comm comm, MPI_Request* request);
// Posts the non-blocking collective (MPI_Ibcast, MPI_Ireduce, MPI_Iallreduce) once; returns the MPI error code.
int start_nonblocking_collective(const CollectiveElement& element, MPI_Comm comm, MPI_Request* request);

}  // namespace proxy::detail
