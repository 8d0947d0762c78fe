/* A fault for the launcher tests (Open MPI): preloaded into mpiexec and its ranks (LD_PRELOAD), it makes the
 * launcher's orte_finalize never return, as Open MPI 4.1's launcher has been seen to deadlock in it (in
 * PMIx_server_finalize) once its ranks had ended; with PROXY_TEST_LAUNCHER_FINALIZE=crash it dies of SIGSEGV
 * there instead, at once, as that launcher has also been seen to do (crash-late: 2 s in, time for
 * proxy-mpiexec's watcher to see the ranks ended); with hang-reaped it reaps its ranks first, then never
 * returns, so that nothing outside the launcher sees them end. The ranks' own orte_finalize is the real one.
 * proxy-mpiexec must end the launcher all the same, within its bound, with the ranks' exit status, and after
 * a crash exit with the job's status too. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int orte_finalize(void) {
  const char* name = program_invocation_short_name;
  if (strncmp(name, "mpiexec", 7) == 0 || strncmp(name, "mpirun", 6) == 0 || strcmp(name, "orterun") == 0) {
    const char* mode = getenv("PROXY_TEST_LAUNCHER_FINALIZE");
    if (mode != NULL && (strcmp(mode, "crash") == 0 || strcmp(mode, "crash-late") == 0)) {
      if (strcmp(mode, "crash-late") == 0) sleep(2);
      signal(SIGSEGV, SIG_DFL);
      raise(SIGSEGV);
    }
    if (mode != NULL && strcmp(mode, "hang-reaped") == 0)
      while (waitpid(-1, NULL, 0) > 0 || errno == EINTR) {
      }
    for (;;) pause();
  }
  int (*real)(void) = (int (*)(void))dlsym(RTLD_NEXT, "orte_finalize");
  return real != NULL ? real() : 0;
}
