// proxy-info: what the runtime sees on each rank: MPI thread level, node structure, hwloc topology, the
// physical host it shares cores on, the binding it inherited and the placement it would use, with the
// reason when the proxy's core is shared.   mpiexec -n 4 build/bin/proxy-info [--threads T] [--no-proxy]
// Exit status: 0, 2 for a bad argument (every rank parses the same command line).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "apps/common.hpp"
#include "proxy/detail/counted.hpp"
#include "proxy/proxy.hpp"

namespace {

constexpr const char* kProgram = "proxy-info";
constexpr int kParsed = -1;  // run_guarded's "go on"

}  // namespace

int main(int argc, char** argv) try {
  apps::guard_program_exit(kProgram);
  proxy::Environment env(argc, argv, MPI_THREAD_SERIALIZED, kProgram);
  apps::Options options(kProgram, "What the runtime sees on each rank: MPI thread level, node, topology, placement.");
  options.option("threads", "T", "compute threads per rank to place (0 = one per compute core)", "0")
      .range(0, 4096)
      .flag("no-proxy", "place without a proxy core")
      .flag("verbose", "print the effective configuration first (also PROXY_VERBOSE=1)");
  int threads = 0;
  bool with_proxy = true;
  const int parsed = apps::run_guarded(kProgram, env.rank(), [&] {
    if (!apps::parse_agreed(MPI_COMM_WORLD, env.rank(), options, argc, argv, [&] {
          threads = static_cast<int>(options.integer("threads"));
          with_proxy = !options.flag_set("no-proxy");
        }))
      return 0;
    if (apps::answer_show_config(options, env.rank())) return 0;
    return kParsed;
  });
  if (parsed != kParsed) return parsed;
  proxy::Placement p;
  try {
    p = env.placement(threads, with_proxy);
  } catch (const proxy::Error& e) {  // e.g. a binding with no core on this host: every rank must stop
    proxy::Environment::abort("proxy-info: error: rank " + std::to_string(env.rank()) + ": " + e.what(), 1);
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
    std::printf("proxy-info: %s, MPI_THREAD_%s, topology: %s\n", proxy::detail::counted(env.size(), "rank").c_str(),
                levels[std::min(std::max(env.thread_level(), 0), 3)], env.topology().describe().c_str());
    std::fputs(all.c_str(), stdout);
  }
  return 0;
} catch (const proxy::SettingsError& refused) {  // every rank; one of them says why
  return refused.exit_status();
}
