// Environment: MPI start-up and shut-down, the placement of a rank's threads and their binding. The steps
// of the construction once MPI is up are one file each (environment_setup.hpp); ending the job is
// job_abort.cpp.
#include "proxy/environment.hpp"

#include <omp.h>

#include <atomic>
#include <cstdio>
#include <string>

#include "environment_setup.hpp"
#include "proxy/config.hpp"
#include "proxy/error.hpp"
#include "proxy/progress.hpp"
#include "world_error_handler.hpp"

namespace proxy {

void check_mpi(int code, const char* call) {
  if (code != MPI_SUCCESS) throw Error(std::string(call) + " failed: " + mpi_error_string(code));
}

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

std::string program_name(int argc, char** argv) {
  if (argc < 1 || argv == nullptr || argv[0] == nullptr) return "proxy";
  const std::string path = argv[0];
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

namespace {
// One Environment per process at a time: a second one would call MPI from the main thread beside a running
// proxy, and MPI cannot be initialised again once an earlier one finalised it.
std::atomic<bool> an_environment_is_alive{false};
}  // namespace

Environment::Environment(int& argc, char**& argv, int required_thread_level, std::string_view program) {
  if (an_environment_is_alive.exchange(true))
    throw Error("Environment: another Environment is alive in this process: keep one for main's lifetime and "
                "pass it where it is needed");
  struct ClearOnThrow {
    bool armed = true;
    ~ClearOnThrow() {
      if (armed) an_environment_is_alive.store(false);
    }
  } alive_on_success;
  int finalized = 0;
  MPI_Finalized(&finalized);  // callable at any time; MPI_Init after MPI_Finalize ends the process unexplained
  if (finalized)
    throw Error("Environment: MPI has already been finalised in this process (by an earlier Environment or "
                "MPI_Finalize) and cannot be initialised again: keep one Environment for main's lifetime");
  program_ = program.empty() ? program_name(argc, argv) : std::string(program);
  StepWatchdog bounded(program_, "the set-up (MPI_Init, host and node discovery)");  // MPI_Init included
  int initialized = 0;
  check_mpi(MPI_Initialized(&initialized), "MPI_Initialized");
  if (!initialized) {
    check_mpi(MPI_Init_thread(&argc, &argv, required_thread_level, &thread_level_), "MPI_Init_thread");
    owns_mpi_ = true;
  } else {
    check_mpi(MPI_Query_thread(&thread_level_), "MPI_Query_thread");
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
  // A thread level too low is a setting the job cannot run with, refused on every rank as the others are
  // (a SettingsError, said once: porting.md's start-up catches it).
  std::string thread_problem;
  if (thread_level_ < required_thread_level && !owns_mpi_) {
    // The code initialised MPI itself: the level is what it asked for, not what the library can give.
    thread_problem = "MPI was initialised before this Environment at " + thread_level_name(thread_level_) +
                     " but the proxy needs " + thread_level_name(required_thread_level) +
                     ": call MPI_Init_thread asking for " + thread_level_name(required_thread_level) +
                     " or remove the MPI_Init and let the Environment initialise MPI";
  } else if (thread_level_ < required_thread_level) {
    thread_problem = "the MPI library provides " + thread_level_name(thread_level_) + " but the proxy needs " +
                     thread_level_name(required_thread_level);
  }
  check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  install_world_error_handler();  // before the program makes its communicators, which inherit it
  bounded.set_rank(rank_);
  // Before any thread of this process is bound: the binding read here is the launcher's.
  topology_ = std::make_unique<Topology>();
  refuse_bad_settings_on_every_rank(program_, rank_, size_, *topology_, thread_problem);
  host_ = discover_host(*topology_, rank_, host_rank_);
  discover_node(rank_, node_);
  if (owns_mpi_ && size_ > 1) {  // the end of the program, before MPI_Finalize (end_together)
    check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &end_), "MPI_Comm_dup");
    MPI_Comm_set_name(end_, "proxy: end of the program");
  }
  undo.self = nullptr;
  alive_on_success.armed = false;
}

void Environment::release_communicators() noexcept {
  if (end_ != MPI_COMM_NULL) MPI_Comm_free(&end_);
  if (node_.leaders != MPI_COMM_NULL) MPI_Comm_free(&node_.leaders);
  if (node_.comm != MPI_COMM_NULL) MPI_Comm_free(&node_.comm);
}

Environment::~Environment() {
  an_environment_is_alive.store(false);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  // Finalising MPI (or freeing the node's communicators) under a running proxy thread would be two threads
  // calling MPI, then a proxy calling a finalised MPI: end the job with one line instead.
  if (a_proxy_thread_is_alive())
    abort("proxy: error: rank " + std::to_string(rank_) + ": the Environment was destroyed while a ProxyThread "
          "is alive: destroy the ProxyThread first (declare it after the Environment)", 1);
  // MPI_Finalize waits for every rank: the ranks meet first, bounded, so that one stopped or hung after its last
  // communication is named, and MPI_Finalize itself is bounded too.
  if (end_ != MPI_COMM_NULL) end_together(end_, program_, rank_, size_);
  release_communicators();
  if (!owns_mpi_) return;
  StepWatchdog bounded(program_, "MPI_Finalize", StepWatchdog::Ending::exit_process);
  bounded.set_rank(rank_);
  MPI_Finalize();
}

Placement Environment::placement(int threads, bool with_proxy) const {
  // Under auto, with one compute thread per compute core asked (threads 0), a core the proxy cannot pay for
  // computes instead (auto_keeps_a_proxy_core). A count asked explicitly leaves the spare core to the proxy
  // (it would idle otherwise); a proxy core that is shared anyway stays in the line, which says with whom.
  Placement p = place_on_host(host_, host_rank_, threads, with_proxy);
  if (with_proxy && threads == 0 && Config::from_env().progress == ProgressStrategy::automatic &&
      p.proxy_core_dedicated && !auto_keeps_a_proxy_core(p, size_))
    p = place_on_host(host_, host_rank_, threads, false);
  // Said once per job (by world rank 0, which shares the machine with the others in this situation).
  if (p.shared_proxy && rank_ == 0 && !shared_proxy_noticed_.exchange(true)) {
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

}  // namespace proxy
