# The environment of every test that starts ranks: the launcher for scripts, and the wait policies for
# oversubscribed cores.
set(PROXY_MPI_TEST_ENV "MPIEXEC=${PROXY_MPIEXEC};PROXY_WAIT_POLICY=block;OMP_WAIT_POLICY=passive;OMP_NUM_THREADS=2;OPENBLAS_NUM_THREADS=1")

# proxy_add_mpi_test(NAME name RANKS n COMMAND exe args... [TIMEOUT s] [WILL_FAIL] [PASS_REGEX re])
# Registers a CTest test that runs COMMAND on n real MPI ranks through the configured launcher
# (${PROXY_MPIEXEC}, cmake/ProxyLauncher.cmake), which adds the flags this MPI needs. Oversubscription is
# expected on small machines, so the ranks run with the yielding/blocking wait policy. Scripts the tests
# run find the same launcher in MPIEXEC.
function(proxy_add_mpi_test)
  cmake_parse_arguments(T "WILL_FAIL" "NAME;RANKS;TIMEOUT;PASS_REGEX" "COMMAND;ENV;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  add_test(NAME ${T_NAME}
           COMMAND ${PROXY_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} ${T_RANKS}
                   ${T_COMMAND} ${MPIEXEC_POSTFLAGS})
  set(_env "${PROXY_MPI_TEST_ENV}")
  list(APPEND _env ${T_ENV})
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT} ENVIRONMENT "${_env}"
                       PROCESSORS ${T_RANKS} LABELS "mpi;${T_LABELS}")
  if(T_WILL_FAIL)
    set_tests_properties(${T_NAME} PROPERTIES WILL_FAIL TRUE)
  endif()
  if(T_PASS_REGEX)
    set_tests_properties(${T_NAME} PROPERTIES PASS_REGULAR_EXPRESSION "${T_PASS_REGEX}")
  endif()
endfunction()

# proxy_add_mpi_failure_test(NAME name RANKS n REGEX re COMMAND exe args...)
# The command must exit non-zero on n ranks and print something matching REGEX (never hang).
function(proxy_add_mpi_failure_test)
  cmake_parse_arguments(T "" "NAME;RANKS;TIMEOUT;REGEX" "COMMAND;ENV;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  add_test(NAME ${T_NAME}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/expect_failure.sh "${T_REGEX}"
                   ${PROXY_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} ${T_RANKS}
                   ${T_COMMAND} ${MPIEXEC_POSTFLAGS})
  set(_env "${PROXY_MPI_TEST_ENV}")
  list(APPEND _env ${T_ENV})
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT} ENVIRONMENT "${_env}"
                       PROCESSORS ${T_RANKS} LABELS "mpi;${T_LABELS}")
endfunction()
