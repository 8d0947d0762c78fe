#!/usr/bin/env bash
# launch_mismatch.sh PROGRAM MPI OTHER_LAUNCHER...: a world that is not what the launcher started is refused
# on every process with one line naming the fix, exit 2, before any work. PROGRAM is run as srun's tasks
# would be without the PMI this MPI needs (each process its own one-rank world: srun's variables, no PMI),
# then under the other MPI's launcher (OTHER_LAUNCHER, e.g. "mpiexec.mpich -n 2"; skipped when empty),
# the real cross-MPI mistake. MPI is "MPICH" or "Open MPI": the fix names it.
set -u
program=$1 mpi=$2; shift 2
name=$(basename "$program")
if [ "$mpi" = "Open MPI" ]; then type=pmix; else type=pmi2; fi
failures=0
expect() {  # expect WHAT RC OUTPUT COMMAND...: exit status RC and exactly OUTPUT (may be empty)
  local what=$1 rc_expected=$2 expected=$3; shift 3
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [ "$rc" -ne "$rc_expected" ] || [ "$out" != "$expected" ]; then
    printf '%s: exit code %s (expected %s), output:\n%s\n--- expected:\n%s\n' "$what" "$rc" "$rc_expected" "$out" "$expected"
    failures=$((failures + 1))
  else
    echo "$what: ok"
  fi
}
srun_task() { env SLURM_STEP_NUM_TASKS=$1 SLURM_PROCID=$2 SLURM_LOCALID=$2 "$program"; }
line="$name: error: srun started 2 tasks (SLURM_STEP_NUM_TASKS=2) but MPI sees 1: this $mpi needs srun --mpi=$type (or SLURM_MPI_TYPE=$type)"
expect "srun's task 0 without PMI" 2 "$line" srun_task 2 0
expect "srun's task 1 without PMI (the line is task 0's)" 2 "" srun_task 2 1
# One task is one rank: it runs (its output is the program's, checked only for the absence of the line).
out=$(srun_task 1 0 2>&1); rc=$?
if [ "$rc" -ne 0 ] || printf '%s\n' "$out" | grep -q "but MPI sees"; then
  printf 'a one-task step: exit code %s, output:\n%s\n' "$rc" "$out"; failures=$((failures + 1))
else
  echo "a one-task step runs: ok"
fi
if [ $# -gt 0 ]; then
  case "$1" in
    *mpich* | *hydra*) other="mpiexec started 2 processes (PMI_SIZE=2)" ;;
    *) other="mpirun started 2 processes (OMPI_COMM_WORLD_SIZE=2)" ;;
  esac
  out=$("$@" "$program" 2>&1); rc=$?
  expected="$name: error: $other but MPI sees 1: launch with the mpiexec of the MPI this program was built with ($mpi)"
  if [ "$rc" -eq 0 ] || [ "$(printf '%s\n' "$out" | grep -c "but MPI sees")" -ne 1 ] ||
     ! printf '%s\n' "$out" | grep -Fxq -- "$expected"; then
    printf 'under %s: exit code %s, output:\n%s\n--- expected once, exactly:\n%s\n' "$*" "$rc" "$out" "$expected"
    failures=$((failures + 1))
  else
    echo "under $*: ok"
  fi
fi
exit $((failures > 0))
