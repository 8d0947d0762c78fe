#!/usr/bin/env bash
# calibrate_outputs.sh WORKDIR CALIBRATE: calibrate's --output and --csv checked before measuring and written
# where they name. A symbolic link into a missing folder is refused (it passed, and the write failed after the
# measurements); a link is written through, the link kept (the model's temporary file was renamed over the
# link); a 255-byte name is written (the temporary's name, the model's plus ".tmp-PID", was too long: exit 1
# after measuring). --output and --csv naming one file (the model replaced the table) and either with
# --predict-only (ignored without a word) are usage errors. Each case names what it expects; the first failure
# ends the script with 1.
set -u
work=$1 calibrate=$2
rm -rf "$work"; mkdir -p "$work"
script=calibrate_outputs
. "$(dirname "$0")/expect_cases.sh"
quick=("$calibrate" --threads 2 --sizes 8 --iters 5)
# Links into a missing folder: exit 2 before measuring (no parameters printed), naming link and target.
ln -s "$work/missing/c.model" "$work/dangling.model"
ln -s "$work/missing/c.csv" "$work/dangling.csv"
no_directory="directory '$work/missing': No such file or directory$"
expect 2 "^calibrate: error: --output $work/dangling.model: a symbolic link to '$work/missing/c.model': $no_directory" \
  "${quick[@]}" --output "$work/dangling.model"
expect 2 "^calibrate: error: --csv $work/dangling.csv: a symbolic link to '$work/missing/c.csv': $no_directory" \
  "${quick[@]}" --output "$work/new.model" --csv "$work/dangling.csv"
[ ! -e "$work/new.model" ] && [ ! -e "$work/missing" ] || fail "a refused run wrote: $(ls -lR "$work")"
# Links into a folder that exists, relative, to files not there yet: written through, the links kept; then
# the existing model replaced (--force) through its link.
mkdir "$work/models"
ln -s models/c.model "$work/link.model"; ln -s models/c.csv "$work/link.csv"
expect 0 "^wrote model to $work/link.model " "${quick[@]}" --output "$work/link.model" --csv "$work/link.csv"
expect 0 "^wrote model to $work/link.model " "${quick[@]}" --output "$work/link.model" --force
[ -L "$work/link.model" ] && [ -L "$work/link.csv" ] || fail "a link was replaced by a file: $(ls -l "$work")"
grep -q '^a_alpha ' "$work/models/c.model" || fail "no model in the link's target: $(ls -lR "$work")"
grep -q '^bytes,algorithm,' "$work/models/c.csv" || fail "no table in the link's target: $(ls -lR "$work")"
# The longest legal name (255 bytes).
longest=$work/$(printf 'm%.0s' $(seq 255))
expect 0 "^wrote model to $longest " "${quick[@]}" --output "$longest"
grep -q '^a_alpha ' "$longest" || fail "no model in the 255-byte name"
! ls -A "$work" "$work/models" | grep -q '\.tmp' || fail "a temporary model was left: $(ls -AR "$work")"
# One file for both: refused before measuring, under any spelling (the same name, another path to it, a link,
# a hard link to an existing model), nothing written.
same="are the same file \\(the model would replace the table\\): give two files$"
one=$work/one.model
expect 2 "^calibrate: error: --output $one and --csv $one $same" "${quick[@]}" --output "$one" --csv "$one"
expect 2 "^calibrate: error: --output $one and --csv $work/./one.model $same" \
  "${quick[@]}" --output "$one" --csv "$work/./one.model"
ln -s one.model "$work/one-link.csv"
expect 2 "^calibrate: error: --output $one and --csv $work/one-link.csv $same" \
  "${quick[@]}" --output "$one" --csv "$work/one-link.csv"
[ ! -e "$one" ] || fail "a refused run wrote $one"
ln "$work/models/c.model" "$work/hard.csv"
expect 2 "^calibrate: error: --output $work/link.model and --csv $work/hard.csv $same" \
  "${quick[@]}" --output "$work/link.model" --csv "$work/hard.csv" --force
# --predict-only measures and writes nothing: --output and --csv with it are refused, not ignored.
writes_nothing="is written only by a calibration \\(--predict-only measures and writes nothing\\)$"
expect 2 "^calibrate: error: --csv $work/p.csv $writes_nothing" \
  "$calibrate" --predict-only --sizes 8 --csv "$work/p.csv"
expect 2 "^calibrate: error: --output $work/p.model $writes_nothing" \
  "$calibrate" --predict-only --sizes 8 --output "$work/p.model"
[ ! -e "$work/p.csv" ] && [ ! -e "$work/p.model" ] || fail "--predict-only wrote a file: $(ls "$work")"
echo "calibrate_outputs: all cases passed"
