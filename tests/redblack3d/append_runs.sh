#!/usr/bin/env bash
# append_runs.sh FILE -- COMMAND1... -- COMMAND2...: removes FILE, runs each command (each must exit 0;
# they append run records to FILE), then prints FILE and "lines=N" for expect_output.sh to check.
set -u
file=$1; shift 2
rm -f "$file"
while [ $# -gt 0 ]; do
  command=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do command+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  "${command[@]}" || { echo "append_runs: '${command[*]}' exited $?"; exit 1; }
done
cat "$file"
echo "lines=$(wc -l < "$file")"
