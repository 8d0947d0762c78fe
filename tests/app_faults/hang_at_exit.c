/* A fault for the bounded exit (apps/program_exit.hpp): preloaded into a program (LD_PRELOAD), its
 * destructor never returns, as OpenBLAS's does when it joins worker threads that spin for ever once
 * RLIMIT_AS has refused their buffers. The program must end all the same, with its own exit status. Only
 * in the process named by HANG_AT_EXIT_IN: the preload reaches the processes the program starts too (Open
 * MPI's singleton starts its own daemon), which must end as they would. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((destructor)) static void hang_at_exit(void) {
  const char* name = getenv("HANG_AT_EXIT_IN");
  if (name == NULL || strcmp(name, program_invocation_short_name) != 0) return;
  for (;;) pause();
}
