#!/bin/bash
# Device run 2 (2026-11-26 second lease): cache bands of the RedBlack3D kernel, node allreduce, collectives, CG.
exec > >(tee -a $OUT/console.txt) 2>&1
T0=$(date +%s); DEADLINE=${DEADLINE:-540}
el() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
left() { echo $(( DEADLINE - ($(date +%s) - T0) )); }
W=/tmp/w; mkdir -p $W
B=build/bin; PM=build/bin/proxy-mpiexec
rbline() { grep -A1 "^Mode" | tail -1 | awk '{print $1, "total", $2, "compute", $3}'; }
for step in "$@"; do
[ $(left) -lt 20 ] && { el "skip $step: deadline"; continue; }
case $step in
setup)
  el probe; nproc; lscpu | grep -E "Model name|L2|L3|NUMA node"; getconf LEVEL2_CACHE_SIZE; cat /proc/loadavg
  mkdir -p /tmp/b && tar -xJf .dev/bundle.tar.xz -C /tmp/b && rm -rf /opt/proxydev && cp -a /tmp/b/opt/proxydev /opt/ && mkdir -p build && cp -a /tmp/b/build/bin build/ || { echo "bundle install failed"; exit 3; }
  for n in mpiexec mpiexec.mpich mpiexec.hydra; do ln -sf /opt/proxydev/bin/mpiexec.hydra /usr/bin/$n; done
  ln -sf /opt/proxydev/bin/hydra_pmi_proxy /usr/bin/hydra_pmi_proxy
  for t in ip tc; do command -v $t > /dev/null || ln -sf /opt/proxydev/sbin/$t /usr/local/bin/$t; done
  $PM -n 4 $B/redblack3d --n 48 --verify 2>&1 | tail -1 || { echo "sanity run failed"; exit 4; }
  el setup-done ;;
rb)
  for rep in 1 2 3; do for v in redblack3d-base redblack3d; do
    el "$v mt 1x16 rep $rep: $($PM -n 1 $B/$v --mode mt --n 320 --iters 40 --threads 16 2>&1 | rbline)"
    el "$v proxy 1x15 rep $rep: $($PM -n 1 $B/$v --mode proxy --n 320 --iters 40 2>&1 | rbline)"
    el "$v mt 2x8 rep $rep: $($PM -n 2 $B/$v --mode mt --n 320 --iters 40 --threads 8 2>&1 | rbline)"
    el "$v sync 16x1 rep $rep: $($PM -n 16 $B/$v --mode sync --n 320 --iters 40 2>&1 | rbline)"
  done; done
  for v in redblack3d-base redblack3d; do for t in 1 2 4 8; do
    el "$v mt 1x$t: $(taskset -c 0-$((t-1)) $PM -n 1 $B/$v --mode mt --n 320 --iters 20 --threads $t 2>&1 | rbline)"; done; done
  $PM -n 1 $B/redblack3d --mode mt --n 320 --iters 40 --threads 16 --verify 2>&1 | tail -1 ;;
nar)
  for spec in "1 16" "2 8" "4 4" "16 1"; do set -- $spec
    el "bench_node_allreduce $1 ranks x $2 threads"; timeout 60 $PM -n $1 $B/bench_node_allreduce --threads $2 2>&1 | tail -6; done ;;
coll1) el "collectives 1x16"; timeout $(( $(left) < 150 ? $(left) : 150 )) bench/cluster-study --parts collectives --out $W/coll-1x16 > $W/coll-1x16.log 2>&1; el "rc $?"; tail -3 $W/coll-1x16.log; tar -czf $OUT/coll-1x16.tgz -C $W coll-1x16 coll-1x16.log ;;
nar44)
  for spec in "1 4" "1 3" "4 1"; do set -- $spec; el "emulated 4x4: $1 rank(s) per node x $2 threads"
    timeout 90 bench/emulated-cluster --nodes 4 --cores-per-node 4 --ranks-per-node $1 --timeout 80 -- $B/bench_node_allreduce --threads $2 2>&1 | tail -7; el "rc $?"; done ;;
