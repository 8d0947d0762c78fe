/* For stop_rank.sh: preloaded into each rank (LD_PRELOAD), it counts the calls that only a run's loop makes in
 * such numbers (starts of persistent requests, non-blocking sends, receives, broadcasts and allreduces; the
 * set-up's timed checks make a few) and, at the 50th, creates the file STOP_RANK_MARKER/<pid>: this rank is in
 * its loop. CPU time did not tell: under load a rank waiting in a blocking collective (a commit's comparison)
 * spins (MPICH polls) while its peer computes, and stopped there the job ended with the commit's line
 * (summa_proxy_stopped_rank_times_out, load 8, 2026-12-07). */
#include <fcntl.h>
#include <mpi.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static atomic_int calls;

static void count(void) {
  if (atomic_fetch_add(&calls, 1) + 1 != 50) return;
  const char* folder = getenv("STOP_RANK_MARKER");
  if (folder == NULL) return;
  char path[4096];
  snprintf(path, sizeof path, "%s/%ld", folder, (long)getpid());
  const int fd = open(path, O_CREAT | O_WRONLY, 0644);
  if (fd >= 0) close(fd);
}

int MPI_Start(MPI_Request* request) {
  count();
  return PMPI_Start(request);
}

int MPI_Startall(int n, MPI_Request requests[]) {
  count();
  return PMPI_Startall(n, requests);
}

int MPI_Isend(const void* buffer, int n, MPI_Datatype type, int peer, int tag, MPI_Comm comm, MPI_Request* request) {
  count();
  return PMPI_Isend(buffer, n, type, peer, tag, comm, request);
}

int MPI_Irecv(void* buffer, int n, MPI_Datatype type, int peer, int tag, MPI_Comm comm, MPI_Request* request) {
  count();
  return PMPI_Irecv(buffer, n, type, peer, tag, comm, request);
}

int MPI_Ibcast(void* buffer, int n, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* request) {
  count();
  return PMPI_Ibcast(buffer, n, type, root, comm, request);
}

int MPI_Iallreduce(const void* in, void* out, int n, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                   MPI_Request* request) {
  count();
  return PMPI_Iallreduce(in, out, n, type, op, comm, request);
}
