// The end of every program, after main returns:
// - Output that is lost is a failure: when standard output cannot be written (a full disk, /dev/full, a
//   pipe whose reader is gone while SIGPIPE is ignored), one line "<program>: error: cannot write to
//   standard output[: <reason>, where it is still known]" and exit 1, not exit 0 with nothing written.
// - The exit is bounded: a process still there kExitBound after its exit began (a library's exit handler
//   that never returns: OpenBLAS joins worker threads that spin for ever once RLIMIT_AS has refused their
//   buffers) says so in one line, "<program>: warning: the process had not ended 10 s after its exit (a
//   library's exit handler did not return): ending it with its status S", and _exits with that status.
// Every program's main calls guard_program_exit first (driver_main does); tests/cli/vocabulary.py checks
// each program's --help on /dev/full, tests/app_faults a run of each driver on /dev/full
// and one whose exit hangs.
// Thread contract: call once, from main, before any output. The checks run in exit() (after main
// returns, so after MPI_Finalize) before the libraries' own exit handlers; stdout is flushed there
// (std::cout writes through it: the streams stay synchronised with stdio). A process that ends otherwise
// (MPI_Abort, _exit after a failure) already exits non-zero, and proxy::Environment::abort is bounded too.
#pragma once

#include <chrono>
#include <string_view>

namespace apps {

inline constexpr std::chrono::seconds kExitBound{10};

// Registers the checks with on_exit; `program` names the program in their lines.
void guard_program_exit(std::string_view program);

}  // namespace apps
