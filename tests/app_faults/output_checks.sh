#!/usr/bin/env bash
# output_checks.sh WORKDIR REDBLACK3D SUMMA MPIEXEC...: --output is checked before any computation and
# records are written whole. Each case names what it expects; the first failure ends the script with 1.
set -u
work=$1 rb=$2 summa=$3; shift 3
launcher=("$@")
rm -rf "$work"; mkdir -p "$work"
script=output_checks
. "$(dirname "$0")/expect_cases.sh"
rb2=("${launcher[@]}" -n 2 "$rb" --n 10 --iters 2)
# A missing directory, a directory, a device, a bad extension: exit 2 on every rank, before the run
# (no timing table printed), with the reason.
expect 2 "^redblack3d: error: --output $work/missing/runs.csv: directory '$work/missing': No such file or directory$" \
  "${rb2[@]}" --output "$work/missing/runs.csv"
mkdir "$work/d.csv"
expect 2 "^redblack3d: error: --output $work/d.csv: is a directory$" "${rb2[@]}" --output "$work/d.csv"
ln -s /dev/zero "$work/zero.csv"
expect 2 "^summa: error: --output $work/zero.csv: is not a regular file \(a device, pipe or socket\)$" \
  "${launcher[@]}" -n 1 "$summa" --size 32 --output "$work/zero.csv"
expect 2 "^redblack3d: error: --output: unknown file type '$work/runs.txt' \(expected .csv, .json or .jsonl\)$" \
  "${rb2[@]}" --output "$work/runs.txt"
mkfifo "$work/pipe.csv"  # opening it to append would wait for a reader, after the run
expect 2 "^redblack3d: error: --output $work/pipe.csv: is not a regular file \(a device, pipe or socket\)$" \
  "${rb2[@]}" --output "$work/pipe.csv"
# A folder where creating is refused although access() allows it (root in sysfs; a container may mount it
# read-only): a file is created and removed up front, so the run does not compute and then fail to open its
# record (exit 1, before).
sysfs_refusal="(Permission denied|Read-only file system)"
expect 2 "^redblack3d: error: --output /sys/proxy-output-check.csv: cannot create a file in '/sys': $sysfs_refusal$" \
  "${rb2[@]}" --output /sys/proxy-output-check.csv
# A file that cannot be written, said why, before the run. Permissions do not stop root: as root the file
# lies on a read-only bind mount in a mount namespace of the run's own (unshare -m).
mkdir "$work/ro"; touch "$work/ro/ro.csv"
if [ "$(id -u)" -ne 0 ]; then
  chmod a-w "$work/ro/ro.csv"
  expect 2 "^redblack3d: error: --output $work/ro/ro.csv: cannot be written: Permission denied$" \
    "${rb2[@]}" --output "$work/ro/ro.csv"
elif unshare -m true 2>/dev/null; then
  expect 2 "^redblack3d: error: --output $work/ro/ro.csv: cannot be written: Read-only file system$" \
    unshare -m sh -c 'mount --bind -o ro "$0" "$0" && shift && exec "$@"' "$work/ro" _ \
    "${rb2[@]}" --output "$work/ro/ro.csv"
else
  echo "output_checks: note: running as root without unshare -m: the read-only case is skipped"
fi
[ ! -s "$work/ro/ro.csv" ] || fail "the refused run wrote into $work/ro/ro.csv"
# Another program's CSV: refused up front, naming both headers; the file is unchanged.
expect 0 "" "${rb2[@]}" --output "$work/rb.csv"
before=$(md5sum < "$work/rb.csv")
expect 2 "^summa: error: --output $work/rb.csv: its CSV header \(mode,n,nx,.*\) differs from this program's columns \(mode,m,n,k,.*\); choose another file$" \
  "${launcher[@]}" -n 1 "$summa" --size 32 --output "$work/rb.csv"
