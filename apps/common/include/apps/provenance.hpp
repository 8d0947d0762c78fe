// Provenance of a run: when, where and how it was started (time, host, command line), what it was built
// from and with (commit, build type and flags, compiler, MPI, hwloc, BLAS), on which machine (OS, CPU model,
// cores, the CPUs the process may use), under which PROXY_* / OMP_* settings, placement and machine load it
// was measured. The one implementation: the C++ programs write it (a "provenance" object in JSON records,
// flat "prov_<field>" columns in CSV records, "prov_<field>" keys of Google Benchmark's context), the scripts
// read it (apps/toolkit/provenance.py) and never rebuild it. Schema: docs/provenance.md. Collect it on the
// rank that writes, before the run (time and load describe the start). Main thread.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace apps {

struct Provenance {
  std::string time_utc;           // "2026-11-23T12:30:05Z", when collect_provenance ran
  std::string host;               // gethostname
  std::vector<std::string> argv;  // the program's command line as it was given (argv[0] first)
  std::string commit;             // git describe --always --dirty --tags of the source tree at configure time, or "unknown"
  std::string build_type;         // CMAKE_BUILD_TYPE ("Release")
  std::string build_flags;        // CMAKE_CXX_FLAGS and the build type's flags ("-O3 -DNDEBUG")
  std::string compiler;           // "GCC 12.2.0" (the compiler's __VERSION__)
  std::string mpi;                // "MPICH 4.0.2", "Open MPI 4.1.4", else the first line of MPI_Get_library_version
  std::string hwloc;              // "2.9.0 (API 2.8.0)": the hwloc built against, the API of the one run with
  std::string blas;               // the BLAS library the program runs with, "none" without one (see linked_library)
  std::string os;                 // uname and /etc/os-release: "Linux 6.1.0-18-amd64 x86_64 (Debian GNU/Linux 12 (bookworm))"
  std::string cpu_model;          // hwloc's CPUModel of the first package ("Intel(R) Xeon(R) ..."), or "unknown"
  int cores = 0;                  // physical cores of the node the process's cpuset allows (hwloc)
  int cpus_bound = 0;             // hardware threads the calling thread may run on when collected (its binding)
  std::vector<std::pair<std::string, std::string>> env;  // every PROXY_* and OMP_* variable, sorted
  std::optional<double> load_1m;                         // 1-minute load average; none where unknown
  std::string placement;                                 // the placement description of the writing rank

  // The provenance as one JSON object, fields in the schema's order: {"time_utc":...,"env":{...},...}.
  std::string json() const;
  // ("prov_time_utc", "2026-...") ... in the schema's order: argv and env as JSON text, numbers as in
  // json(), a missing load "". The same strings as CSV cells and as Google Benchmark context values.
  std::vector<std::pair<std::string, std::string>> flat() const;
};

// Everything but placement ("unknown" until the program sets it). `argv` is main's (argc entries); blas is
// the library that defines cblas_dgemm in the running program, "none" when none does.
Provenance collect_provenance(int argc, const char* const* argv);

// The file name of the shared library that defines `symbol` (e.g. &cblas_dgemm -> "libopenblas.so.0",
// with the resolved path after it when a symlink or alternative points elsewhere); "static" when the
// symbol is in the program itself. How a program names the BLAS it really runs with.
std::string linked_library(const void* symbol);

}  // namespace apps
