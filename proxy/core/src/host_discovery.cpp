// The ranks on this physical host, by host name (environment_setup.hpp), for dividing its cores.
#include <functional>
#include <string>
#include <vector>

#include <mpi.h>

#include "environment_setup.hpp"

namespace proxy {

// MPI_COMM_TYPE_SHARED is not the host once
// MPIR_CVAR_NOLOCAL=1 makes every rank its own node, and PROXY_NODE_SIZE changes the node on purpose; the
// cores are shared by every rank on the machine all the same. Collective over MPI_COMM_WORLD.
HostLayout discover_host(const Topology& topology, int world_rank, int& host_rank) {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  check_mpi(MPI_Get_processor_name(name, &length), "MPI_Get_processor_name");
  HostLayout host;
  host.name.assign(name, static_cast<std::size_t>(length));
  host.cores_on_host = topology.cores();

  // Split by a hash of the name first (scales), then by the name itself (a hash collision only costs a
  // second split).
  MPI_Comm same_hash = MPI_COMM_NULL;
  const int color = static_cast<int>(std::hash<std::string>{}(host.name) & 0x7fffffff);
  check_mpi(MPI_Comm_split(MPI_COMM_WORLD, color, world_rank, &same_hash), "MPI_Comm_split");
  int hash_size = 1;
  check_mpi(MPI_Comm_size(same_hash, &hash_size), "MPI_Comm_size");
  std::vector<int> lengths(static_cast<std::size_t>(hash_size)), offsets(lengths.size());
  check_mpi(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, same_hash), "MPI_Allgather");
  int total = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) offsets[i] = total, total += lengths[i];
  std::string names(static_cast<std::size_t>(total), '\0');
  check_mpi(MPI_Allgatherv(name, length, MPI_CHAR, names.data(), lengths.data(), offsets.data(), MPI_CHAR, same_hash),
            "MPI_Allgatherv");
  int first_with_my_name = 0;
  while (names.compare(static_cast<std::size_t>(offsets[static_cast<std::size_t>(first_with_my_name)]),
                       static_cast<std::size_t>(lengths[static_cast<std::size_t>(first_with_my_name)]), host.name) != 0)
    ++first_with_my_name;
  MPI_Comm on_host = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split(same_hash, first_with_my_name, world_rank, &on_host), "MPI_Comm_split");
  check_mpi(MPI_Comm_free(&same_hash), "MPI_Comm_free");

  int ranks = 1;
  check_mpi(MPI_Comm_rank(on_host, &host_rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(on_host, &ranks), "MPI_Comm_size");
  host.world_ranks.resize(static_cast<std::size_t>(ranks));
  check_mpi(MPI_Allgather(&world_rank, 1, MPI_INT, host.world_ranks.data(), 1, MPI_INT, on_host), "MPI_Allgather");
  // Bindings as one byte per core (the same hwloc view on every rank of the host).
  const auto cores = static_cast<std::size_t>(host.cores_on_host);
  std::vector<unsigned char> mine(cores, 0), all(cores * static_cast<std::size_t>(ranks), 0);
  for (int c : topology.binding())
    if (c >= 0 && static_cast<std::size_t>(c) < cores) mine[static_cast<std::size_t>(c)] = 1;
  check_mpi(MPI_Allgather(mine.data(), host.cores_on_host, MPI_UNSIGNED_CHAR, all.data(), host.cores_on_host,
                          MPI_UNSIGNED_CHAR, on_host),
            "MPI_Allgather");
  check_mpi(MPI_Comm_free(&on_host), "MPI_Comm_free");
  host.bindings.resize(static_cast<std::size_t>(ranks));
  for (std::size_t k = 0; k < host.bindings.size(); ++k)
    for (std::size_t c = 0; c < cores; ++c)
      if (all[k * cores + c] != 0) host.bindings[k].push_back(static_cast<int>(c));
  return host;
}

}  // namespace proxy
