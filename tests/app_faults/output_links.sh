#!/usr/bin/env bash
# output_links.sh WORKDIR REDBLACK3D SUMMA CG3D OVERLAP MPIEXEC...: an --output that is a symbolic link is
# checked as the file it points to, before the run (OVERLAP "none" where the benchmarks are not built). A link
# whose target does not exist was checked in the link's own folder and passed; opening it after the run then
# failed to create the target (exit 1, the work lost). Each case names what it expects; the first failure
# ends the script with 1.
set -u
work=$1 rb=$2 summa=$3 cg3d=$4 overlap=$5; shift 5
launcher=("$@")
rm -rf "$work"; mkdir -p "$work"
script=output_links
. "$(dirname "$0")/expect_cases.sh"
no_directory="a symbolic link to '$work/missing/runs.csv': directory '$work/missing': No such file or directory$"
ln -s "$work/missing/runs.csv" "$work/dangling.csv"
# A link into a folder that does not exist: exit 2 on every rank, before the run, naming link and target.
expect 2 "^redblack3d: error: --output $work/dangling.csv: $no_directory" \
  "${launcher[@]}" -n 2 "$rb" --n 10 --iters 2 --output "$work/dangling.csv"
expect 2 "^summa: error: --output $work/dangling.csv: $no_directory" \
  "${launcher[@]}" -n 1 "$summa" --size 32 --output "$work/dangling.csv"
expect 2 "^cg3d: error: --output $work/dangling.csv: $no_directory" \
  "${launcher[@]}" -n 1 "$cg3d" --n 10 --output "$work/dangling.csv"
if [ "$overlap" != none ]; then
  expect 2 "^overlap: error: --output $work/dangling.csv: $no_directory" \
    "${launcher[@]}" -n 2 "$overlap" --mode async --patterns p2p --sizes 8 --output "$work/dangling.csv"
fi
# A chain of relative links ending in a missing folder: the last target is named.
ln -s dangling.csv "$work/chain.csv"
expect 2 "^redblack3d: error: --output $work/chain.csv: $no_directory" \
  "${launcher[@]}" -n 2 "$rb" --n 10 --iters 2 --output "$work/chain.csv"
# Links that lead round in a loop: refused with the system's reason.
ln -s loop-b.csv "$work/loop-a.csv"; ln -s loop-a.csv "$work/loop-b.csv"
expect 2 "^redblack3d: error: --output $work/loop-a.csv: Too many levels of symbolic links$" \
  "${launcher[@]}" -n 2 "$rb" --n 10 --iters 2 --output "$work/loop-a.csv"
[ ! -e "$work/missing" ] || fail "a refused run created $work/missing"
! ls -a "$work" | grep -q proxy-output-probe || fail "a probe file was left in $work: $(ls -a "$work")"
# A link to a file not there yet in a folder that exists is fine: the record goes to the target, the link
# stays a link (relative, through a chain).
mkdir "$work/records"
ln -s records/runs.csv "$work/through.csv"; ln -s through.csv "$work/through-chain.csv"
expect 0 "" "${launcher[@]}" -n 2 "$rb" --n 10 --iters 2 --output "$work/through-chain.csv"
[ -L "$work/through.csv" ] && [ -L "$work/through-chain.csv" ] || fail "a link was replaced: $(ls -l "$work")"
[ "$(grep -c '^sync,' "$work/records/runs.csv")" -eq 1 ] || fail "no record in the target: $(ls -lR "$work")"
echo "output_links: all cases passed"
