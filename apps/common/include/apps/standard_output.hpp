// Output that is lost is a failure: a program whose standard output cannot be written (a full disk,
// /dev/full, a pipe whose reader is gone while SIGPIPE is ignored) ends with one line
// "<program>: error: cannot write to standard output[: <reason>, where it is still known]" and exit 1, not
// with exit 0 and nothing written. Every program's main calls fail_on_lost_output first (driver_main does);
// tests/cli/vocabulary.py checks each program's --help and --version on /dev/full.
// Thread contract: call once, from main, before any output. The check runs in exit() (after main returns,
// so after MPI_Finalize), flushing stdout, through which std::cout writes (the streams stay synchronised
// with stdio). A process that ends otherwise (MPI_Abort, _exit after a failure) already exits non-zero.
#pragma once

#include <string_view>

namespace apps {

// Registers the check with std::atexit; `program` names the program in the line.
void fail_on_lost_output(std::string_view program);

}  // namespace apps
