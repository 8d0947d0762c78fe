// Memory checks before allocating: an application computes what one rank will allocate and check_memory
// compares it with what the node can give each of its ranks (MemAvailable from /proc/meminfo, or the
// cgroup's limit less its usage when lower, divided among the ranks on the node), so an impossible size
// is refused with one line instead of std::bad_alloc or the OOM killer:
//   "--n 1000 needs 16.1 GiB per rank (2 ranks on this node), 11.8 GiB available per rank"
// Thread contract: check_memory is collective over comm (the thread that may call MPI, before a proxy
// thread starts): every rank compares with the smallest share of any rank, so all decide alike.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <mpi.h>

namespace proxy::harness {

// Bytes this process's node could still give (the smaller of MemAvailable and the cgroup's room), or
// nullopt when neither can be read (then nothing is refused).
std::optional<double> node_memory_available();

// "16.1 GiB", "512.0 MiB", "3.2 EiB": for messages.
std::string bytes_text(double bytes);

// Collective. Throws InvalidSettings "<what> needs <bytes> per rank (<ranks_on_node> ranks on this node),
// <share> available per rank" when bytes_per_rank exceeds the smallest share of the node's memory that any
// rank of comm has. `what` names the options that set the size ("--n 1000").
void check_memory(MPI_Comm comm, std::string_view what, double bytes_per_rank, int ranks_on_node);

}  // namespace proxy::harness
