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
#   The wrapper forwards INT/TERM/HUP to the launcher, which passes them on to the ranks, and exits 128 + the
#   signal (130 for Ctrl-C; Open MPI's launcher exits 1).
#   a bounded end: Open MPI 4.1's launcher (Debian's 4.1.4 with PMIx 4) can deadlock in its own finalize
#                     (PMIx_server_finalize waits for its progress thread, which waits for a lock) after its
#                     ranks have ended, most often after MPI_Abort: the ranks stay unreaped and mpiexec never
#                     exits (seen 1 run in 32 of core.timeout_names_plan_peer_epoch under load 12; ompi#5975
#                     fixed one such interlock in 2018). A watcher ends the launcher once every process it
#                     started has ended unreaped and stayed so for 15 s, with one line, and the wrapper exits
#                     with the ranks' status (read from /proc: the first non-zero exit code, else 128 +
#                     the first signal). The watcher looks twice a second.
#                     The same finalize can crash instead (SIGSEGV in PMIx_server_finalize after an
#                     MPI_Abort; once in 25 loaded Open MPI suites, once in 26 loaded runs of
#                     heat2d-tasks_one_more_step_times_out; ompi#13650), often after the launcher has reaped
#                     its ranks. The wrapper preloads a guard into the launcher (proxy-mpiexec-guard.c, beside
#                     this file; installed under lib/proxyrt/) that writes orte_exit_status, the status mpiexec
#                     is about to exit with, to an unlinked file as its orte_finalize begins. A launcher that
#                     then dies of a signal: the wrapper says so in one line and exits with that status, not
#                     128 + the signal. A launcher that hangs after reaping its ranks (not seen: the deadlock
#                     leaves them unreaped) is ended 15 s after the guard's record, with one line and that
#                     status. Without the guard's record (a copy of the wrapper away from the guard), the
#                     status the watcher saw, if it saw every process ended; a hang after reaping is then
#                     not detected.
#   output that cannot be written: Open MPI's launcher drops what it cannot write to its standard output (a
#                     full disk, /dev/full, a closed output or pipe) and exits 0. The wrapper gives it a pipe
#                     instead, copied by cat (through a FIFO, so that the wrapper knows cat's status): when
#                     the copy fails, one line and exit 1 (the job's own status when it failed). MPICH's Hydra
#                     reports it itself (exit 255, or SIGPIPE).
# MPICH (Hydra): no flags; it neither binds nor refuses oversubscription, and starts ranks in a new session.
#   The wrapper runs it as a child, not exec'd, to exit 128 + the signal when interrupted (130 for Ctrl-C; Hydra
#   exits 0, 2 or 255), as on Open MPI's path; signals are passed on.
# Both: a rank count (-n, -np, --np) past 2^24 is refused by the wrapper (MPICH's mpiexec reads its low 32 bits).
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
# Both MPIs: an interrupted wrapper (Ctrl-C, SIGTERM, SIGHUP) passes the signal on to the launcher, which ends
# the ranks, and exits 128 + its number (130 for Ctrl-C), as a shell reports an interrupted command; the launchers
# exit with statuses of their own (Open MPI's 1; MPICH's Hydra 0, 2 or 255). The traps come before the launch.
# A signal is passed on once the launcher's fork has left the shell (its command name is no longer the wrapper's):
# sent between the fork and its exec, it would land in the trap the fork inherits and be lost, the launch running
# on (seen with a tool killed as it started a launch).
set(_interruptible [[
interrupted=0 launcher=
pass_on() {
  own=$(cat /proc/$$/comm 2>/dev/null) naps=0
  while [ -n "$own" ] && [ "$naps" -lt 200 ] && [ "$(cat /proc/$launcher/comm 2>/dev/null)" = "$own" ]; do
    sleep 0.05; naps=$((naps + 1))
  done
  kill -"$1" "$launcher" 2>/dev/null
}
trap 'interrupted=2; [ -z "$launcher" ] || pass_on INT' INT
trap 'interrupted=15; [ -z "$launcher" ] || pass_on TERM' TERM
trap 'interrupted=1; [ -z "$launcher" ] || pass_on HUP' HUP]])
if(PROXY_MPI_VENDOR STREQUAL "openmpi")
  # The guard, found from the wrapper's own directory: the same relative place in the build tree and installed.
  file(RELATIVE_PATH _guard_from_bindir ${CMAKE_INSTALL_FULL_BINDIR}
       ${CMAKE_INSTALL_FULL_LIBDIR}/proxyrt/proxy-mpiexec-guard.so)
  get_filename_component(_guard_dir ${CMAKE_BINARY_DIR}/bin/${_guard_from_bindir} DIRECTORY)
  add_library(proxy-mpiexec-guard MODULE ${CMAKE_CURRENT_LIST_DIR}/proxy-mpiexec-guard.c)
  target_link_libraries(proxy-mpiexec-guard PRIVATE ${CMAKE_DL_LIBS})
  # Loaded into the MPI's own launcher: never built with the sanitizers (their runtime must come first).
  set_target_properties(proxy-mpiexec-guard PROPERTIES PREFIX "" LIBRARY_OUTPUT_DIRECTORY ${_guard_dir}
                        COMPILE_OPTIONS "" LINK_OPTIONS "")
  install(TARGETS proxy-mpiexec-guard LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/proxyrt COMPONENT programs)
  set(_body [[
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
set -- "@MPIEXEC_EXECUTABLE@" --oversubscribe --bind-to none @_preflags@ "$@"
# Its own session (own scheduler autogroup), as Hydra gives MPICH's ranks; signals are passed on.
command -v setsid >/dev/null 2>&1 || exec "$@"
# The guard (cmake/proxy-mpiexec-guard.c) writes the job's status to fd 4 as the launcher's finalize begins:
# a file unlinked as soon as it is open, so that nothing is left behind however the wrapper ends.
guard="$(dirname -- "$(readlink -f -- "$0" 2>/dev/null || echo "$0")")/@_guard_from_bindir@"
if [ -r "$guard" ] && status_file=$(mktemp "${TMPDIR:-/tmp}/proxy-mpiexec.XXXXXX" 2>/dev/null); then
  exec 4<>"$status_file"
  rm -f "$status_file"
else
  guard=
fi
exec 3<&0  # an asynchronous command gets /dev/null as stdin: keep the caller's for rank 0
@_interruptible@
# Open MPI's launcher drops the output it cannot write (a full disk, /dev/full, a closed standard output or
# pipe) and exits 0 all the same: it writes to a pipe instead, which cat copies to standard output; cat's
# failure is the wrapper's (below). Without mkfifo, it writes to standard output itself.
relay=
if relay_dir=$(mktemp -d "${TMPDIR:-/tmp}/proxy-mpiexec.XXXXXX" 2>/dev/null); then
  if mkfifo "$relay_dir/stdout" 2>/dev/null; then
    cat <"$relay_dir/stdout" 2>/dev/null &  # (the shell opens it before cat runs: cat cannot fail first)
    relay=$!
    exec 5>"$relay_dir/stdout"  # (returns once the reader has it open)
  fi
  rm -rf "$relay_dir"
fi
[ -n "$relay" ] || exec 5>&1
if [ -n "$guard" ]; then  # (env: preloaded into the launcher, not into setsid)
  setsid env LD_PRELOAD="$guard${LD_PRELOAD:+ $LD_PRELOAD}" PROXY_MPIEXEC_STATUS_FD=4 "$@" <&3 3<&- >&5 5>&- &
else
  setsid "$@" <&3 3<&- >&5 5>&- &
fi
launcher=$!
[ "$interrupted" -eq 0 ] || pass_on TERM  # a signal before the launcher was known
exec 5>&-  # the relay's write end is the launcher's alone: cat ends when the launcher and its children do
# The watcher (see cmake/ProxyLauncher.cmake): it ends a launcher that outlives its processes, or the start
# of its finalize once it has reaped them, by 15 s (SIGKILL) and exits with their status, or the status the
# guard recorded; once the launcher is gone without its help, it exits with the status of its processes if
# it saw them all ended, else 255.
(
  grace=15 idle=0 seen=255
  while sleep 0.5 </dev/null >/dev/null 2>&1; do  # (sleep holds no pipe of the caller open)
    children=$(cat /proc/$launcher/task/*/children 2>/dev/null) || exit "$seen"
    alive=0 ended=0 code=0 signalled=0
    for child in $children; do
      stat=$(cat /proc/$child/stat 2>/dev/null) || continue
      set -- ${stat##*) }
      [ "$1" = Z ] || { alive=1; break; }
      ended=$((ended + 1))
      [ "$#" -ge 50 ] || continue
      shift 49  # field 52, exit_code: the status as waitpid reports it
      [ "$code" -eq 0 ] && code=$(($1 >> 8))
      [ "$signalled" -eq 0 ] && [ $(($1 & 127)) -ne 0 ] && signalled=$((128 + ($1 & 127)))
    done
    if [ "$alive" -eq 1 ]; then idle=0 seen=255; continue; fi
    if [ "$ended" -gt 0 ]; then
      [ "$code" -eq 0 ] && code=$signalled
      seen=$code since="of its $ended processes' end" whose="the ranks' status"
    else  # none yet, or reaped: what was seen stands, unless the guard has recorded the finalize's start
      # (through /dev/fd: a file description of its own, so the wrapper's read below still starts at 0)
      code=
      [ -z "$guard" ] || read -r code 2>/dev/null </dev/fd/4 || code=
      case "$code" in ''|*[!0-9]*) idle=0; continue ;; esac
      since="of its finalize's start, after the job had ended" whose="the job's status"
    fi
    idle=$((idle + 1))
    [ "$idle" -ge $((2 * grace)) ] || continue
    echo "proxy-mpiexec: error: @MPIEXEC_EXECUTABLE@ did not exit within $grace s $since (Open MPI's launcher" \
         "can deadlock in its finalize): ended it; exit $code, $whose" >&2
    kill -KILL "$launcher" 2>/dev/null
    exit "$code"
  done
) &
watcher=$!
while :; do
  wait "$launcher" 2>/dev/null  # (no "Killed" from the shell: the watcher has said why)
  status=$?
  kill -0 "$launcher" 2>/dev/null || break  # still running: wait was cut short by a signal
done
if [ "$status" -gt 128 ] && [ "$interrupted" -eq 0 ]; then  # the watcher's SIGKILL (137, it said why), or a crash
  wait "$watcher"
  watched=$?
  recorded=
  [ -z "$guard" ] || recorded=$(cat <&4 2>/dev/null)
  if [ "$status" -eq 137 ] && [ "$watched" -ne 255 ]; then
    status=$watched  # the watcher ended it, having seen the processes end: their status is the job's
  elif [ -n "$recorded" ] && [ "$recorded" != "$status" ]; then  # (equal: the job's own status, no crash)
    echo "proxy-mpiexec: error: @MPIEXEC_EXECUTABLE@ died of signal $((status - 128)) in its finalize, after the" \
         "job had ended (Open MPI's launcher can crash there); exit $recorded, the job's status" >&2
    status=$recorded
  elif [ "$watched" -ne 255 ] && [ "$watched" -ne "$status" ]; then  # no guard: what the watcher saw
    echo "proxy-mpiexec: error: @MPIEXEC_EXECUTABLE@ died of signal $((status - 128)) after its processes had" \
         "ended (Open MPI's launcher can crash in its finalize); exit $watched, the ranks' status" >&2
    status=$watched
  fi
else
  kill "$watcher" 2>/dev/null
fi
if [ -n "$relay" ]; then  # cat ends with the launcher's output; 15 s at most if something else still holds it
  (naps=0  # (it ends by itself within half a second of the wrapper, which need not signal it)
   while kill -0 $$ 2>/dev/null; do
     [ "$naps" -lt 30 ] || { kill "$relay"; exit; }
     sleep 0.5
     naps=$((naps + 1))
   done) </dev/null >/dev/null 2>&1 &
  wait "$relay"
  relayed=$?
  if [ "$relayed" -eq 141 ]; then  # SIGPIPE: the reader has gone ("| head"): ended by it, silently, as Hydra is
    status=141
  elif [ "$relayed" -ne 0 ] && [ "$status" -eq 0 ]; then
    echo "proxy-mpiexec: error: cannot write to standard output: the job's output is lost" >&2
    status=1
  fi
fi
[ "$interrupted" -eq 0 ] || status=$((128 + interrupted))
exit "$status"
]])
else()
  # Not exec'd, so that an interrupted wrapper exits 128 + the signal (_interruptible, above).
  set(_body [[
exec 3<&0  # an asynchronous command gets /dev/null as stdin: keep the caller's for rank 0
@_interruptible@
"@MPIEXEC_EXECUTABLE@" @_preflags@ "$@" <&3 3<&- &
launcher=$!
[ "$interrupted" -eq 0 ] || pass_on TERM  # a signal before the launcher was known
exec 3<&-
while :; do
  wait "$launcher"
  status=$?
  kill -0 "$launcher" 2>/dev/null || break  # still running: wait was cut short by a signal
done
[ "$interrupted" -eq 0 ] || status=$((128 + interrupted))
exit "$status"
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
    -h|--help)  # text that cannot be written (a full disk, /dev/full) fails, as in every program
      cat <<'USAGE' 2>/dev/null || { echo "proxy-mpiexec: error: cannot write to standard output" >&2; exit 1; }
usage: proxy-mpiexec [launcher options] PROGRAM [program options]
Runs @MPIEXEC_EXECUTABLE@ (@PROXY_MPI_VENDOR@), the launcher this build of proxy was configured with,
adding the flags this MPI needs on a workstation or a small node: @_wrapper_flags@
Every argument goes to the launcher, unknown options included (its own errors and exit status apply),
except a rank count (-n, -np, --np, --n; also written -n=X) that is not an integer from 1 to 16777216, refused:
MPICH's mpiexec reads only its low 32 bits, and ran one rank for -n 0, -n -1 or -n x.
Its options: @MPIEXEC_EXECUTABLE@ --help.
  -h, --help  print this help and exit
  --version   print "proxy-mpiexec (proxy) @PROJECT_VERSION@", then the launcher's own version, and exit
Example: proxy-mpiexec -n 2 redblack3d --n 64 --verify
USAGE
      exit 0 ;;
    --version)  # then the launcher's: run records name the MPI from it (apps/toolkit/provenance.py)
      launcher_version=$("@MPIEXEC_EXECUTABLE@" --version)
      printf 'proxy-mpiexec (proxy) @PROJECT_VERSION@\n%s\n' "$launcher_version" 2>/dev/null ||
        { echo "proxy-mpiexec: error: cannot write to standard output" >&2; exit 1; }
      exit 0 ;;
  esac
fi
# A rank count past 2^24 is refused, not passed on: MPICH's mpiexec reads only its low 32 bits (-n 99999999999
# became 1215752191 processes, and its process manager filled the host's memory; past 2^63 it ran one rank). So is
# one that is not a positive integer: MPICH's ran one rank for -n 0, -n -1 and -n x, and exited 0. In every form
# the launchers take: -n X, -np X, --np X and -n=X, -np=X, --np=X anywhere (no program of proxy has such options),
# --n X and --n=X among a section's leading options (the drivers' --n is their grid). Leading zeros are the
# launcher's decimal (010 is 10; 000 is 0).
count_error() {  # $1 the option as written, $2 its value
  case "$2" in
    ''|*[!0-9]*)
      echo "proxy-mpiexec: error: $1 '$2': a rank count is an integer from 1 to 16777216" >&2
      exit 2 ;;
  esac
  digits=${2#"${2%%[!0]*}"}  # without its leading zeros
  if [ -z "$digits" ]; then
    echo "proxy-mpiexec: error: $1 '$2': a rank count is an integer from 1 to 16777216" >&2
    exit 2
  fi
  if [ ${#digits} -gt 8 ] || [ "$digits" -gt 16777216 ]; then
    echo "proxy-mpiexec: error: $1 $2: more ranks than a launch may ask for (at most 16777216)" >&2
    exit 2
  fi
}
previous=
leading=yes  # among the leading options of a section (the command line's start, or after ':')
for argument in "$@"; do
  case "$previous" in
    -n|-np|--np) count_error "$previous" "$argument" ;;
    --n) if [ "$leading" = yes ]; then count_error "$previous" "$argument"; fi ;;
    *) case "$argument" in
         :) leading=yes ;;
         -n=*|-np=*|--np=*) count_error "${argument%%=*}" "${argument#*=}" ;;
         --n=*) if [ "$leading" = yes ]; then count_error "${argument%%=*}" "${argument#*=}"; fi ;;
         -*) ;;
         *) leading=no ;;  # the program, or an option's value: the program's own options may follow
       esac ;;
  esac
  previous=$argument
done
@_body@]])
file(CHMOD ${PROXY_MPIEXEC} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                        WORLD_READ WORLD_EXECUTE)
install(PROGRAMS ${PROXY_MPIEXEC} DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT programs)  # beside the drivers
message(STATUS "Launcher: ${PROXY_MPIEXEC} -> ${MPIEXEC_EXECUTABLE} (${PROXY_MPI_VENDOR})")
