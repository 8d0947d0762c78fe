// Provenance of a run record: when, where, with which commit, MPI library, compiler and BLAS, under which
// PROXY_* / OMP_* settings, placement and machine load it was measured. The field names are the sweep
// tools' (apps/toolkit/provenance.py): nested under "provenance" in a JSON record, flat "prov_<field>"
// columns in CSV (env as JSON text there). Collect it on the rank that writes the record, before the run
// (time and load describe the start); MPI must be initialised. Main thread.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace apps {

struct Provenance {
  std::string time_utc;  // "2026-11-23T12:30:05Z", when collect_provenance ran
  std::string host;
  std::string commit;    // git describe --always --dirty --tags of the source tree at configure time, or "unknown"
  std::string mpi;       // first line of MPI_Get_library_version
  std::string compiler;  // "GCC 12.2.0" (the compiler's __VERSION__)
  std::string blas;      // the BLAS library the program runs with, "none" without one (see linked_library)
  std::vector<std::pair<std::string, std::string>> env;  // every PROXY_* and OMP_* variable, sorted
  std::optional<double> load_1m;                         // 1-minute load average; none where unknown
  std::string placement;                                 // the placement description of the writing rank

  // The provenance fields as JSON: {"time_utc":...,"env":{...},"load_1m":0.42,...}.
  std::string json() const;
  // ("prov_time_utc", "2026-...") ... in the toolkit's order; env as JSON text; a missing load is "".
  std::vector<std::pair<std::string, std::string>> flat() const;
};

// Everything but placement and blas (placement "unknown", blas "none" until the program sets them).
Provenance collect_provenance();

// The file name of the shared library that defines `symbol` (e.g. &cblas_dgemm -> "libopenblas.so.0",
// with the resolved path after it when a symlink or alternative points elsewhere); "static" when the
// symbol is in the program itself. How a program names the BLAS it really runs with.
std::string linked_library(const void* symbol);

}  // namespace apps
