/* where: each rank prints one line saying where it runs, then the ranks exchange --bytes with their ring
 * neighbours (so that the cluster's network carries them). Used by the emulated-cluster tests to check
 * that every emulated node has its own host name, its own cores and its own shared-memory node.
 *   where [BYTES]   (default 1048576)
 * Output, one line per rank, in rank order:
 *   rank R host H cpus LIST node_ranks K exchanged BYTES
 * C rather than C++ so that the test can build it with any MPI's compiler wrapper (mpicc.openmpi). */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The affinity list as the kernel reports it (Cpus_allowed_list in /proc/self/status). */
static void allowed_cpus(char* out, size_t size) {
  FILE* status = fopen("/proc/self/status", "r");
  char line[512];
  snprintf(out, size, "?");
  if (!status) return;
  while (fgets(line, sizeof line, status)) {
    if (strncmp(line, "Cpus_allowed_list:", 18) == 0) {
      char* value = line + 18;
      while (*value == ' ' || *value == '\t') ++value;
      value[strcspn(value, "\n")] = '\0';
      snprintf(out, size, "%s", value);
    }
  }
  fclose(status);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long bytes = argc > 1 ? atol(argv[1]) : 1048576;
  if (bytes < 1) {
    if (rank == 0) fprintf(stderr, "where: error: BYTES '%s' is not a positive integer\n", argv[1]);
    MPI_Finalize();
    return 2;
  }

  MPI_Comm node;
  int node_ranks = 0;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &node_ranks);

  char* send = calloc((size_t)bytes, 1);
  char* recv = calloc((size_t)bytes, 1);
  memset(send, rank + 1, (size_t)bytes);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Sendrecv(send, (int)bytes, MPI_CHAR, next, 0, recv, (int)bytes, MPI_CHAR, prev, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  const int intact = recv[0] == (char)(prev + 1) && recv[bytes - 1] == (char)(prev + 1);

  char host[256], cpus[256], line[768];
  gethostname(host, sizeof host);
  host[sizeof host - 1] = '\0';
  allowed_cpus(cpus, sizeof cpus);
  snprintf(line, sizeof line, "rank %d host %s cpus %s node_ranks %d exchanged %ld%s", rank, host, cpus,
           node_ranks, bytes, intact ? "" : " CORRUPT");
  /* In rank order: rank 0 gathers and prints, so the lines never interleave. */
  char* all = rank == 0 ? malloc(sizeof line * (size_t)size) : NULL;
  MPI_Gather(line, sizeof line, MPI_CHAR, all, sizeof line, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < size; ++r) printf("%s\n", all + (size_t)r * sizeof line);
    fflush(stdout);
    free(all);
  }
  free(send);
  free(recv);
  MPI_Comm_free(&node);
  MPI_Finalize();
  return intact ? 0 : 1;
}
