#include "apps/standard_output.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "apps/exit_codes.hpp"

namespace apps {
namespace {

char g_program[64] = "proxy";  // a copy: no destructor runs before the check

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

}  // namespace

void fail_on_lost_output(std::string_view program) {
  const std::size_t length = std::min(program.size(), sizeof g_program - 1);
  program.copy(g_program, length);
  g_program[length] = '\0';
  std::atexit(check_standard_output);
}

}  // namespace apps
