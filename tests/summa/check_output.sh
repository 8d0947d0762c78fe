#!/usr/bin/env bash
# check_output.sh MPIEXEC SUMMA DIR: the driver's --output writes the documented CSV header once and one row
# per run, and a JSON Lines object per run, with the issue's fields and a verified result, then the
# provenance (prov_* columns / a "provenance" object; tests/cli checks their values).
set -eu
mpiexec=$1 summa=$2 dir=$3
mkdir -p "$dir" && rm -f "$dir/runs.csv" "$dir/runs.json"
for mode in sync proxy; do
  "$mpiexec" -n 2 "$summa" --size 24 --panel 5 --mode "$mode" --reps 1 --verify --output "$dir/runs.csv" >/dev/null
done
"$mpiexec" -n 2 "$summa" --m 9 --n 7 --k 5 --grid 2x1 --mode async --reps 1 --verify --output "$dir/runs.json" >/dev/null
header='mode,m,n,k,grid,panel,ranks,threads_per_rank,node_layout,panels,reps,progress,total_s,compute_s,comm_s,wait_s,gflops,ideal_proxy_s,bcast_on_node,bcast_off_node,max_rel_error,verified,prov_time_utc,prov_host,prov_argv,prov_commit,prov_build_type,prov_build_flags,prov_compiler,prov_mpi,prov_hwloc,prov_blas,prov_os,prov_cpu_model,prov_cores,prov_cpus_bound,prov_env,prov_load_1m,prov_placement'
fail() { echo "check_output: $*"; cat "$dir/runs.csv" "$dir/runs.json" 2>/dev/null; exit 1; }
[ "$(head -n 1 "$dir/runs.csv")" = "$header" ] || fail "unexpected CSV header"
[ "$(wc -l < "$dir/runs.csv")" -eq 3 ] || fail "expected a header and 2 rows"
grep -q '^sync,24,24,24,1x2,5,2,1,none,' "$dir/runs.csv" || fail "sync row fields"
grep -q '^proxy,24,24,24,1x2,5,2,' "$dir/runs.csv" || fail "proxy row fields"
[ "$(grep -c ',true,[0-9T:Z-]*,' "$dir/runs.csv")" -eq 2 ] || fail "rows not verified"
[ "$(wc -l < "$dir/runs.json")" -eq 1 ] || fail "expected one JSON line"
grep -q '^{"mode":"async","m":9,"n":7,"k":5,"grid":"2x1",.*"verified":true,"provenance":{"time_utc":.*}}$' "$dir/runs.json" || fail "JSON fields"
echo "check_output: CSV and JSON Lines records as documented"
