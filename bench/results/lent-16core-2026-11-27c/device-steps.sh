#!/bin/bash
# Device run (2026-11-27, third lease of the day; issue 21: the README's recipe against plain MPI+OpenMP on
# 16 cores). Calls 1 (steps setup recipe two) and 2 (setup recipe2 cores): heat2d-old / redblack3d-old = main
# at ef4d93f (auto keeps a proxy core wherever one is free); heat2d, redblack3d = a first form of the change
# (a world of one rank keeps none); heat2d-plain = the plain MPI+OpenMP twin. Call 3 (setup final): the
# landed rule (auto_keeps_a_proxy_core: also none on ranks of fewer than 4 cores; every run here asks threads
# 0, where the rule applies). Carried: .dev/bundle.tar.xz
# (these binaries and MPICH's runtime, each binary's RPATH at /opt/proxydev/lib); `t` prints a whole
# launch's wall time and the program's first line.
exec > >(tee -a $OUT/console.txt) 2>&1
T0=$(date +%s); DEADLINE=${DEADLINE:-300}
el() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
left() { echo $(( DEADLINE - ($(date +%s) - T0) )); }
B=build/bin; PM=build/bin/proxy-mpiexec
t() { local s=$(date +%s%N); "$@" > /tmp/o.txt 2>&1; local rc=$?; local e=$(date +%s%N)
      echo "  $(( (e - s) / 1000000 )) ms rc $rc | $(grep -m1 -E '^(heat2d|heat2d-plain):|^placement|^proxy|Total' /tmp/o.txt | cut -c1-150)"; }
for step in "$@"; do
[ $(left) -lt 20 ] && { el "skip $step: deadline"; continue; }
case $step in
setup)
  el probe; nproc; lscpu | grep -E "Model name|L2|L3|NUMA node"; cat /proc/loadavg; date -u
  mkdir -p /tmp/b && tar -xJf .dev/bundle.tar.xz -C /tmp/b && rm -rf /opt/proxydev && cp -a /tmp/b/opt/proxydev /opt/ && mkdir -p build && cp -a /tmp/b/build/bin build/ || { echo "bundle install failed"; exit 3; }
  for n in mpiexec mpiexec.mpich mpiexec.hydra; do ln -sf /opt/proxydev/bin/mpiexec.hydra /usr/bin/$n; done
  ln -sf /opt/proxydev/bin/hydra_pmi_proxy /usr/bin/hydra_pmi_proxy
  for x in ip tc; do command -v $x > /dev/null || ln -sf /opt/proxydev/sbin/$x /usr/local/bin/$x; done
  $PM -n 2 $B/heat2d --nx 67 --ny 41 --iters 60 --verify 2>&1 | tail -1 || { echo "sanity run failed"; exit 4; }
  $PM -n 2 $B/heat2d-plain --nx 67 --ny 41 --iters 60 --verify 2>&1 | tail -1
  el setup-done ;;
recipe)  # 1 rank on 16 cores: heat2d before/after against the plain twin; redblack3d proxy before/after vs mt
  for rep in 1 2 3; do
    for b in heat2d-old heat2d heat2d-plain; do el "1 x 16 $b rep $rep"; t $PM -n 1 $B/$b --nx 4096 --ny 4096 --iters 200; done
    for b in redblack3d-old redblack3d; do el "1 x 16 $b proxy rep $rep"; t $PM -n 1 $B/$b --mode proxy --n 256 --iters 40; done
    el "1 x 16 redblack3d mt rep $rep"; t $PM -n 1 $B/redblack3d --mode mt --n 256 --iters 40
  done ;;
two)  # ranks of 2 cores in a world of several: 8 x 2 on the node, 4 emulated nodes x 2 cores
  for rep in 1 2; do
    for p in dedicated cooperative; do el "8 x 2 heat2d $p rep $rep"; PROXY_PROGRESS=$p t $PM -n 8 $B/heat2d --nx 4096 --ny 4096 --iters 200; done
    el "8 x 2 heat2d-plain rep $rep"; t $PM -n 8 $B/heat2d-plain --nx 4096 --ny 4096 --iters 200
  done
  for rep in 1 2; do
    for p in dedicated cooperative; do [ $(left) -lt 30 ] && continue; el "4 nodes x 2 heat2d $p rep $rep"; PROXY_PROGRESS=$p t bench/emulated-cluster --nodes 4 --cores-per-node 2 --ranks-per-node 1 --timeout 60 -- $B/heat2d --nx 4096 --ny 2048 --iters 200; done
    [ $(left) -lt 30 ] && continue; el "4 nodes x 2 heat2d-plain rep $rep"; t bench/emulated-cluster --nodes 4 --cores-per-node 2 --ranks-per-node 1 --timeout 60 -- $B/heat2d-plain --nx 4096 --ny 2048 --iters 200
  done ;;
recipe2)  # the same, longer runs; redblack3d's own Total row
  for rep in 1 2 3; do
    for b in heat2d-old heat2d heat2d-plain; do el "1 x 16 $b 600 steps rep $rep"; t $PM -n 1 $B/$b --nx 4096 --ny 4096 --iters 600; done
  done
  for rep in 1 2; do
    for b in redblack3d-old redblack3d; do el "1 x 16 $b proxy rep $rep"; $PM -n 1 $B/$b --mode proxy --n 256 --iters 100 2>&1 | grep -E "^(placement|proxy )"; done
    el "1 x 16 redblack3d mt rep $rep"; $PM -n 1 $B/redblack3d --mode mt --n 256 --iters 100 2>&1 | grep -E "^(placement|mt )"
  done ;;
cores)  # 4 emulated nodes x C cores (1 Gbit/s), RedBlack3D proxy mode: dedicated vs cooperative per C
  for rep in 1 2; do for c in 2 3 4; do for p in dedicated cooperative; do [ $(left) -lt 25 ] && continue
    el "4 nodes x $c redblack3d proxy $p rep $rep"; PROXY_PROGRESS=$p bench/emulated-cluster --nodes 4 --cores-per-node $c --ranks-per-node 1 --timeout 60 -- $B/redblack3d --mode proxy --n 256 --iters 40 2>&1 | grep -E "^(placement|proxy )"; done; done; done ;;
final)  # the landed rule under auto: what it picks and what it costs
  for rep in 1 2 3; do
    for b in heat2d heat2d-plain; do el "1 x 16 $b 600 steps rep $rep"; t $PM -n 1 $B/$b --nx 4096 --ny 4096 --iters 600; done
    for b in heat2d heat2d-plain; do el "8 x 2 $b auto rep $rep"; t $PM -n 8 $B/$b --nx 4096 --ny 4096 --iters 200; done
  done
  for rep in 1 2; do for c in 3 4; do [ $(left) -lt 25 ] && continue
    el "4 nodes x $c redblack3d proxy auto rep $rep"; bench/emulated-cluster --nodes 4 --cores-per-node $c --ranks-per-node 1 --timeout 60 -- $B/redblack3d --mode proxy --n 256 --iters 40 2>&1 | grep -E "^(placement|progress|proxy )"; done; done ;;
esac
done
el done
