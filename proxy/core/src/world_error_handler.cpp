#include "world_error_handler.hpp"

#include <mpi.h>

#include <atomic>
#include <string>

#include "progress_loop.hpp"
#include "proxy/environment.hpp"
#include "proxy/error.hpp"

namespace proxy {

namespace {

thread_local int t_errors_return_depth = 0;  // live MpiErrorsReturnHere scopes on this thread

// MPICH reports the failure of a call on several requests (MPI_Testsome, MPI_Startall) to the world's handler,
// not to the requests' communicator (the proxy's MPI_ERRORS_RETURN), and MPI's default handler ends the job
// with "Fatal error in internal_Testsome", naming no plan, peer or epoch; the harness's timed waits test the
// drivers' own requests, on communicators made from the world. Here such an error returns to the call, which
// throws the CommError naming the transfer (the progress loop's) or the peer and the step (the harness's). Any
// other is fatal, as MPI's default is, with one line of ours: Open MPI's own report of it has been seen lost
// ("ORTE_ERROR_LOG: Out of resource in show_help.c").
void world_error(MPI_Comm* comm, int* code, ...) {
  if (ProgressLoop::running_on_this_thread() || t_errors_return_depth > 0) return;
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Environment::abort("proxy: error: rank " + std::to_string(rank) + ": fatal MPI error on " +
                         (*comm == MPI_COMM_WORLD ? std::string("MPI_COMM_WORLD") : std::string("a communicator")) +
                         ": " + mpi_error_string(*code),
                     1);  // not *code: an exit status keeps its low 8 bits, and MPICH's codes can end in 0
}

}  // namespace

MpiErrorsReturnHere::MpiErrorsReturnHere() noexcept { ++t_errors_return_depth; }
MpiErrorsReturnHere::~MpiErrorsReturnHere() { --t_errors_return_depth; }

void install_world_error_handler() {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  MPI_Errhandler current = MPI_ERRHANDLER_NULL;
  if (MPI_Comm_get_errhandler(MPI_COMM_WORLD, &current) != MPI_SUCCESS) return;
  const bool default_handler = current == MPI_ERRORS_ARE_FATAL;
  MPI_Errhandler_free(&current);
  if (!default_handler) return;  // the program's choice stands
  MPI_Errhandler ours = MPI_ERRHANDLER_NULL;
  if (MPI_Comm_create_errhandler(world_error, &ours) != MPI_SUCCESS) return;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, ours);
  MPI_Errhandler_free(&ours);  // the world keeps it
}

}  // namespace proxy
