# The one launcher: writes ${CMAKE_BINARY_DIR}/bin/proxy-mpiexec, an executable wrapper that runs the
# MPIEXEC_EXECUTABLE this build was configured with, plus the flags that MPI needs on a workstation or a
# small node. Every MPI test runs through it, and the tools find it next to the driver they run
# (<dir of driver>/proxy-mpiexec). It is installed beside the programs.
#
# Open MPI:
#   --oversubscribe   tests and examples run more ranks than this machine has cores.
#   --bind-to none    Open MPI binds each rank to one core by default; a hybrid MPI+OpenMP rank (compute
#                     threads plus the proxy thread) then runs all its threads on that one core. Unbound
#                     ranks let the placement divide the cores (see docs/DESIGN.md, "Placement"); on a
#                     cluster, bind a rank to its share of cores instead (--map-by ppr:N:node:PE=C).
#   run-as-root variables when the caller is root (containers, CI), which Open MPI otherwise refuses.
#   its own session (setsid), as MPICH's Hydra does for its ranks. Linux's autogroup scheduler shares the
#   CPU between sessions first; Open MPI's ranks otherwise stay in the caller's session and compete,
#   thread by thread, with everything else it runs (a build, other tests). Every hand-off between a
#   rank's threads then waits behind those jobs: measured with 4 busy loops in the caller's session,
#   RedBlack3D proxy mode took 194.5 ms per iteration instead of 1.8 ms (sync 117 vs 11 ms; MPICH 3.8 ms).
#   The wrapper forwards INT/TERM/HUP to the launcher, which passes them on to the ranks.
# MPICH (Hydra): no flags; it neither binds nor refuses oversubscription, and starts ranks in a new session.
# Result: PROXY_MPIEXEC (the wrapper's path) and PROXY_MPI_VENDOR (openmpi, mpich or other).

if(MPI_CXX_LIBRARY_VERSION_STRING MATCHES "Open MPI")
  set(PROXY_MPI_VENDOR openmpi)
elseif(MPI_CXX_LIBRARY_VERSION_STRING MATCHES "MPICH|MVAPICH|Intel")
  set(PROXY_MPI_VENDOR mpich)
else()
  # The library string is empty when FindMPI could not run a test program: ask the launcher.
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _launcher_version
                  ERROR_VARIABLE _launcher_version RESULT_VARIABLE _rc TIMEOUT 20)
  if(_launcher_version MATCHES "Open MPI|OpenRTE")
    set(PROXY_MPI_VENDOR openmpi)
  elseif(_launcher_version MATCHES "HYDRA|MPICH")
    set(PROXY_MPI_VENDOR mpich)
  else()
    set(PROXY_MPI_VENDOR other)
  endif()
endif()

set(PROXY_MPIEXEC ${CMAKE_BINARY_DIR}/bin/proxy-mpiexec)
string(JOIN " " _preflags ${MPIEXEC_PREFLAGS})
if(PROXY_MPI_VENDOR STREQUAL "openmpi")
  set(_body [[
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
set -- "@MPIEXEC_EXECUTABLE@" --oversubscribe --bind-to none @_preflags@ "$@"
# Its own session (own scheduler autogroup), as Hydra gives MPICH's ranks; signals are passed on.
command -v setsid >/dev/null 2>&1 || exec "$@"
exec 3<&0  # an asynchronous command gets /dev/null as stdin: keep the caller's for rank 0
setsid "$@" <&3 3<&- &
launcher=$!
for signal in INT TERM HUP; do trap "kill -$signal $launcher 2>/dev/null" $signal; done
while :; do
  wait "$launcher"
  status=$?
  kill -0 "$launcher" 2>/dev/null || exit "$status"  # still running: wait was cut short by a signal
done
]])
else()
  set(_body [[
exec "@MPIEXEC_EXECUTABLE@" @_preflags@ "$@"
]])
endif()
string(CONFIGURE "${_body}" _body @ONLY)
if(PROXY_MPI_VENDOR STREQUAL "openmpi")
  set(_wrapper_flags "--oversubscribe --bind-to none ${_preflags}, run-as-root variables for root, its own session.")
else()
  set(_wrapper_flags "${_preflags}")
  if(NOT _preflags)
    set(_wrapper_flags "none (MPICH's Hydra neither binds nor refuses oversubscription).")
  endif()
endif()
# --help and --version alone are the wrapper's own (the project's vocabulary); every other command line,
# unknown options included, is the launcher's, which reports its own errors.
file(CONFIGURE OUTPUT ${PROXY_MPIEXEC} @ONLY CONTENT [[
#!/bin/sh
# proxy-mpiexec: written by CMake for this build of proxy (@PROXY_MPI_VENDOR@). Runs the launcher the build
# was configured with and the flags this MPI needs here (cmake/ProxyLauncher.cmake says why); use it
# wherever you would type mpiexec.
if [ "$#" -eq 1 ]; then
  case "$1" in
    -h|--help)
      cat <<'USAGE'
usage: proxy-mpiexec [launcher options] PROGRAM [program options]
Runs @MPIEXEC_EXECUTABLE@ (@PROXY_MPI_VENDOR@), the launcher this build of proxy was configured with,
adding the flags this MPI needs on a workstation or a small node: @_wrapper_flags@
Every argument goes to the launcher, unknown options included (its own errors and exit status apply);
its options: @MPIEXEC_EXECUTABLE@ --help.
  -h, --help  print this help and exit
  --version   print "proxy-mpiexec (proxy) @PROJECT_VERSION@", then the launcher's own version, and exit
Example: proxy-mpiexec -n 2 redblack3d --n 64 --verify
USAGE
      exit 0 ;;
    --version)  # then the launcher's: run records name the MPI from it (apps/toolkit/provenance.py)
      echo "proxy-mpiexec (proxy) @PROJECT_VERSION@"
      "@MPIEXEC_EXECUTABLE@" --version
      exit 0 ;;
  esac
fi
@_body@]])
file(CHMOD ${PROXY_MPIEXEC} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                        WORLD_READ WORLD_EXECUTE)
install(PROGRAMS ${PROXY_MPIEXEC} DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT programs)  # beside the drivers
message(STATUS "Launcher: ${PROXY_MPIEXEC} -> ${MPIEXEC_EXECUTABLE} (${PROXY_MPI_VENDOR})")
