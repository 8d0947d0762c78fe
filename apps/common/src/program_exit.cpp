#include "apps/program_exit.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include <stdlib.h>  // on_exit (glibc): the handler learns the exit status

#include "apps/exit_codes.hpp"

namespace apps {
namespace {

char g_program[64] = "proxy";  // a copy: no destructor runs before the handler

void check_standard_output() {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int error = errno;
  if (flushed && !std::ferror(stdout)) return;
  // A write that failed earlier (output past the buffer, an unbuffered stdout: MPICH makes it so, a flush
  // by the program) left only the error flag: its errno is gone.
  if (!flushed && error != 0)
    std::fprintf(stderr, "%s: error: cannot write to standard output: %s\n", g_program, std::strerror(error));
  else
    std::fprintf(stderr, "%s: error: cannot write to standard output\n", g_program);
  std::_Exit(kExitRunFailure);
}

void bound_the_exit(int status) {
  try {
    std::thread([status] {
      std::this_thread::sleep_for(kExitBound);
      const std::string line = std::string(g_program) + ": warning: the process had not ended " +
                               std::to_string(kExitBound.count()) + " s after its exit (a library's exit handler " +
                               "did not return): ending it with its status " + std::to_string(status) + "\n";
      std::fwrite(line.data(), 1, line.size(), stderr);
      std::_Exit(status);
    }).detach();
  } catch (...) {
    // No thread to be had: the exit is not bounded.
  }
}

void at_exit(int status, void*) {
  check_standard_output();
  bound_the_exit(status);
}

}  // namespace

void guard_program_exit(std::string_view program) {
  const std::size_t length = std::min(program.size(), sizeof g_program - 1);
  program.copy(g_program, length);
  g_program[length] = '\0';
  ::on_exit(at_exit, nullptr);
}

}  // namespace apps
