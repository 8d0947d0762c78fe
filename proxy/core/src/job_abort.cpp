// Ending the whole job after a failure the other ranks cannot know about (environment.hpp: report, abort).
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include <mpi.h>

#include "proxy/environment.hpp"

namespace proxy {

void Environment::report(std::string_view line) noexcept {
  std::string text(line);
  text += '\n';
  std::fflush(stderr);  // whatever the program printed before comes first
  const char* data = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t written = ::write(STDERR_FILENO, data, left);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) break;
    data += written;
    left -= static_cast<std::size_t>(written);
  }
}

void Environment::abort(std::string_view line, int code) noexcept {
  report(line);
  abort(code);
}

namespace {

// However MPI_Abort behaves (it has been seen to wait for a peer under Open MPI), the process is gone
// within this bound: a detached thread _exits with the same code.
constexpr std::chrono::seconds kAbortBound{10};

void arm_abort_watchdog(int code) noexcept {
  try {
    std::thread([code] {
      std::this_thread::sleep_for(kAbortBound);
      Environment::report("proxy: error: MPI_Abort did not end this process within " +
                          std::to_string(kAbortBound.count()) + " s: exiting");
      std::_Exit(code);
    }).detach();
  } catch (...) {
    // No thread to be had: MPI_Abort alone has to do.
  }
}

}  // namespace

void Environment::abort(int code) noexcept {
  arm_abort_watchdog(code);
  std::fflush(stdout);
  std::fflush(stderr);
  // MPI_Abort's kill can overtake output still in the pipe to the launcher: give it a moment to forward.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

}  // namespace proxy
