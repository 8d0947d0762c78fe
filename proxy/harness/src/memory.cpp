#include "proxy/harness/memory.hpp"

#include <string>

#include "proxy/harness/mode.hpp"
#include "proxy/harness/timed_wait.hpp"
#include "proxy/error.hpp"

namespace proxy::harness {

namespace {
void check_need(const char* function, double bytes) {
  if (const std::string bad = need_refusal(bytes); !bad.empty())
    throw Error(std::string(function) + ": the need " + bad);
}
}  // namespace

void check_memory(MPI_Comm comm, std::string_view what, double bytes_per_rank, int ranks_on_node) {
  check_need("check_memory", bytes_per_rank);
  MemoryVote vote = memory_vote(memory_share(ranks_on_node), bytes_per_rank);
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallreduce(MPI_IN_PLACE, vote.data(), 2, MPI_DOUBLE_INT, MPI_MINLOC, comm, &request);
  wait_collective(request, "the memory check");
  const std::string refusal = memory_refusal(what, vote, ranks_on_node);
  if (!refusal.empty()) throw InvalidSettings(refusal);
}

void check_memory_here(std::string_view what, double bytes) {
  check_need("check_memory_here", bytes);
  const MemoryShare share = memory_share(1);
  if (bytes <= share.bytes) return;
  throw InvalidSettings(std::string(what) + " needs " + bytes_text(bytes) + ", " + bytes_text(share.bytes) +
                        " available (" + std::string(to_string(share.limit)) + ")");
}

}  // namespace proxy::harness
