// Memory checks before allocating: an application computes what one rank will allocate and check_memory
// compares it with what the node can give each of its ranks (proxy::memory_share, <proxy/memory.hpp>:
// MemAvailable, the cgroup's limits and RLIMIT_AS, whichever is smallest), so an impossible size
// is refused with one line instead of std::bad_alloc or the OOM killer:
//   "--n 1000 needs 16.1 GiB per rank (2 ranks on this node), 11.8 GiB available per rank (the cgroup's memory limit)"
// Thread contract: check_memory is collective over comm (the thread that may call MPI, before a proxy
// thread starts): every rank compares the largest need with the smallest share of any rank, so all decide
// alike. (C and Fortran programs, whose proxy thread already runs, call proxy_check_memory: the same check.)
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <string_view>

#include <mpi.h>

#include <proxy/memory.hpp>

namespace proxy::harness {

// Collective. Throws InvalidSettings proxy::memory_refusal's line, "<what> needs <bytes> per rank
// (<ranks_on_node> ranks on this node), <share> available per rank (<which limit>)", when the largest
// bytes_per_rank of any rank of comm exceeds the smallest memory_share that any rank has. `what` names the
// options that set the size ("--n 1000"). A bytes_per_rank below 0 or NaN throws proxy::Error on the rank
// that gave it, before the collective (the caller's error, not a size).
void check_memory(MPI_Comm comm, std::string_view what, double bytes_per_rank, int ranks_on_node);

// The same for one process that calls no MPI (a tool, a single-process benchmark): throws InvalidSettings
// "<what> needs <bytes>, <share> available (<which limit>)" when bytes exceed memory_share(1).
void check_memory_here(std::string_view what, double bytes);

}  // namespace proxy::harness
