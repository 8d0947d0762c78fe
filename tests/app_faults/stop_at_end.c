/* A rank stopped after its last communication: preloaded into one rank (LD_PRELOAD), it stops the process
 * (SIGSTOP) where STOP_AT_END says: "meeting", at its first call in the Environment's end of the program (the
 * communicator named "proxy: end of the program", environment_setup.hpp: end_together), or "finalize", on entering
 * MPI_Finalize, after that meeting. The others must end the job with one line either way (MPI_Finalize waited for
 * the stopped rank for ever, in MPICH and Open MPI alike). */
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static int stop_here(const char* where) {
  const char* wanted = getenv("STOP_AT_END");
  return wanted != NULL && strcmp(wanted, where) == 0;
}

static void stop_in_meeting(MPI_Comm comm) {
  char name[MPI_MAX_OBJECT_NAME];
  int length = 0;
  if (!stop_here("meeting") || PMPI_Comm_get_name(comm, name, &length) != MPI_SUCCESS) return;
  if (strcmp(name, "proxy: end of the program") == 0) raise(SIGSTOP);
}

int MPI_Isend(const void* buffer, int n, MPI_Datatype type, int peer, int tag, MPI_Comm comm, MPI_Request* request) {
  stop_in_meeting(comm);
  return PMPI_Isend(buffer, n, type, peer, tag, comm, request);
}

int MPI_Irecv(void* buffer, int n, MPI_Datatype type, int peer, int tag, MPI_Comm comm, MPI_Request* request) {
  stop_in_meeting(comm);
  return PMPI_Irecv(buffer, n, type, peer, tag, comm, request);
}

int MPI_Finalize(void) {
  if (stop_here("finalize")) raise(SIGSTOP);
  return PMPI_Finalize();
}
