// What one rank may still allocate, and the one-line refusal of a size that does not fit: the check every
// program makes before allocating, shared by C++ (proxy::harness::check_memory, which reduces over the ranks
// before a proxy thread starts) and C and Fortran (proxy_check_memory, which reduces on the proxy thread).
//   "--n 1000 needs 16.1 GiB per rank (2 ranks on this node), 11.8 GiB available per rank (the cgroup's memory limit)"
// Thread contract: any thread; memory_share reads /proc and /sys and calls no MPI.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <array>
#include <limits>
#include <string>
#include <string_view>

namespace proxy {

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

// "" when `bytes` is a number of bytes (>= 0, not NaN); else why not, after its name: "is -1, not a number of
// bytes >= 0" (a need that is not one is its caller's error, refused before the check: it read "needs nan B").
std::string need_refusal(double bytes);

// "" when `need` bytes per rank fit in `share`; else the refusal "<what> needs <need> per rank (<ranks_on_node>
// ranks on this node), <share> available per rank (<which limit>)". `what` names the options that set the
// size ("--n 1000"). Given the largest need and the smallest share of any rank, every rank decides alike.
std::string memory_refusal(std::string_view what, double need, int ranks_on_node, MemoryShare share);

// Every rank's decision from one MPI_MINLOC (MPI_DOUBLE_INT, count 2) over each rank's MemoryVote: the
// smallest share of any rank, with the lowest limit code among equal shares, and the largest need (the
// smallest negated one). memory_vote makes a rank's pairs, memory_refusal(what, reduced, ...) reads the result.
struct MemoryPair {  // MPI_DOUBLE_INT's layout
  double value;
  int code;
};
using MemoryVote = std::array<MemoryPair, 2>;
MemoryVote memory_vote(MemoryShare mine, double bytes_per_rank);
std::string memory_refusal(std::string_view what, const MemoryVote& reduced, int ranks_on_node);

}  // namespace proxy
