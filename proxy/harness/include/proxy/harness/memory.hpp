// Memory checks before allocating: an application computes what one rank will allocate and check_memory
// compares it with what the node can give each of its ranks (memory_share: MemAvailable, the cgroup's limits
// and RLIMIT_AS, whichever is smallest), so an impossible size
// is refused with one line instead of std::bad_alloc or the OOM killer:
//   "--n 1000 needs 16.1 GiB per rank (2 ranks on this node), 11.8 GiB available per rank (the cgroup's memory limit)"
// Thread contract: check_memory is collective over comm (the thread that may call MPI, before a proxy
// thread starts): every rank compares with the smallest share of any rank, so all decide alike.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <mpi.h>

namespace proxy::harness {

// What one rank may still allocate, and which limit sets it: the host's MemAvailable or the room under
// the cgroup memory limits of this process and its ancestors (v2 memory.max - memory.current, v1
// memory.limit_in_bytes - usage), each divided among the node's ranks, or what RLIMIT_AS still lets this
// process map, whichever is smallest. bytes is infinite (limit none) when nothing can be read.
enum class MemoryLimit { none, host_available, cgroup, address_space };
struct MemoryShare {
  double bytes = std::numeric_limits<double>::infinity();
  MemoryLimit limit = MemoryLimit::none;
};
MemoryShare memory_share(int ranks_on_node);
// "the host's MemAvailable", "the cgroup's memory limit", "RLIMIT_AS": for messages.
std::string_view to_string(MemoryLimit limit);

// "16.1 GiB", "512.0 MiB", "3.2 EiB": for messages.
std::string bytes_text(double bytes);

// Collective. Throws InvalidSettings "<what> needs <bytes> per rank (<ranks_on_node> ranks on this node),
// <share> available per rank (<which limit>)" when bytes_per_rank exceeds the smallest memory_share that
// any rank of comm has. `what` names the options that set the size ("--n 1000").
void check_memory(MPI_Comm comm, std::string_view what, double bytes_per_rank, int ranks_on_node);

// The same for one process that calls no MPI (a tool, a single-process benchmark): throws InvalidSettings
// "<what> needs <bytes>, <share> available (<which limit>)" when bytes exceed memory_share(1).
void check_memory_here(std::string_view what, double bytes);

}  // namespace proxy::harness
