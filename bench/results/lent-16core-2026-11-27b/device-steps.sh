#!/bin/bash
# Device run (2026-11-27, second lease of the day). 7139a4a's build against the same build with no pause
# after a progress pass the waiter ran itself ("-new": cooperative wait() and the node path's wait_until):
# the 8 B round trip confined to 2 cores and on 16, the node allreduce on 2 x 8 and 4 x 4, then CG with the
# new build on 1 x 16 (5 runs per cell) and on 4 emulated nodes x 4 cores. Call 3 (steps setup ab full), with
# cg3d-new now the build that sums dot products per plane instead of per row: mt and proxy, both variants,
# 7139a4a against it in alternated rounds, then every mode with it.
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
  for rep in 1 2 3 4 5 6; do for v in bench_plan_roundtrip bench_plan_roundtrip-new; do
    el "round trip, 2 ranks on cores 0,1, $v rep $rep"
    taskset -c 0,1 $PM -n 2 $B/$v --benchmark_filter='ProxyOverDirect/bytes:8/' 2>&1 | grep -E "^BM_" | grep -oE "direct_ns=[0-9.]+k? proxy_ns=[0-9.]+k? proxy_over_direct=[0-9.]+"; done; done
  for rep in 1 2 3; do for v in bench_plan_roundtrip bench_plan_roundtrip-new; do
    el "round trip, 2 ranks on 16 cores, $v rep $rep"
    $PM -n 2 $B/$v --benchmark_filter='ProxyOverDirect/bytes:8/' 2>&1 | grep -E "^BM_" | grep -oE "direct_ns=[0-9.]+k? proxy_ns=[0-9.]+k? proxy_over_direct=[0-9.]+"; done; done ;;
nab)
  for rep in 1 2 3; do for spec in 2x8 4x4; do for v in bench_node_allreduce bench_node_allreduce-new; do
    [ $(left) -lt 15 ] && continue; r=${spec%x*}; t=${spec#*x}
    el "node allreduce $spec $v rep $rep"; timeout 40 $PM -n $r $B/$v --threads $t --max-bytes 256K 2>&1 | tail -7; done; done; done ;;
cg116) for rep in 1 2; do [ $(left) -lt 70 ] && continue; el "cg 1x16 rep $rep"; mkdir -p $W/cg-1x16-$rep; timeout $(( $(left) < 120 ? $(left) : 120 )) apps/cg3d/compare --driver $PWD/$B/cg3d-new --cores 16 --n 128 --reps 5 --output $W/cg-1x16-$rep/cg.csv > $W/cg-1x16-$rep/console.txt 2>&1; el "rc $?"; grep -A9 "^Mode" $W/cg-1x16-$rep/console.txt | head -10; tail -8 $W/cg-1x16-$rep/console.txt; done; tar -czf $OUT/cg-1x16.tgz -C $W . ;;
cg44) for rep in 1 2; do [ $(left) -lt 60 ] && continue; el "cg 4x4 rep $rep"; mkdir -p $W/cg-4x4-$rep; timeout $(( $(left) < 150 ? $(left) : 150 )) bench/emulated-cluster --nodes 4 --cores-per-node 4 --launcher -- apps/cg3d/compare --driver $PWD/$B/cg3d-new --nodes 4 --cores 4 --n 128 --reps 3 --output $W/cg-4x4-$rep/cg.csv > $W/cg-4x4-$rep/console.txt 2>&1; el "rc $?"; grep -A9 "^Mode" $W/cg-4x4-$rep/console.txt | head -10; tail -8 $W/cg-4x4-$rep/console.txt; done; tar -czf $OUT/cg-4x4.tgz -C $W . ;;
ab)
  for rep in 1 2 3; do for v in cg3d cg3d-new; do [ $(left) -lt 40 ] && continue
    el "cg 1x16 mt,proxy $v rep $rep"; timeout 60 apps/cg3d/compare --driver $PWD/$B/$v --cores 16 --n 128 --reps 3 --modes mt,proxy 2>&1 | grep -E "^(proxy|mt) "; done
    for v in cg3d cg3d-new; do [ $rep = 3 ] && continue; [ $(left) -lt 40 ] && continue
    el "cg 4x4 mt,proxy $v rep $rep"; timeout 60 bench/emulated-cluster --nodes 4 --cores-per-node 4 --launcher -- apps/cg3d/compare --driver $PWD/$B/$v --nodes 4 --cores 4 --n 128 --reps 3 --modes mt,proxy 2>&1 | grep -E "^(proxy|mt) "; done; done ;;
full)
  [ $(left) -gt 50 ] && { el "cg 1x16 all modes cg3d-new"; timeout 60 apps/cg3d/compare --driver $PWD/$B/cg3d-new --cores 16 --n 128 --reps 3 --output $W/full-1x16.csv 2>&1 | grep -A20 "^Mode"; }
  [ $(left) -gt 55 ] && { el "cg 4x4 all modes cg3d-new"; timeout 70 bench/emulated-cluster --nodes 4 --cores-per-node 4 --launcher -- apps/cg3d/compare --driver $PWD/$B/cg3d-new --nodes 4 --cores 4 --n 128 --reps 3 --output $W/full-4x4.csv 2>&1 | grep -A20 "^Mode"; }
  cp $W/full-*.csv $OUT/ 2>/dev/null ;;
esac
done
el done
