// The ranks of this rank's node and one leader per node (environment_setup.hpp): the ranks sharing memory,
// or every PROXY_NODE_SIZE consecutive ranks (to study multi-node behaviour on one machine).
#include <cstdlib>
#include <string>

#include <mpi.h>

#include "environment_setup.hpp"
#include "proxy/config.hpp"
#include "proxy/error.hpp"

namespace proxy {

// PROXY_NODE_SIZE=k makes every k consecutive ranks one "node" (to study multi-node behaviour on one
// machine); otherwise a node is the set of ranks sharing memory.
int emulated_node_size() {
  const char* v = std::getenv("PROXY_NODE_SIZE");
  if (v == nullptr || *v == '\0') return 0;
  char* end = nullptr;
  const long k = std::strtol(v, &end, 10);
  if (end == v || *end != '\0' || k < 1 || k > kMaxNodeSize)
    throw Error(std::string("PROXY_NODE_SIZE='") + v + "' is not an integer from 1 to " + std::to_string(kMaxNodeSize));
  return static_cast<int>(k);
}

void discover_node(int world_rank, NodeInfo& node) {
  MPI_Comm physical = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &physical),
            "MPI_Comm_split_type");

  const int k = emulated_node_size();
  if (k > 0) {
    check_mpi(MPI_Comm_free(&physical), "MPI_Comm_free");
    check_mpi(MPI_Comm_split(MPI_COMM_WORLD, world_rank / k, world_rank, &node.comm), "MPI_Comm_split");
  } else {
    node.comm = physical;
  }
  check_mpi(MPI_Comm_rank(node.comm, &node.rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(node.comm, &node.size), "MPI_Comm_size");
  check_mpi(MPI_Comm_split(MPI_COMM_WORLD, node.rank == 0 ? 0 : MPI_UNDEFINED, world_rank, &node.leaders),
            "MPI_Comm_split");
  int index_and_count[2] = {0, 1};
  if (node.leaders != MPI_COMM_NULL) {
    check_mpi(MPI_Comm_rank(node.leaders, &index_and_count[0]), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(node.leaders, &index_and_count[1]), "MPI_Comm_size");
  }
  check_mpi(MPI_Bcast(index_and_count, 2, MPI_INT, 0, node.comm), "MPI_Bcast");
  node.index = index_and_count[0];
  node.count = index_and_count[1];
}

}  // namespace proxy
