// Private to proxy::core: the checks commit makes on the proxy thread beyond the spec's own values, because they
// ask MPI or the machine: whether a datatype is committed, and whether a staging buffer the plan would allocate
// fits in what this process may still allocate.
//
// Thread contract: datatype_refusal calls MPI (proxy thread); staging_refusal reads /proc and /sys only.
#pragma once

#include <cstdint>
#include <string>

#include <mpi.h>

#include "proxy/plan.hpp"

namespace proxy {

// "" when MPI takes `type` for communication (predefined, or derived and committed); else the refusal's words
// after the element's name: "has a datatype that is not committed: ...". A derived type never committed is
// refused by MPI only when a request is made with it (MPI_Send_init at commit, or the first start of a
// non-blocking collective: "epoch 0", "epoch 1"), and neither MPI_Type_get_envelope nor MPI_Type_size tells. So
// commit asks MPI itself: a send and a receive of one element to MPI_PROC_NULL (no message, no buffer read), where
// MPICH and Open MPI both check commitment (MPI_ERR_TYPE; MPICH skips the check for a count of 0). `comm` must
// return errors (the proxy's duplicate).
std::string datatype_refusal(MPI_Datatype type, MPI_Comm comm);

// Proxy thread: the first transfer whose datatype datatype_refusal refuses, as proxy::Error naming the plan, the
// transfer and its peer: "plan 'p': transfer 1 (send to rank 1 tag 3) has a datatype that is not committed: ...".
void validate_transfer_datatypes(const PlanSpec& spec, MPI_Comm comm);

// "" when a staging buffer of `bytes` fits in what this process may still allocate (proxy::memory_share of one
// rank: MemAvailable, the cgroup's room, RLIMIT_AS); else "needs a staging buffer of 8.0 TiB (count 1048576 of
// 8388608 bytes), more than this process can allocate: 21.3 GiB available (the host's MemAvailable)".
std::string staging_refusal(std::uint64_t count, std::uint64_t element_bytes);

// The bytes of data in one element of `type`, in 64 bits (MPI_Type_size_x): MPI_Type_size gives MPI_UNDEFINED
// for a type of 2 GiB or more, which read as a size named -32766 bytes in messages and statistics.
std::uint64_t datatype_size(MPI_Datatype type);

// The bytes from a buffer's start to the end of its last of `count` elements of `type`: (count - 1) x extent +
// size for a type whose data lies contiguous at each element's start, with padding after it allowed (a pair type
// such as MPI_DOUBLE_INT: 12 bytes of data, extent 16). 0 for a count of 0.
std::uint64_t buffer_span(std::uint64_t count, MPI_Datatype type);

}  // namespace proxy
