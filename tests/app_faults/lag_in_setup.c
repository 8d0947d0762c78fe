/* A rank that lags in the set-up, for stop_rank.sh: preloaded into both ranks (LD_PRELOAD), rank 0's first
 * MPI_Allreduce starts 2.5 s late. Rank 1 waits in it, and a blocking collective polls: rank 1 passes a second of
 * CPU time while both ranks are still in the set-up. Stopped there, the job ended with the set-up's line, not the
 * loop's (the flaky summa_proxy_stopped_rank_times_out of 2026-12-07); stop_rank.sh must wait for the loop. Used in
 * sync mode, where rank 0 uses no CPU while it sleeps here. */
#include <mpi.h>
#include <unistd.h>

static int calls = 0;

int MPI_Allreduce(const void* send, void* receive, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  int rank = -1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0 && calls++ == 0) usleep(2500000);
  return PMPI_Allreduce(send, receive, count, type, op, comm);
}
