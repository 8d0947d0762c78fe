#!/usr/bin/env bash
# stop_rank.sh REGEX MPIEXEC... -- DRIVER ARGS...: runs DRIVER on two ranks (MPMD, rank 1 through a wrapper
# that records its pid), stops rank 1 with SIGSTOP once it has used a second of CPU time (so it computes in
# the loop: both ranks are past the set-up, whose waits are not CPU-bound), and passes when the job then ends by itself with a non-zero exit and a line matching REGEX.
# The driver's wait timeout (PROXY_WAIT_TIMEOUT, short in the test's environment) must end it; CTest's
# TIMEOUT catches a hang. The stopped rank is continued and killed on every exit path.
set -u
regex=$1; shift
launcher=()
while [ "$1" != "--" ]; do launcher+=("$1"); shift; done
shift
work=$(mktemp -d)
pidfile=$work/rank1.pid
cleanup() {
  if [ -s "$pidfile" ]; then kill -CONT "$(cat "$pidfile")" 2>/dev/null; kill -KILL "$(cat "$pidfile")" 2>/dev/null; fi
  rm -rf "$work"
}
trap cleanup EXIT
"${launcher[@]}" -n 1 "$@" : -n 1 bash -c 'echo $$ > "$0"; exec "$@"' "$pidfile" "$@" >"$work/out" 2>&1 &
job=$!
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
ticks_per_second=$(getconf CLK_TCK)
for _ in $(seq 1200); do
  if ! kill -0 $job 2>/dev/null; then break; fi
  if [ -s "$pidfile" ] && [ "$(cpu_ticks "$(cat "$pidfile")")" -ge "$ticks_per_second" ]; then break; fi
  sleep 0.1
done
kill -STOP "$(cat "$pidfile")"
wait $job; rc=$?
cat "$work/out"
if [ "$rc" -eq 0 ]; then echo "stop_rank: the job exited 0, expected a failure"; exit 1; fi
if ! grep -Eq -- "$regex" "$work/out"; then echo "stop_rank: exit code $rc but no line matches: $regex"; exit 1; fi
echo "stop_rank: exit code $rc and a line matches as expected"
