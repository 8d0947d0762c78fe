#include "proxy/environment.hpp"

#include <omp.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "proxy/config.hpp"
#include "proxy/error.hpp"
#include "proxy/placement.hpp"

#include "launch.hpp"

namespace proxy {

namespace {

std::string thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
  }
  return "thread level " + std::to_string(level);
}

void check(int code, const char* call) {
  if (code != MPI_SUCCESS) throw Error(std::string(call) + " failed: " + mpi_error_string(code));
}

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

std::string program_name(int argc, char** argv) {
  if (argc < 1 || argv == nullptr || argv[0] == nullptr) return "proxy";
  const std::string path = argv[0];
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Every rank validates the PROXY_* variables and they agree before anything else: the lowest rank that
// found a bad one prints it, then every rank finalises and exits 2, so nobody waits for a rank that left.
// Settings that name a resource are checked against this machine and this rank's binding: PROXY_CORE must
// be a core of the host inside the binding the launcher gave the rank (binding modulo the core count, as
// hwloc would, ran the proxy on a core nobody asked for).
std::string resource_problem(const Topology& topology) {
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

void refuse_bad_settings_on_every_rank(const std::string& program, int rank, int size, const Topology& topology) {
  // A world that is not what the launcher started comes first: nothing else is worth saying then. Its
  // processes are each rank 0 of their own world: only the launcher's first one prints.
  const std::optional<LaunchCount> launched = launch_count();
  std::string problem = launch_problem(launched, size);
  const bool quiet = !problem.empty() && launched->index > 0;
  try {
    if (problem.empty()) {
      validate_environment();
      problem = resource_problem(topology);
    }
  } catch (const Error& e) {
    problem = e.what();
  }
  const int mine = problem.empty() ? size : rank;
  int first = size;
  check(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  if (first == size) return;
  if (rank == first && !quiet) Environment::report(program + ": error: " + problem);
  MPI_Finalize();
  std::exit(2);
}

// The ranks on this physical host, by host name: MPI_COMM_TYPE_SHARED is not the host once
// MPIR_CVAR_NOLOCAL=1 makes every rank its own node, and PROXY_NODE_SIZE changes the node on purpose; the
// cores are shared by every rank on the machine all the same. Collective over MPI_COMM_WORLD.
HostLayout discover_host(const Topology& topology, int world_rank, int& host_rank) {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  check(MPI_Get_processor_name(name, &length), "MPI_Get_processor_name");
  HostLayout host;
  host.name.assign(name, static_cast<std::size_t>(length));
  host.cores_on_host = topology.cores();

  // Split by a hash of the name first (scales), then by the name itself (a hash collision only costs a
  // second split).
  MPI_Comm same_hash = MPI_COMM_NULL;
  const int color = static_cast<int>(std::hash<std::string>{}(host.name) & 0x7fffffff);
  check(MPI_Comm_split(MPI_COMM_WORLD, color, world_rank, &same_hash), "MPI_Comm_split");
  int hash_size = 1;
  MPI_Comm_size(same_hash, &hash_size);
  std::vector<int> lengths(static_cast<std::size_t>(hash_size)), offsets(lengths.size());
  MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, same_hash);
  int total = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) offsets[i] = total, total += lengths[i];
  std::string names(static_cast<std::size_t>(total), '\0');
  MPI_Allgatherv(name, length, MPI_CHAR, names.data(), lengths.data(), offsets.data(), MPI_CHAR, same_hash);
  int first_with_my_name = 0;
  while (names.compare(static_cast<std::size_t>(offsets[static_cast<std::size_t>(first_with_my_name)]),
                       static_cast<std::size_t>(lengths[static_cast<std::size_t>(first_with_my_name)]), host.name) != 0)
    ++first_with_my_name;
  MPI_Comm on_host = MPI_COMM_NULL;
  check(MPI_Comm_split(same_hash, first_with_my_name, world_rank, &on_host), "MPI_Comm_split");
  MPI_Comm_free(&same_hash);

  int ranks = 1;
  MPI_Comm_rank(on_host, &host_rank);
  MPI_Comm_size(on_host, &ranks);
  host.world_ranks.resize(static_cast<std::size_t>(ranks));
  MPI_Allgather(&world_rank, 1, MPI_INT, host.world_ranks.data(), 1, MPI_INT, on_host);
  // Bindings as one byte per core (the same hwloc view on every rank of the host).
  const auto cores = static_cast<std::size_t>(host.cores_on_host);
  std::vector<unsigned char> mine(cores, 0), all(cores * static_cast<std::size_t>(ranks), 0);
  for (int c : topology.binding())
    if (c >= 0 && static_cast<std::size_t>(c) < cores) mine[static_cast<std::size_t>(c)] = 1;
  MPI_Allgather(mine.data(), host.cores_on_host, MPI_UNSIGNED_CHAR, all.data(), host.cores_on_host,
                MPI_UNSIGNED_CHAR, on_host);
  MPI_Comm_free(&on_host);
  host.bindings.resize(static_cast<std::size_t>(ranks));
  for (std::size_t k = 0; k < host.bindings.size(); ++k)
    for (std::size_t c = 0; c < cores; ++c)
      if (all[k * cores + c] != 0) host.bindings[k].push_back(static_cast<int>(c));
  return host;
}

}  // namespace