[ "$(md5sum < "$work/rb.csv")" = "$before" ] || fail "the refused run changed $work/rb.csv"
[ ! -e "$work/missing" ] || fail "a refused run created $work/missing"
! ls -a "$work" | grep -q proxy-output-probe || fail "a probe file was left in $work: $(ls -a "$work")"
# Two runs creating one new CSV at once: one header, two rows, whole lines. Under Open MPI each job gets a
# session directory tree of its own, as each test does (cmake/ProxyMpiTest.cmake: one job ending removes the
# shared tree while the other creates it; seen once in a clean clone's suite, "first concurrent run failed").
sessions=()
[ -z "${OMPI_MCA_orte_tmpdir_base:-}" ] || sessions=(env "OMPI_MCA_orte_tmpdir_base=$OMPI_MCA_orte_tmpdir_base/first")
"${sessions[@]}" "${rb2[@]}" --output "$work/two.csv" >"$work/first.out" 2>&1 & first=$!
"${rb2[@]}" --output "$work/two.csv" >"$work/second.out" 2>&1 || fail "second concurrent run failed: $(cat "$work/second.out")"
wait $first || fail "first concurrent run failed: $(cat "$work/first.out")"
[ "$(grep -c '^mode,' "$work/two.csv")" -eq 1 ] || fail "$(cat "$work/two.csv")"
[ "$(grep -c '^sync,' "$work/two.csv")" -eq 2 ] || fail "$(cat "$work/two.csv")"
# A JSON Lines file of this program whose last record is torn (no newline): the new record starts on a line
# of its own and the torn line stays as it was.
expect 0 "" "${rb2[@]}" --output "$work/torn.jsonl"
printf '{"mode":"sy' >> "$work/torn.jsonl"
expect 0 "" "${rb2[@]}" --output "$work/torn.jsonl"
[ "$(wc -l < "$work/torn.jsonl")" -eq 3 ] || fail "$(cat "$work/torn.jsonl")"
[ "$(sed -n 2p "$work/torn.jsonl")" = '{"mode":"sy' ] || fail "$(cat "$work/torn.jsonl")"
[ "$(grep -c '^{"mode":"sync",.*}$' "$work/torn.jsonl")" -eq 2 ] || fail "$(cat "$work/torn.jsonl")"
# Another program's JSON Lines, and JSON that is not JSON Lines (a pretty-printed document): refused before the
# run, naming both programs' keys or the first line; the file is unchanged.
before=$(md5sum < "$work/torn.jsonl")
expect 2 "^summa: error: --output $work/torn.jsonl: its first record's keys \(mode,n,nx,.*\) differ from this program's \(mode,m,n,k,.*\); choose another file$" \
  "${launcher[@]}" -n 1 "$summa" --size 32 --output "$work/torn.jsonl"
[ "$(md5sum < "$work/torn.jsonl")" = "$before" ] || fail "the refused run changed $work/torn.jsonl"
printf '{\n  "runs": []\n}\n' > "$work/document.json"
expect 2 "^redblack3d: error: --output $work/document.json: its first line is not a JSON object \(\{\); choose another file$" \
  "${rb2[@]}" --output "$work/document.json"
[ "$(cat "$work/document.json")" = "$(printf '{\n  "runs": []\n}')" ] || fail "the refused run changed $work/document.json"
# A CSV whose last line lacks its newline: the new row starts on a line of its own; nothing is lost.
expect 0 "" "${rb2[@]}" --output "$work/cut.csv"
truncate -s -1 "$work/cut.csv"
expect 0 "" "${rb2[@]}" --output "$work/cut.csv"
[ "$(wc -l < "$work/cut.csv")" -eq 3 ] || fail "$(cat "$work/cut.csv")"
[ "$(grep -c '^sync,' "$work/cut.csv")" -eq 2 ] || fail "$(cat "$work/cut.csv")"
# A file another process keeps locked, in either format: refused before the run (no table), naming the
# holder, within a bound.
for held in "$work/held.csv" "$work/held.jsonl"; do
  : > "$held"
  flock "$held" sleep 120 >/dev/null 2>&1 & holder=$!
  trap 'kill $holder 2>/dev/null' EXIT
  for _ in $(seq 100); do grep -q " $holder " /proc/locks 2>/dev/null && break; sleep 0.1; done
  expect 2 "^redblack3d: error: --output '$held' is locked by process [0-9]+ \\((flock|sleep)\\); waited 2 s$" \
    "${rb2[@]}" --output "$held"
  kill $holder 2>/dev/null; wait $holder 2>/dev/null
  [ ! -s "$held" ] || fail "the refused run wrote into $held"
done
echo "output_checks: all cases passed"
