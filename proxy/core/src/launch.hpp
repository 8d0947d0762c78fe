// Private to proxy::core: what the launcher says it started, from the variables it gives each process, to
// refuse a world that is not that (a launcher and an MPI that do not speak the same PMI start every process
// as its own one-rank world: srun without --mpi=pmi2 under MPICH, or one MPI's mpiexec running a program
// built with the other). Read by Environment's set-up, before anything collective beyond MPI_COMM_WORLD.
//
// Thread contract: none (reads the process environment).
#pragma once

#include <optional>
#include <string>

namespace proxy {

struct LaunchCount {
  std::string launcher;  // "mpiexec", "mpirun", "srun": how the message names it
  std::string variable;  // the variable the count came from, e.g. "PMI_SIZE"
  int processes = 0;     // how many it started
  int index = -1;        // which one this is (its rank in the launcher's numbering), -1 if not said
};

// The launcher's count, or nothing when no launcher said (a singleton run, a batch script's own step).
// Hydra's PMI_SIZE and Open MPI's OMPI_COMM_WORLD_SIZE come first: inside a Slurm job they are the MPI
// launch, while the SLURM_* variables describe the srun step that started its daemons. Slurm counts only
// from a task srun started (SLURM_STEP_NUM_TASKS with SLURM_PROCID and SLURM_LOCALID; a batch script has
// SLURM_NTASKS but is one process).
std::optional<LaunchCount> launch_count();

// "" when MPI_COMM_WORLD's size is what the launcher started (or nothing is known); else the line naming
// the fix, e.g. "srun started 2 tasks but MPI sees 1: this MPICH needs srun --mpi=pmi2 (or
// SLURM_MPI_TYPE=pmi2)". Every process of such a launch prints the same: the caller prints it once, from
// the launcher's first process.
std::string launch_problem(const std::optional<LaunchCount>& count, int world_size);

}  // namespace proxy
