#include "proxy/environment.hpp"

#include <omp.h>

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "proxy/config.hpp"
#include "proxy/error.hpp"

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
void refuse_bad_settings_on_every_rank(const std::string& program, int rank, int size) {
  std::string problem;
  try {
    validate_environment();
  } catch (const Error& e) {
    problem = e.what();
  }
  const int mine = problem.empty() ? size : rank;
  int first = size;
  check(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  if (first == size) return;
  if (rank == first) Environment::report(program + ": error: " + problem);
  MPI_Finalize();
  std::exit(2);
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
  if (thread_level_ < required_thread_level) {
    throw Error("the MPI library provides " + thread_level_name(thread_level_) + " but the proxy needs " +
                thread_level_name(required_thread_level));
  }
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  refuse_bad_settings_on_every_rank(program_name(argc, argv), rank_, size_);

  MPI_Comm physical = MPI_COMM_NULL;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &physical),
        "MPI_Comm_split_type");
  check(MPI_Comm_rank(physical, &physical_rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(physical, &physical_size_), "MPI_Comm_size");

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
  if (k > 0) {
    // Cores are shared by every rank on the physical machine, whatever the emulated node size.
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &physical),
          "MPI_Comm_split_type");
    check(MPI_Comm_rank(physical, &physical_rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(physical, &physical_size_), "MPI_Comm_size");
    MPI_Comm_free(&physical);
  }
  topology_ = std::make_unique<Topology>();
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
  Placement p = compute_placement({topology_->cores(), physical_size_, physical_rank_, threads, with_proxy});
  // Said once per job (by world rank 0, which shares the machine with the others in this situation).
  static bool noticed = false;
  if (p.shared_proxy && rank_ == 0 && !noticed) {
    noticed = true;
    std::fprintf(stderr, "proxy: notice: %d core(s) for %d rank(s) on this node: the proxy shares a core with "
                 "compute work (shared mode)\n", topology_->cores(), physical_size_);
  }
  return p;
}

bool Environment::bind_openmp_threads(const Placement& placement) const {
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

void Environment::abort(int code) noexcept {
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
