#include "proxy/harness/memory.hpp"

#include <string>

#include "proxy/harness/mode.hpp"
#include "proxy/harness/timed_wait.hpp"

namespace proxy::harness {

void check_memory(MPI_Comm comm, std::string_view what, double bytes_per_rank, int ranks_on_node) {
  const MemoryShare mine = memory_share(ranks_on_node);
  // One MINLOC over two pairs: the smallest share of any rank and which limit sets it (lowest code among
  // equal shares), and the largest need (the smallest negated one), so that every rank decides alike.
  struct {
    double value;
    int code;
  } pairs[2] = {{mine.bytes, static_cast<int>(mine.limit)}, {-bytes_per_rank, 0}};
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallreduce(MPI_IN_PLACE, pairs, 2, MPI_DOUBLE_INT, MPI_MINLOC, comm, &request);
  wait_collective(request);
  const std::string refusal =
      memory_refusal(what, -pairs[1].value, ranks_on_node, {pairs[0].value, static_cast<MemoryLimit>(pairs[0].code)});
  if (!refusal.empty()) throw InvalidSettings(refusal);
}

void check_memory_here(std::string_view what, double bytes) {
  const MemoryShare share = memory_share(1);
  if (bytes <= share.bytes) return;
  throw InvalidSettings(std::string(what) + " needs " + bytes_text(bytes) + ", " + bytes_text(share.bytes) +
                        " available (" + std::string(to_string(share.limit)) + ")");
}

}  // namespace proxy::harness
