/* A fault for the bounded exit (apps/program_exit.hpp): preloaded into a program (LD_PRELOAD), its
 * destructor never returns, as OpenBLAS's does when it joins worker threads that spin for ever once
 * RLIMIT_AS has refused their buffers. The program must end all the same, with its own exit status. */
#include <unistd.h>

__attribute__((destructor)) static void hang_at_exit(void) {
  for (;;) pause();
}
