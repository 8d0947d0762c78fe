#!/usr/bin/env bash
# stop_rank.sh REGEX MPIEXEC... -- DRIVER ARGS...: runs DRIVER on two ranks (MPMD, each through a wrapper that
# records its pid), stops rank 1 with SIGSTOP once both ranks are computing in the loop, and passes when the job
# then ends by itself with a non-zero exit and a line matching REGEX.
# In the loop: with STOP_RANK_PRELOAD set (loop_marker.c, and any other library to preload, colon-separated),
# each rank has made its loop's calls and said so in a marker file. Without it (sanitizer builds, where nothing
# may be preloaded before the sanitizer's runtime), by CPU time: each rank has used a second of it and both used
# CPU in the same half second. CPU time alone did not always tell: a blocking MPI collective spins (MPICH polls),
# so under load a rank waiting in a commit's comparison while its peer computed passed both tests
# (summa_proxy_stopped_rank_times_out at load 8 ended with the commit's line, not the repetition's).
# The driver's wait timeout (PROXY_WAIT_TIMEOUT, short in the test's environment) must end it; CTest's
# TIMEOUT catches a hang. The stopped rank is continued and killed on every exit path.
set -u
regex=$1; shift
launcher=()
while [ "$1" != "--" ]; do launcher+=("$1"); shift; done
shift
work=$(mktemp -d)
pidfile=$work/rank1.pid
pidfile0=$work/rank0.pid
cleanup() {
  if [ -s "$pidfile" ]; then kill -CONT "$(cat "$pidfile")" 2>/dev/null; kill -KILL "$(cat "$pidfile")" 2>/dev/null; fi
  rm -rf "$work"
}
trap cleanup EXIT
markers=$work/markers
mkdir -p "$markers"
export STOP_RANK_MARKER=$markers
preload=${STOP_RANK_PRELOAD:-}
record='echo $$ > "$0"; [ -z "$1" ] || export LD_PRELOAD="$1"; shift; exec "$@"'
"${launcher[@]}" -n 1 bash -c "$record" "$pidfile0" "$preload" "$@" : -n 1 bash -c "$record" "$pidfile" "$preload" "$@" \
  >"$work/out" 2>&1 &
job=$!
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
ticks_per_second=$(getconf CLK_TCK)
window=$((ticks_per_second / 20))  # 0.05 s of CPU time in the last half second: running, not lagging
before0='' before1=''  # the last sample's, half a second ago
for poll in $(seq 1200); do
  if ! kill -0 $job 2>/dev/null; then break; fi
  if [ -n "$preload" ]; then
    if [ -s "$pidfile0" ] && [ -s "$pidfile" ] && [ -e "$markers/$(cat "$pidfile0")" ] &&
       [ -e "$markers/$(cat "$pidfile")" ]; then break; fi
  elif [ -s "$pidfile0" ] && [ -s "$pidfile" ] && [ $((poll % 5)) -eq 0 ]; then
    now0=$(cpu_ticks "$(cat "$pidfile0")") now1=$(cpu_ticks "$(cat "$pidfile")")
    if [ -n "$before0" ] && [ "$now0" -ge "$ticks_per_second" ] && [ "$now1" -ge "$ticks_per_second" ] &&
       [ $((now0 - before0)) -ge "$window" ] && [ $((now1 - before1)) -ge "$window" ]; then break; fi
    before0=$now0 before1=$now1
  fi
  sleep 0.1
done
kill -STOP "$(cat "$pidfile")"
wait $job; rc=$?
cat "$work/out"
if [ "$rc" -eq 0 ]; then echo "stop_rank: the job exited 0, expected a failure"; exit 1; fi
if ! grep -Eq -- "$regex" "$work/out"; then echo "stop_rank: exit code $rc but no line matches: $regex"; exit 1; fi
echo "stop_rank: exit code $rc and a line matches as expected"
