// Output files checked before any computation, so that a run never computes for nothing and then fails:
// a bad --output is a usage error (exit 2) on every rank, before the run. A file may be written if it is
// a regular file we may append to, or does not exist yet in a directory we may write; its extension picks
// the record format (run_record.hpp), an existing file must already hold this program's records (CSV
// header or JSON Lines keys: RunRecord::mismatch_with), and a file another process keeps locked for 2 s (at
// most half PROXY_WAIT_TIMEOUT) is refused naming the holder (records are appended under the lock).
// A file system with less than 64 KiB free is refused too: the output would fail only after the run.
// A symbolic link is checked as what it points to: a link to a file that does not exist yet (opening it
// creates the file) needs that file's directory, and a link into a missing directory is refused before the run:
// "--output runs.csv: a symbolic link to '/x/runs.csv': directory '/x': No such file or directory".
// The messages say why, with strerror: "--output /x/runs.csv: directory '/x' does not exist".
// Thread contract: any thread; check_record_output is collective over comm (the thread that may call MPI,
// before the run's proxy thread starts).
#pragma once

#include <string>

#include <mpi.h>

#include <proxy/detail/paths.hpp>

#include "apps/run_record.hpp"

namespace apps {

// The file that writing `path` lands on, its links followed (<proxy/detail/paths.hpp>): who replaces an output
// by renaming a temporary file onto it renames onto this, so that the user's link stays a link.
using proxy::detail::link_target;

// Whether two output paths name one file: the same file (device and inode) where both exist, else the same
// name in the same directory, after link_target ("runs.csv", "./runs.csv" and a link to it are one file).
bool same_output_file(const std::string& first, const std::string& second);

// Why `path` cannot be written (created or appended to; its file system has under 64 KiB free), or "" when it
// can. option names it in the message ("--output"). Leaves everything as it was: where `path` does not exist
// yet, it creates a probe file beside it and removes it (only creating tells: root passes access() in sysfs,
// where creating is refused).
std::string unwritable_reason(const std::string& option, const std::string& path);

// unwritable_reason, then the format (extension), a lock another process holds, and for an existing non-empty
// file its first line against prototype's (a record of this program with any values). "" when fine.
std::string record_output_problem(const std::string& path, const RunRecord& prototype);

// Collective over comm: rank 0 runs record_output_problem and every rank learns the outcome (a timed
// broadcast); a problem throws UsageError with the same message on every rank.
void check_record_output(MPI_Comm comm, const std::string& path, const RunRecord& prototype);

}  // namespace apps