cg44) el "cg 4x4"; mkdir -p $W/cg-4x4; timeout $(( $(left) < 200 ? $(left) : 200 )) bench/emulated-cluster --nodes 4 --cores-per-node 4 --launcher -- apps/cg3d/compare --nodes 4 --cores 4 --n 128 --reps 3 --output $W/cg-4x4/cg.csv > $W/cg-4x4/console.txt 2>&1; el "rc $?"; tail -12 $W/cg-4x4/console.txt; tar -czf $OUT/cg-4x4.tgz -C $W cg-4x4 ;;
coll44) el "collectives 4x4"; timeout $(( $(left) < 150 ? $(left) : 150 )) bench/cluster-study --emulate 4x4 --parts collectives --reps 1 --out $W/coll-4x4 > $W/coll-4x4.log 2>&1; el "rc $?"; tail -3 $W/coll-4x4.log; tar -czf $OUT/coll-4x4.tgz -C $W coll-4x4 coll-4x4.log ;;
basebuild)
  mkdir -p /tmp/basebuild/bin; for f in build/bin/*; do ln -sf $PWD/$f /tmp/basebuild/bin/; done
  ln -sf $PWD/build/bin/redblack3d-base /tmp/basebuild/bin/redblack3d; ls -la /tmp/basebuild/bin/redblack3d ;;
rbstudy)
  for lay in 1x16 4x4 2x8; do for v in base new; do
    [ $(left) -lt 40 ] && { el "skip rb $lay $v: deadline"; continue; }
    b=build; [ $v = base ] && b=/tmp/basebuild; em=""; [ $lay != 1x16 ] && em="--emulate $lay"
    el "rb study $lay $v"; timeout $(( $(left) < 120 ? $(left) : 120 )) bench/cluster-study $em --parts redblack3d --reps 3 --build $b --out $W/rb-$lay-$v > $W/rb-$lay-$v.log 2>&1; el "rc $?"
    grep -A8 "^| mode\|^| layout\|RedBlack3D" $W/rb-$lay-$v/report.md | head -12
    tar -czf $OUT/rb-$lay-$v.tgz -C $W rb-$lay-$v rb-$lay-$v.log; done; done ;;
cg116) el "cg 1x16"; mkdir -p $W/cg-1x16; timeout $(( $(left) < 150 ? $(left) : 150 )) apps/cg3d/compare --cores 16 --n 128 --reps 3 --output $W/cg-1x16/cg.csv > $W/cg-1x16/console.txt 2>&1; el "rc $?"; tail -10 $W/cg-1x16/console.txt; tar -czf $OUT/cg-1x16.tgz -C $W cg-1x16 ;;
assist)
  for rep in 1 2; do for v in bench_node_allreduce bench_node_allreduce-new; do for spec in "2 8" "4 4" "1 16"; do set -- $spec
    el "$v $1 x $2 rep $rep"; timeout 60 $PM -n $1 $B/$v --threads $2 2>&1 | tail -4; done; done; done ;;
cgassist)
  for v in cg3d cg3d-new; do [ $(left) -lt 60 ] && continue; el "cg 1x16 $v"; mkdir -p $W/cg-1x16-$v
    timeout 100 apps/cg3d/compare --driver $PWD/$B/$v --cores 16 --n 128 --reps 3 --output $W/cg-1x16-$v/cg.csv > $W/cg-1x16-$v/console.txt 2>&1; el "rc $?"
    grep -A9 "^Mode" $W/cg-1x16-$v/console.txt | head -10; tail -6 $W/cg-1x16-$v/console.txt; tar -czf $OUT/cg-1x16-$v.tgz -C $W cg-1x16-$v; done ;;
rbassist)
  for rep in 1 2 3; do for v in redblack3d redblack3d-new; do
    el "$v mt-coop 1x16 proxy 16 threads rep $rep: $(PROXY_PROGRESS=cooperative $PM -n 1 $B/$v --mode proxy --threads 16 --n 320 --iters 40 2>&1 | rbline)"; done; done ;;
calib)
  mkdir -p $W/calib; el "calibrate 16 threads"
  timeout 150 $B/calibrate --threads 16 --output $W/calib/16.model --force --csv $W/calib/16.csv > $W/calib/calibrate.txt 2>&1; el "rc $?"
  tail -8 $W/calib/calibrate.txt; tar -czf $OUT/calib.tgz -C $W calib
  for m in builtin calibrated; do for rep in 1 2; do el "node allreduce 1x16 model $m rep $rep"
    if [ $m = calibrated ]; then export PROXY_COLLECTIVE_MODEL=$W/calib/16.model; else unset PROXY_COLLECTIVE_MODEL; fi
    timeout 60 $PM -n 1 $B/bench_node_allreduce --threads 16 2>&1 | tail -4; done; done; unset PROXY_COLLECTIVE_MODEL ;;
rt)
  for rep in 1 2 3 4 5; do el "round trip, 2 ranks on cores 0,1, rep $rep"
    taskset -c 0,1 $PM -n 2 $B/bench_plan_roundtrip --benchmark_filter='bytes:8/' 2>&1 | grep -E "^BM_|placement|progress" | awk '{print $1, $2, $3}'; done
  for rep in 1 2 3; do el "round trip, 2 ranks on 16 cores, rep $rep"
    $PM -n 2 $B/bench_plan_roundtrip --benchmark_filter='bytes:8/' 2>&1 | grep -E "^BM_" | awk '{print $1, $2, $3}'; done
  PROXY_VERBOSE=1 taskset -c 0,1 $PM -n 2 $B/bench_plan_roundtrip --benchmark_filter='BM_Proxy/bytes:8/' 2>&1 | grep -iE "proxy on|progress|strategy" | head -4
  PROXY_VERBOSE=1 $PM -n 2 $B/bench_plan_roundtrip --benchmark_filter='BM_Proxy/bytes:8/' 2>&1 | grep -iE "proxy on|progress|strategy" | head -4 ;;
esac
done
el done
