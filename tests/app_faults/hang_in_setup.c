/* A fault for the bounded set-up (proxy/core/src/environment_setup.hpp, StepWatchdog): preloaded into one
 * rank (LD_PRELOAD), MPI_Comm_split never returns, as when that rank is stopped during the Environment's
 * host and node discovery. Every rank must end all the same, with one line, within the set-up's bound. */
#include <mpi.h>
#include <unistd.h>

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* out) {
  (void)comm, (void)color, (void)key, (void)out;
  for (;;) pause();
  return 0;
}
