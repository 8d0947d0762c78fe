// The launcher's count of processes and the check of MPI_COMM_WORLD against it (launch.hpp).
#include "launch.hpp"

#include <mpi.h>

#include <cstdlib>
#include <string>

#include "proxy/detail/counted.hpp"

namespace proxy {

namespace {

// A count the launcher set: a positive integer, else not a count (nothing is refused on a guess).
std::optional<int> count_from(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return std::nullopt;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 0 || value > (1L << 30)) return std::nullopt;
  return static_cast<int>(value);
}

// This build's MPI, as the fix names it.
const char* this_mpi() {
#if defined(OMPI_MAJOR_VERSION)
  return "Open MPI";
#elif defined(MPICH_VERSION)
  return "MPICH";
#else
  return "MPI library";
#endif
}

}  // namespace

std::optional<LaunchCount> launch_count() {
  const auto from = [](const char* launcher, const char* size, const char* rank) -> std::optional<LaunchCount> {
    const auto processes = count_from(size);
    if (!processes || *processes < 1) return std::nullopt;
    const auto index = count_from(rank);
    return LaunchCount{launcher, size, *processes, index ? *index : -1};
  };
  if (auto hydra = from("mpiexec", "PMI_SIZE", "PMI_RANK")) return hydra;
  if (auto open_mpi = from("mpirun", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK")) return open_mpi;
  if (count_from("SLURM_PROCID") && count_from("SLURM_LOCALID"))
    if (auto slurm = from("srun", "SLURM_STEP_NUM_TASKS", "SLURM_PROCID")) return slurm;
  return std::nullopt;
}

std::string launch_problem(const std::optional<LaunchCount>& count, int world_size) {
  if (!count || count->processes == world_size) return "";
  const bool srun = count->launcher == "srun";
  const int n = count->processes;
  const std::string line = count->launcher + " started " +
                           (srun ? detail::counted(n, "task") : detail::counted(n, "process", "processes")) + " (" +
                           count->variable + "=" + std::to_string(n) + ") but MPI sees " + std::to_string(world_size) +
                           ": ";
  const std::string mpi = this_mpi();
  if (srun) {
    const char* type = mpi == "Open MPI" ? "pmix" : "pmi2";
    return line + "this " + mpi + " needs srun --mpi=" + type + " (or SLURM_MPI_TYPE=" + type + ")";
  }
  return line + "launch with the mpiexec of the MPI this program was built with (" + mpi + ")";
}

}  // namespace proxy
