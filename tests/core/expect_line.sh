#!/usr/bin/env bash
# expect_line.sh RUNS RC LINE COMMAND...: runs COMMAND RUNS times; every run must exit with status RC
# ("nonzero": any failure, for jobs ended by MPI_Abort, whose status the launcher chooses) and print LINE
# as one whole line of its combined output (never cut short, never lost). CTest's TIMEOUT bounds the time.
set -u
runs=$1 rc_expected=$2 line=$3; shift 3
for ((run = 1; run <= runs; ++run)); do
  out=$("$@" 2>&1); rc=$?
  if [ "$rc_expected" = nonzero ]; then rc_ok=$((rc != 0)); else rc_ok=$((rc == rc_expected)); fi
  if [ "$rc_ok" -ne 1 ] || ! printf '%s\n' "$out" | grep -Fxq -- "$line"; then
    printf '%s\n' "$out"
    echo "expect_line: run $run of $runs: exit code $rc (expected $rc_expected), expected the whole line: $line"
    exit 1
  fi
done
printf '%s\n' "$out"
echo "expect_line: $runs run(s), each exit code $rc and the expected line"
