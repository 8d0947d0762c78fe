/* A fault for the abort watchdog test: preloaded into a rank (LD_PRELOAD), it replaces MPI_Abort with a call
 * that never returns and never ends the process, as MPI_Abort has been seen to do under Open MPI when a peer
 * is in MPI_Finalize. Environment::abort must end the process all the same, with its exit code. */
#include <mpi.h>
#include <unistd.h>

int MPI_Abort(MPI_Comm comm, int errorcode) {
  (void)comm;
  (void)errorcode;
  for (;;) pause();
  return 0;
}
