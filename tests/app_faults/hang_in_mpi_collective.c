/* A fault for the benchmarks' progress watchdog (bench/common/progress_watchdog.hpp): preloaded into one rank
 * (LD_PRELOAD), MPI_Barrier and a reduction of doubles with MPI_Allreduce (the calls the benchmarks time)
 * never return, as when that rank is stopped or its network is gone; other reductions (the set-up's) work.
 * Both ranks must end all the same, with one line, within PROXY_WAIT_TIMEOUT. */
#include <mpi.h>
#include <unistd.h>

int MPI_Barrier(MPI_Comm comm) {
  (void)comm;
  for (;;) pause();
  return 0;
}

int MPI_Allreduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  if (type != MPI_DOUBLE) return PMPI_Allreduce(in, out, count, type, op, comm);
  for (;;) pause();
  return 0;
}