Environment::Environment(int& argc, char**& argv, int required_thread_level) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    check(MPI_Init_thread(&argc, &argv, required_thread_level, &thread_level_), "MPI_Init_thread");
    owns_mpi_ = true;
  } else {
    check(MPI_Query_thread(&thread_level_), "MPI_Query_thread");
  }
  // From here a throw leaves no communicator behind and finalises MPI if this Environment initialised it
  // (the destructor does not run for a constructor that throws).
  struct UndoOnThrow {
    Environment* self;
    ~UndoOnThrow() {
      if (self == nullptr) return;
      self->release_communicators();
      if (self->owns_mpi_) MPI_Finalize();
    }
  } undo{this};
  if (thread_level_ < required_thread_level && !owns_mpi_) {
    // The code initialised MPI itself: the level is what it asked for, not what the library can give.
    throw Error("MPI was initialised before this Environment at " + thread_level_name(thread_level_) +
                " but the proxy needs " + thread_level_name(required_thread_level) +
                ": call MPI_Init_thread asking for " + thread_level_name(required_thread_level) +
                " or remove the MPI_Init and let the Environment initialise MPI");
  }
  if (thread_level_ < required_thread_level) {
    throw Error("the MPI library provides " + thread_level_name(thread_level_) + " but the proxy needs " +
                thread_level_name(required_thread_level));
  }
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  // Before any thread of this process is bound: the binding read here is the launcher's.
  topology_ = std::make_unique<Topology>();
  refuse_bad_settings_on_every_rank(program_name(argc, argv), rank_, size_, *topology_);
  host_ = discover_host(*topology_, rank_, host_rank_);

  MPI_Comm physical = MPI_COMM_NULL;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &physical),
        "MPI_Comm_split_type");

  const int k = emulated_node_size();
  if (k > 0) {
    MPI_Comm_free(&physical);
    check(MPI_Comm_split(MPI_COMM_WORLD, rank_ / k, rank_, &node_.comm), "MPI_Comm_split");
  } else {
    node_.comm = physical;
  }
  check(MPI_Comm_rank(node_.comm, &node_.rank), "MPI_Comm_rank");
  check(MPI_Comm_size(node_.comm, &node_.size), "MPI_Comm_size");
  check(MPI_Comm_split(MPI_COMM_WORLD, node_.rank == 0 ? 0 : MPI_UNDEFINED, rank_, &node_.leaders),
        "MPI_Comm_split");
  int index_and_count[2] = {0, 1};
  if (node_.leaders != MPI_COMM_NULL) {
    check(MPI_Comm_rank(node_.leaders, &index_and_count[0]), "MPI_Comm_rank");
    check(MPI_Comm_size(node_.leaders, &index_and_count[1]), "MPI_Comm_size");
  }
  check(MPI_Bcast(index_and_count, 2, MPI_INT, 0, node_.comm), "MPI_Bcast");
  node_.index = index_and_count[0];
  node_.count = index_and_count[1];
  undo.self = nullptr;
}

void Environment::release_communicators() noexcept {
  if (node_.leaders != MPI_COMM_NULL) MPI_Comm_free(&node_.leaders);
  if (node_.comm != MPI_COMM_NULL) MPI_Comm_free(&node_.comm);
}

Environment::~Environment() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  release_communicators();
  if (owns_mpi_) MPI_Finalize();
}

Placement Environment::placement(int threads, bool with_proxy) const {
  Placement p = place_on_host(host_, host_rank_, threads, with_proxy);
  // Said once per job (by world rank 0, which shares the machine with the others in this situation).
  static bool noticed = false;
  if (p.shared_proxy && rank_ == 0 && !noticed) {
    noticed = true;
    std::fprintf(stderr, "proxy: notice: the proxy shares a core with compute work (shared mode): rank 0's proxy "
                 "on core %d is %s\n", p.proxy_core, p.proxy_sharing_reason.c_str());
  }
  return p;
}

bool Environment::bind_openmp_threads(const Placement& placement) const {
  if (placement.threads > 0) omp_set_num_threads(placement.threads);  // the later teams too, not only this one
  if (placement.compute_cores.empty()) return false;
  std::atomic<bool> ok{true};
#pragma omp parallel num_threads(placement.threads)
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    if (!topology_->bind_this_thread(placement.compute_cores[t % placement.compute_cores.size()]))
      ok.store(false, std::memory_order_relaxed);
  }
  return ok.load();
}

void Environment::report(std::string_view line) noexcept {
  std::string text(line);
  text += '\n';
  std::fflush(stderr);  // whatever the program printed before comes first
  const char* data = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t written = ::write(STDERR_FILENO, data, left);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) break;
    data += written;
    left -= static_cast<std::size_t>(written);
  }
}

void Environment::abort(std::string_view line, int code) noexcept {
  report(line);
  abort(code);
}

namespace {

// However MPI_Abort behaves (it has been seen to wait for a peer under Open MPI), the process is gone
// within this bound: a detached thread _exits with the same code.
constexpr std::chrono::seconds kAbortBound{10};

void arm_abort_watchdog(int code) noexcept {
  try {
    std::thread([code] {
      std::this_thread::sleep_for(kAbortBound);
      Environment::report("proxy: error: MPI_Abort did not end this process within " +
                          std::to_string(kAbortBound.count()) + " s: exiting");
      std::_Exit(code);
    }).detach();
  } catch (...) {
    // No thread to be had: MPI_Abort alone has to do.
  }
}

}  // namespace

void Environment::abort(int code) noexcept {
  arm_abort_watchdog(code);
  std::fflush(stdout);
  std::fflush(stderr);
  // MPI_Abort's kill can overtake output still in the pipe to the launcher: give it a moment to forward.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

}  // namespace proxy
