// The settings every rank checks together before anything else (environment_setup.hpp): the launch (a world
// that is not what the launcher started), every PROXY_* variable, and the settings that name a resource of
// this machine. Nothing here exits: a refusal is a SettingsError on every rank, and the program decides
// (apps::driver_main and the tests' mains return its exit status, 2).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <mpi.h>
#include <sched.h>

#include "environment_setup.hpp"
#include "launch.hpp"
#include "proxy/config.hpp"
#include "proxy/environment.hpp"
#include "proxy/error.hpp"

namespace proxy {

namespace {

// Settings that name a resource are checked against this machine and this rank's binding: PROXY_CORE must
// be a core of the host inside the binding the launcher gave the rank (binding modulo the core count, as
// hwloc would, ran the proxy on a core nobody asked for).
// GOMP_CPU_AFFINITY (GNU OpenMP: OS CPU numbers, "0 3 1-2 4-15:2") that names no CPU this process may run on:
// libgomp then fails to create its threads ("Thread creation failed: Invalid argument", exit 1, naming
// nothing). A list libgomp cannot parse it ignores with a warning, and so does this check.
std::string openmp_affinity_problem() {
  const char* v = std::getenv("GOMP_CPU_AFFINITY");
  if (v == nullptr || *v == '\0') return "";
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return "";
  std::istringstream items(std::string(v) + ' ');
  std::string item;
  bool any = false;
  while (items >> item) {
    for (std::size_t start = 0; start < item.size();) {  // commas separate items too
      const std::size_t comma = std::min(item.find(',', start), item.size());
      int first = 0, last = 0, stride = 1;
      char dash = 0, colon = 0, rest = 0;
      const std::string one = item.substr(start, comma - start);
      start = comma + 1;
      if (one.empty()) continue;
      const int got = std::sscanf(one.c_str(), "%d%c%d%c%d%c", &first, &dash, &last, &colon, &stride, &rest);
      if (got == 1) last = first;
      else if (!(got == 3 && dash == '-') && !(got == 5 && dash == '-' && colon == ':')) return "";
      if (first < 0 || last < first || stride < 1) return "";
      for (long cpu = first; cpu <= last && cpu < CPU_SETSIZE; cpu += stride) any = any || CPU_ISSET(cpu, &allowed);
    }
  }
  if (any) return "";
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &allowed)) cpus.push_back(cpu);
  return std::string("GOMP_CPU_AFFINITY='") + v + "' names no CPU this process may run on (CPUs " +
         describe_cores(cpus) + "): libgomp could not start its threads";
}

std::string resource_problem(const Topology& topology) {
  if (std::string problem = openmp_affinity_problem(); !problem.empty()) return problem;
  const char* v = std::getenv("PROXY_CORE");
  if (v == nullptr || *v == '\0') return "";
  const int core = Config::from_env().proxy_core;  // already validated: -1 .. kMaxCore
  if (core < 0) return "";
  const std::string named = std::string("PROXY_CORE='") + v + "' ";
  if (core >= topology.cores())
    return named + "names core " + std::to_string(core) + ", but this host has cores 0-" +
           std::to_string(topology.cores() - 1);
  const std::vector<int> binding = topology.binding();
  if (!binding.empty() && std::find(binding.begin(), binding.end(), core) == binding.end())
    return named + "is outside this rank's binding (cores " + describe_cores(binding) + ")";
  return "";
}

// PROXY_NODE_SIZE as this rank reads it (emulated_node_size): 0 unset, -1 a bad value (refused by
// validate_environment).
long node_size_setting() {
  try {
    return emulated_node_size();
  } catch (const Error&) {
    return -1;
  }
}

// The settings the ranks must share: PROXY_NODE_SIZE divides the world into nodes, and ranks that read different
// values (an MPMD launch, a per-rank -env) modelled different nodes, silently. Collective: rank 0's value to all.
std::string disagreement_with_rank_0(int rank) {
  long mine = node_size_setting();
  long rank_0s = mine;
  check_mpi(MPI_Bcast(&rank_0s, 1, MPI_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast");
  if (mine == rank_0s || mine < 0 || rank_0s < 0) return "";
  const auto shown = [](long k) { return k == 0 ? std::string("unset") : "'" + std::to_string(k) + "'"; };
  return "PROXY_NODE_SIZE is " + shown(mine) + " on rank " + std::to_string(rank) + ", " + shown(rank_0s) +
         " on rank 0: every rank needs the same value (the ranks would divide the world into different nodes)";
}

}  // namespace

void refuse_bad_settings_on_every_rank(const std::string& program, int rank, int size, const Topology& topology,
                                       const std::string& found) {
  // A world that is not what the launcher started comes first: nothing else is worth saying then. Its
  // processes are each rank 0 of their own world: only the launcher's first one prints.
  const std::optional<LaunchCount> launched = launch_count();
  std::string problem = launch_problem(launched, size);
  const bool quiet = !problem.empty() && launched->index > 0;
  if (problem.empty()) problem = found;
  try {
    if (problem.empty()) {
      validate_environment();
      problem = resource_problem(topology);
    }
  } catch (const Error& e) {
    problem = e.what();
  }
  if (std::string disagreement = disagreement_with_rank_0(rank); problem.empty()) problem = std::move(disagreement);
  const int mine = problem.empty() ? size : rank;
  int first = size;
  check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  if (first == size) return;
  // Said here, before the caller's MPI_Finalize: once a process has exited, a launcher may end the others
  // before they write. The other ranks do not know the text: theirs points to the rank that said it.
  const bool announce = rank == first && !quiet;
  const std::string line = program + ": error: " + problem;
  if (announce) Environment::report(line);
  throw SettingsError(rank == first ? line : program + ": error: rank " + std::to_string(first) + " refused the settings",
                      announce);
}

}  // namespace proxy
