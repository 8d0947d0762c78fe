#!/bin/bash
# Device run (2026-11-27 lease). Call 1: 8 B round trip, node allreduce with only the team root driving
# cooperative progress in wait (PROXY_EXP_E1=1) against every thread driving (=0), CG on 1 x 16 and 4 x 4
# emulated. Call 2: the round trip on 16 cores, the root-drives change (bench_node_allreduce-new) against
# 8c17f72's bench_node_allreduce, calibrate on 16 threads with buffers reused (calibrate-pool) or not.
# Call 3: old (8c17f72), e1 (the root alone drives), new (others drive after their spin count without the root).
exec > >(tee -a $OUT/console.txt) 2>&1
T0=$(date +%s); DEADLINE=${DEADLINE:-420}
el() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
left() { echo $(( DEADLINE - ($(date +%s) - T0) )); }
W=/tmp/w; mkdir -p $W
B=build/bin; PM=build/bin/proxy-mpiexec
for step in "$@"; do
[ $(left) -lt 20 ] && { el "skip $step: deadline"; continue; }
case $step in
setup)
  el probe; nproc; lscpu | grep -E "Model name|L2|L3|NUMA node"; cat /proc/loadavg; date -u
  mkdir -p /tmp/b && tar -xJf .dev/bundle.tar.xz -C /tmp/b && rm -rf /opt/proxydev && cp -a /tmp/b/opt/proxydev /opt/ && mkdir -p build && cp -a /tmp/b/build/bin build/ || { echo "bundle install failed"; exit 3; }
  for n in mpiexec mpiexec.mpich mpiexec.hydra; do ln -sf /opt/proxydev/bin/mpiexec.hydra /usr/bin/$n; done
  ln -sf /opt/proxydev/bin/hydra_pmi_proxy /usr/bin/hydra_pmi_proxy
  for t in ip tc; do command -v $t > /dev/null || ln -sf /opt/proxydev/sbin/$t /usr/local/bin/$t; done
  $PM -n 4 $B/redblack3d --n 48 --verify 2>&1 | tail -1 || { echo "sanity run failed"; exit 4; }
  el setup-done ;;
rt)
  for rep in 1 2 3; do el "round trip, 2 ranks on cores 0,1, rep $rep"
    taskset -c 0,1 $PM -n 2 $B/bench_plan_roundtrip --benchmark_filter='ProxyOverDirect/bytes:8/' 2>&1 | grep -E "^BM_" | grep -oE "direct_ns=[0-9.]+ proxy_ns=[0-9.]+ proxy_over_direct=[0-9.]+"; done
  for rep in 1 2 3; do el "round trip, 2 ranks on 16 cores, rep $rep"
    $PM -n 2 $B/bench_plan_roundtrip --benchmark_filter='ProxyOverDirect/bytes:8/' 2>&1 | grep -E "^BM_" | grep -oE "direct_ns=[0-9.]+ proxy_ns=[0-9.]+ proxy_over_direct=[0-9.]+|medians.*"; done ;;
nab)
  for rep in 1 2 3; do for spec in 2x8 4x4 2x7 1x16; do for e in 0 1; do
    [ $(left) -lt 15 ] && continue; r=${spec%x*}; t=${spec#*x}
    el "node allreduce $spec E1=$e rep $rep"; PROXY_EXP_E1=$e timeout 40 $PM -n $r $B/bench_node_allreduce-e1 --threads $t --max-bytes 8K 2>&1 | tail -3; done; done; done ;;
cg116) for rep in 1 2; do [ $(left) -lt 60 ] && continue; el "cg 1x16 rep $rep"; mkdir -p $W/cg-1x16-$rep; timeout $(( $(left) < 100 ? $(left) : 100 )) apps/cg3d/compare --cores 16 --n 128 --reps 3 --output $W/cg-1x16-$rep/cg.csv > $W/cg-1x16-$rep/console.txt 2>&1; el "rc $?"; grep -A9 "^Mode" $W/cg-1x16-$rep/console.txt | head -10; tail -8 $W/cg-1x16-$rep/console.txt; done; tar -czf $OUT/cg-1x16.tgz -C $W . ;;
cg44) el "cg 4x4"; mkdir -p $W/cg-4x4; timeout $(( $(left) < 200 ? $(left) : 200 )) bench/emulated-cluster --nodes 4 --cores-per-node 4 --launcher -- apps/cg3d/compare --nodes 4 --cores 4 --n 128 --reps 3 --output $W/cg-4x4/cg.csv > $W/cg-4x4/console.txt 2>&1; el "rc $?"; grep -A9 "^Mode" $W/cg-4x4/console.txt | head -10; tail -8 $W/cg-4x4/console.txt; tar -czf $OUT/cg-4x4.tgz -C $W cg-4x4 ;;
rt16)
  for rep in 1 2 3; do el "round trip, 2 ranks on 16 cores, rep $rep"
    $PM -n 2 $B/bench_plan_roundtrip --benchmark_filter='ProxyOverDirect/bytes:8/' 2>&1 | grep -E "^BM_"; done ;;
nab2)
  for rep in 1 2 3; do for spec in 2x8 4x4 2x7; do for v in bench_node_allreduce bench_node_allreduce-new; do
    [ $(left) -lt 15 ] && continue; r=${spec%x*}; t=${spec#*x}
    el "node allreduce $spec $v rep $rep"; timeout 40 $PM -n $r $B/$v --threads $t --max-bytes 8M 2>&1 | tail -5; done; done; done ;;
calib)
  for rep in 1 2; do for v in plain pool; do [ $(left) -lt 70 ] && continue
    el "calibrate 16 threads $v rep $rep"; mkdir -p $W/calib
    if [ $v = pool ]; then env PROXY_EXP_POOL=1 timeout 120 $B/calibrate-pool --threads 16 --output $W/calib/$v-$rep.model --force --csv $W/calib/$v-$rep.csv > $W/calib/$v-$rep.txt 2>&1
    else timeout 120 $B/calibrate --threads 16 --output $W/calib/$v-$rep.model --force --csv $W/calib/$v-$rep.csv > $W/calib/$v-$rep.txt 2>&1; fi
    el "rc $?"; grep -E "vs a second|crossover" $W/calib/$v-$rep.txt; done; done; tar -czf $OUT/calib.tgz -C $W calib ;;
nab3)
  for rep in 1 2 3; do for spec in 2x8 4x4; do for v in old e1 new; do
    [ $(left) -lt 15 ] && continue; r=${spec%x*}; t=${spec#*x}; bin=$B/bench_node_allreduce-new; envs=""
    [ $v = old ] && bin=$B/bench_node_allreduce; [ $v = e1 ] && envs="PROXY_EXP_E1=1"
    el "node allreduce $spec $v rep $rep"; env $envs timeout 40 $PM -n $r $bin --threads $t --max-bytes 256K 2>&1 | tail -4; done; done; done ;;
esac
done
el done
