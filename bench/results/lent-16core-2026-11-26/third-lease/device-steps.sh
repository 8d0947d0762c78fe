#!/bin/bash
# Device run 3 (2026-11-26 third lease): node allreduce before and after (call 1: a2de583 vs f31b71d; call 2: f31b71d vs strips wired + in place).
exec > >(tee -a $OUT/console.txt) 2>&1
T0=$(date +%s); DEADLINE=${DEADLINE:-400}
el() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
left() { echo $(( DEADLINE - ($(date +%s) - T0) )); }
W=/tmp/w; mkdir -p $W
B=build/bin; PM=build/bin/proxy-mpiexec
for step in "$@"; do
[ $(left) -lt 20 ] && { el "skip $step: deadline"; continue; }
case $step in
setup)
  el probe; nproc; lscpu | grep -E "Model name|L2|L3|NUMA node"; cat /proc/loadavg
  mkdir -p /tmp/b && tar -xJf .dev/bundle.tar.xz -C /tmp/b && rm -rf /opt/proxydev && cp -a /tmp/b/opt/proxydev /opt/ && mkdir -p build && cp -a /tmp/b/build/bin build/ || { echo "bundle install failed"; exit 3; }
  for n in mpiexec mpiexec.mpich mpiexec.hydra; do ln -sf /opt/proxydev/bin/mpiexec.hydra /usr/bin/$n; done
  ln -sf /opt/proxydev/bin/hydra_pmi_proxy /usr/bin/hydra_pmi_proxy
  for t in ip tc; do command -v $t > /dev/null || ln -sf /opt/proxydev/sbin/$t /usr/local/bin/$t; done
  $PM -n 4 $B/redblack3d --n 48 --verify 2>&1 | tail -1 || { echo "sanity run failed"; exit 4; }
  el setup-done ;;
narab)
  for rep in 1 2 3; do specs="1x16 2x8 4x4 2x7 4x3"; [ $rep = 1 ] && specs="$specs 16x1"
    for spec in $specs; do for v in bench_node_allreduce-base bench_node_allreduce; do
      [ $(left) -lt 15 ] && continue; r=${spec%x*}; t=${spec#*x}
      el "$v $r x $t rep $rep"; timeout 40 $PM -n $r $B/$v --threads $t --max-bytes 8M 2>&1 | tail -6; done; done; done ;;
nar44)
  for rep in 1 2; do for t in 3 4; do for v in bench_node_allreduce-base bench_node_allreduce; do
    [ $(left) -lt 40 ] && continue
    el "emulated 4x4 $v 1 rank per node x $t threads rep $rep"
    timeout 60 bench/emulated-cluster --nodes 4 --cores-per-node 4 --ranks-per-node 1 --timeout 55 -- $B/$v --threads $t 2>&1 | tail -6; el "rc $?"; done; done; done ;;
narmodel)
  for rep in 1 2; do for m in builtin calibrated; do
    [ $(left) -lt 15 ] && continue
    if [ $m = calibrated ]; then export PROXY_COLLECTIVE_MODEL=$PWD/.dev/model/16.model; else unset PROXY_COLLECTIVE_MODEL; fi
    el "bench_node_allreduce 1 x 16 model $m rep $rep"; timeout 40 $PM -n 1 $B/bench_node_allreduce --threads 16 --max-bytes 8M 2>&1 | tail -6; done; done
  unset PROXY_COLLECTIVE_MODEL ;;
nar44new)
  for t in 3 4; do [ $(left) -lt 40 ] && continue
    el "emulated 4x4 bench_node_allreduce 1 rank per node x $t threads"
    timeout 60 bench/emulated-cluster --nodes 4 --cores-per-node 4 --ranks-per-node 1 --timeout 55 -- $B/bench_node_allreduce --threads $t --max-bytes 8M 2>&1 | tail -7; el "rc $?"; done ;;
cg44) el "cg 4x4"; mkdir -p $W/cg-4x4; timeout $(( $(left) < 200 ? $(left) : 200 )) bench/emulated-cluster --nodes 4 --cores-per-node 4 --launcher -- apps/cg3d/compare --nodes 4 --cores 4 --n 128 --reps 3 --output $W/cg-4x4/cg.csv > $W/cg-4x4/console.txt 2>&1; el "rc $?"; grep -A9 "^Mode" $W/cg-4x4/console.txt | head -10; tail -8 $W/cg-4x4/console.txt; tar -czf $OUT/cg-4x4.tgz -C $W cg-4x4 ;;
rt)
  for rep in 1 2 3; do el "round trip, 2 ranks on cores 0,1, rep $rep"
    taskset -c 0,1 $PM -n 2 $B/bench_plan_roundtrip --benchmark_filter='bytes:8/' 2>&1 | grep -E "^BM_" | awk '{print $1, $2, $3}'; done
  for rep in 1 2 3; do el "round trip, 2 ranks on 16 cores, rep $rep"
    $PM -n 2 $B/bench_plan_roundtrip --benchmark_filter='bytes:8/' 2>&1 | grep -E "^BM_" | awk '{print $1, $2, $3}'; done ;;
progress)
  for rep in 1 2; do for spec in "2 8" "4 4"; do set -- $spec; for pr in cooperative dedicated polling; do
    [ $(left) -lt 15 ] && continue
    el "bench_node_allreduce $1 x $2 PROXY_PROGRESS=$pr rep $rep"
    PROXY_PROGRESS=$pr timeout 40 $PM -n $1 $B/bench_node_allreduce --threads $2 --max-bytes 8K 2>&1 | tail -4; done; done; done ;;
cg116) el "cg 1x16"; mkdir -p $W/cg-1x16; timeout $(( $(left) < 100 ? $(left) : 100 )) apps/cg3d/compare --cores 16 --n 128 --reps 3 --output $W/cg-1x16/cg.csv > $W/cg-1x16/console.txt 2>&1; el "rc $?"; grep -A9 "^Mode" $W/cg-1x16/console.txt | head -10; tail -8 $W/cg-1x16/console.txt; tar -czf $OUT/cg-1x16.tgz -C $W cg-1x16 ;;
esac
done
el done
