// proxy-info: what the runtime sees on each rank: MPI thread level, node structure, hwloc topology, the
// physical host it shares cores on, the binding it inherited and the placement it would use, with the
// reason when the proxy's core is shared.   mpiexec -n 4 build/bin/proxy-info [--threads T] [--no-proxy]
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "proxy/proxy.hpp"

int main(int argc, char** argv) {
  proxy::Environment env(argc, argv);
  int threads = 0;
  bool with_proxy = true;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc && std::atoi(argv[i + 1]) >= 0) {
      threads = std::atoi(argv[++i]);
    } else if (arg == "--no-proxy") {
      with_proxy = false;
    } else {
      if (env.rank() == 0)
        std::fprintf(stderr, "proxy-info: error: unknown argument '%s' (usage: proxy-info [--threads T] [--no-proxy])\n",
                     arg.c_str());
      return 2;
    }
  }
  proxy::Placement p;
  try {
    p = env.placement(threads, with_proxy);
  } catch (const proxy::Error& e) {  // e.g. a binding with no core on this host: every rank must stop
    std::fprintf(stderr, "proxy-info: error: rank %d: %s\n", env.rank(), e.what());
    proxy::Environment::abort(1);
  }
  const proxy::HostLayout& host = env.host();
  const std::string line = "rank " + std::to_string(env.rank()) + ": node " + std::to_string(env.node().index) + "/" +
                           std::to_string(env.node().count) + " rank " + std::to_string(env.node().rank) + "/" +
                           std::to_string(env.node().size) + "; host " + host.name + " rank " +
                           std::to_string(env.host_rank()) + "/" + std::to_string(host.world_ranks.size()) +
                           ", binding " + proxy::describe_cores(env.topology().binding()) + "; " + p.describe() + "\n";
  // Gather the lines on rank 0 so that they print in rank order.
  const int length = static_cast<int>(line.size());
  std::vector<int> lengths(static_cast<std::size_t>(env.size())), offsets(lengths.size());
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) offsets[r] = total, total += lengths[r];
  std::string all(static_cast<std::size_t>(total), ' ');
  MPI_Gatherv(line.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (env.rank() == 0) {
    const char* levels[] = {"SINGLE", "FUNNELED", "SERIALIZED", "MULTIPLE"};
    std::printf("proxy-info: %d ranks, MPI_THREAD_%s, topology: %s\n", env.size(),
                levels[std::min(std::max(env.thread_level(), 0), 3)], env.topology().describe().c_str());
    std::fputs(all.c_str(), stdout);
  }
  return 0;
}
