/* proxy-mpiexec's guard for Open MPI 4's launcher (cmake/ProxyLauncher.cmake). proxy-mpiexec preloads it into
 * mpiexec (LD_PRELOAD) with a file open on the descriptor named by PROXY_MPIEXEC_STATUS_FD. When the launcher
 * begins its own orte_finalize, the job is over and orte_exit_status holds the status mpiexec is about to exit
 * with; the guard writes it there, then runs the real orte_finalize. That finalize can crash (SIGSEGV in
 * PMIx_server_finalize after an MPI_Abort, ompi#13650) after the launcher has reaped its ranks, so that
 * nothing else knows their status any more: the wrapper then exits with the status written here. It can hang
 * there too; the write is what tells the wrapper's watcher that the job has ended, and it ends a launcher
 * still running 15 s later with this status.
 *
 * The guard is loaded into the launcher only: it takes itself and the variable out of the environment and
 * closes the descriptor on exec, so that the ranks the launcher starts inherit none of them. Nothing is
 * written where orte_exit_status is not defined (a launcher other than Open MPI 4's). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int status_fd = -1;

/* LD_PRELOAD without the entries naming this library (space- or colon-separated, as ld.so reads it). */
static void remove_self_from_preload(void) {
  const char* preload = getenv("LD_PRELOAD");
  Dl_info self;
  if (preload == NULL || dladdr(&status_fd, &self) == 0 || self.dli_fname == NULL) return;
  const char* own_name = strrchr(self.dli_fname, '/');
  own_name = own_name != NULL ? own_name + 1 : self.dli_fname;
  char* copy = strdup(preload);
  char* kept = calloc(strlen(preload) + 1, 1);
  if (copy != NULL && kept != NULL) {
    char* saveptr = NULL;
    for (char* entry = strtok_r(copy, " :", &saveptr); entry != NULL; entry = strtok_r(NULL, " :", &saveptr)) {
      const char* base = strrchr(entry, '/');
      if (strcmp(base != NULL ? base + 1 : entry, own_name) == 0) continue;
      if (kept[0] != '\0') strcat(kept, " ");
      strcat(kept, entry);
    }
    if (kept[0] == '\0')
      unsetenv("LD_PRELOAD");
    else
      setenv("LD_PRELOAD", kept, 1);
  }
  free(copy);
  free(kept);
}

__attribute__((constructor)) static void load(void) {
  const char* fd_text = getenv("PROXY_MPIEXEC_STATUS_FD");
  if (fd_text != NULL) {
    char* end = NULL;
    const long fd = strtol(fd_text, &end, 10);
    if (end != fd_text && *end == '\0' && fd > 2 && fd < 1024 && fcntl((int)fd, F_SETFD, FD_CLOEXEC) == 0)
      status_fd = (int)fd;
  }
  unsetenv("PROXY_MPIEXEC_STATUS_FD");
  remove_self_from_preload();
}

int orte_finalize(void) {
  union {
    void* object;
    int (*function)(void);
  } real = {dlsym(RTLD_NEXT, "orte_finalize")};
  const int* exit_status = (const int*)dlsym(RTLD_DEFAULT, "orte_exit_status");
  if (status_fd >= 0 && exit_status != NULL) {
    char text[16];
    const int length = snprintf(text, sizeof text, "%d\n", *exit_status);
    if (length > 0 && pwrite(status_fd, text, (size_t)length, 0) != length) (void)ftruncate(status_fd, 0);
  }
  return real.object != NULL ? real.function() : 0;
}
