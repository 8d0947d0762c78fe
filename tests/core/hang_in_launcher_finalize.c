/* A fault for the launcher watcher test (Open MPI): preloaded into mpiexec and its ranks (LD_PRELOAD), it
 * makes the launcher's orte_finalize never return, as Open MPI 4.1's launcher has been seen to deadlock in
 * it (in PMIx_server_finalize) once its ranks had ended. The ranks' own orte_finalize is the real one.
 * proxy-mpiexec must end the launcher all the same, within its bound, with the ranks' exit status. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

int orte_finalize(void) {
  const char* name = program_invocation_short_name;
  if (strncmp(name, "mpiexec", 7) == 0 || strncmp(name, "mpirun", 6) == 0 || strcmp(name, "orterun") == 0)
    for (;;) pause();
  int (*real)(void) = (int (*)(void))dlsym(RTLD_NEXT, "orte_finalize");
  return real != NULL ? real() : 0;
}
