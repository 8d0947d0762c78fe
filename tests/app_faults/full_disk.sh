#!/usr/bin/env bash
# full_disk.sh WORKDIR SOURCE_DIR REDBLACK3D CALIBRATE SUMMA: outputs on a full file system are refused
# before any work, by every program that writes one (exit 2, the free bytes named, nothing created), and a
# write that fails after the work (a file-size limit) is exit 1, naming the file, leaving an existing file
# as it was and no partial one. The full file system is a 64 KiB tmpfs, filled, in a mount namespace of
# the script's own (unshare -m as root, unshare -rm otherwise); where neither is allowed the script skips
# (exit 77). Each case names what it expects; the first failure ends the script with 1.
set -u
work=$1 src=$2 rb=$3 calibrate=$4 summa=$5
if [ -z "${FULL_DISK_NAMESPACE:-}" ]; then
  rm -rf "$work"; mkdir -p "$work/full"
  for flags in -m -rm; do
    if unshare $flags true 2>/dev/null; then
      FULL_DISK_NAMESPACE=1 exec unshare $flags "$0" "$@"
    fi
  done
  echo "full_disk: note: no mount namespace allowed here (unshare -m, unshare -rm): skipped"
  exit 77
fi
script=full_disk
. "$(dirname "$0")/expect_cases.sh"
full=$work/full
mount -t tmpfs -o size=64k tmpfs "$full" || fail "cannot mount a tmpfs on $full"
dd if=/dev/zero of="$full/filler" bs=4k 2>/dev/null  # until the file system is full
[ "$(stat -f -c %a "$full")" -eq 0 ] || fail "$full is not full: $(df "$full")"
no_room="its file system has 0 bytes free \(at least 65536 needed\)$"

# The C++ programs (apps::unwritable_reason): before the run, no table printed.
expect 2 "^redblack3d: error: --output $full/r.csv: $no_room" "$rb" --n 8 --iters 2 --output "$full/r.csv"
expect 2 "^summa: error: --output $full/s.jsonl: $no_room" "$summa" --size 32 --output "$full/s.jsonl"
expect 2 "^calibrate: error: --output $full/c.model: $no_room" "$calibrate" --threads 2 --output "$full/c.model"
expect 2 "^calibrate: error: --csv $full/c.csv: $no_room" \
  "$calibrate" --threads 2 --output "$work/c.model" --csv "$full/c.csv"
# The Python tools (cli.check_room): before any run.
tool_room="its file system has 0 bytes free \(at least 65536 needed\)$"
expect 2 "^sweep: error: --out '$full/sweep': $tool_room" \
  "$src/apps/sweep" --driver "$rb" --param n 8 --param iters 2 --reps 1 --launcher none --out "$full/sweep"
expect 2 "^compare: error: --output '$full/c.csv': $tool_room" \
  "$src/apps/redblack3d/compare" --driver "$rb" --n 8 --iters 2 --output "$full/c.csv"
expect 2 "^compare-panels: error: --plot '$full/p.png': $tool_room" \
  "$src/apps/summa/compare-panels.py" --driver "$summa" --size 32 --panels 8 --plot "$full/p.png"
expect 0 "" "$src/apps/sweep" --driver "$rb" --param n 8 --param iters 2 --reps 1 --launcher none --out "$work/sweep"
expect 2 "^plot: error: --out '$full/figures': $tool_room" "$src/apps/plot" --summary "$work/sweep" --out "$full/figures"
[ "$(ls -A "$full")" = filler ] || fail "a refused run left files on the full file system: $(ls -A "$full")"

# A write that fails after the work (RLIMIT_FSIZE 0, SIGXFSZ ignored: every write fails with EFBIG): exit 1,
# the file named; an existing model is kept as it was and no partial file is left.
printf 'a_alpha 1e-6\n' > "$work/kept.model"
expect 1 "^calibrate: error: --output: cannot write collective model file '$work/kept.model': File too large$" \
  bash -c 'trap "" XFSZ; ulimit -f 0; exec "$@"' _ "$calibrate" --threads 2 --sizes 8 --output "$work/kept.model" --force
[ "$(cat "$work/kept.model")" = "a_alpha 1e-6" ] || fail "the failed write changed $work/kept.model"
expect 1 "^calibrate: error: --csv $work/table.csv: cannot be written: File too large$" \
  bash -c 'trap "" XFSZ; ulimit -f 0; exec "$@"' _ "$calibrate" --threads 2 --sizes 8 --output "$work/new.model" \
  --csv "$work/table.csv"
[ ! -e "$work/table.csv" ] && [ ! -e "$work/new.model" ] || fail "a failed write left $(ls "$work")"
! ls -A "$work" | grep -q '\.tmp' || fail "a temporary model was left in $work: $(ls -A "$work")"
echo "full_disk: all cases passed"
